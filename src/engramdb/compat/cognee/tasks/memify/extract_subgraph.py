"""``cognee.tasks.memify.extract_subgraph``: every edge of the graphs a memify run gets."""

from engramdb.pipelines.memify_tasks import extract_subgraph

__all__ = ["extract_subgraph"]
