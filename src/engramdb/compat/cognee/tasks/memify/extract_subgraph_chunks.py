"""``cognee.tasks.memify.extract_subgraph_chunks``: the text of every document chunk of the
graphs a memify run gets."""

from engramdb.pipelines.memify_tasks import extract_subgraph_chunks

__all__ = ["extract_subgraph_chunks"]
