"""The memify tasks a name selects (cognee's memify task registry), for ``memify()`` and
improve()'s deprecated ``extraction_tasks``/``enrichment_tasks``.

Each name gives a fresh :class:`~engramdb.pipelines.task.Task`. engramdb builds the ones that
need no session arguments and no LLM; cognee's other names raise FeatureNotAvailableError
naming these (see :data:`MEMIFY_TASK_NAMES` and :func:`memify_task`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from engramdb.models.records import Edge, NodeType
from engramdb.models.snapshot import GraphSnapshot
from engramdb.pipelines.task import Task

__all__ = [
    "MEMIFY_TASK_NAMES",
    "extract_subgraph",
    "extract_subgraph_chunks",
    "index_data_points",
    "memify_task",
]

#: Node types whose text is a chunk of a document (engramdb's own, and cognee's DataPoint).
_CHUNK_TYPES = frozenset({NodeType.CHUNK.value, "DocumentChunk"})


async def extract_subgraph(subgraphs: list[GraphSnapshot]) -> AsyncIterator[Edge]:
    """Every edge of the graphs it gets, one at a time (cognee's ``extract_subgraph``)."""
    for subgraph in subgraphs:
        for edge in subgraph.edges:
            yield edge


async def extract_subgraph_chunks(subgraphs: list[GraphSnapshot]) -> AsyncIterator[str]:
    """The text of every document chunk of the graphs it gets, one at a time (cognee's
    ``extract_subgraph_chunks``)."""
    for subgraph in subgraphs:
        for node in subgraph.nodes:
            if node.type in _CHUNK_TYPES:
                yield node.text


async def index_data_points(data_points: list[Any]) -> list[Any]:
    """cognee indexes stored data points in a second step; engramdb indexes everything as it
    writes it, so the points pass through unchanged."""
    return data_points


_FACTORIES: dict[str, Callable[[], Task]] = {
    "extract_subgraph": lambda: Task(extract_subgraph, needs_llm=False),
    "extract_subgraph_chunks": lambda: Task(extract_subgraph_chunks, needs_llm=False),
    "index_data_points": lambda: Task(
        index_data_points, task_config={"batch_size": 100}, needs_llm=False
    ),
}


def _add_data_points() -> Task:
    from engramdb.pipelines.storage import add_data_points

    return Task(add_data_points, needs_llm=False)


_FACTORIES["add_data_points"] = _add_data_points

#: The names engramdb runs, sorted.
MEMIFY_TASK_NAMES: tuple[str, ...] = tuple(sorted(_FACTORIES))


def memify_task(name: str) -> Task | None:
    """A fresh Task for the memify task ``name``, or None when engramdb has none by it."""
    factory = _FACTORIES.get(name)
    return None if factory is None else factory()
