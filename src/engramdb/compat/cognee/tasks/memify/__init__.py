"""``cognee.tasks.memify``: the tasks that feed a dataset's graph to memify's other tasks."""

# imported from the sub-modules, so that importing those later keeps these names functions
from engramdb.compat.cognee.tasks.memify.extract_subgraph import extract_subgraph
from engramdb.compat.cognee.tasks.memify.extract_subgraph_chunks import extract_subgraph_chunks

__all__ = ["extract_subgraph", "extract_subgraph_chunks"]
