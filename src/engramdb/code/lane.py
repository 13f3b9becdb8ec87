"""The code graph as recall reads it: the "code" lane and ``SearchType.CODE``.

Both run one operation (:mod:`engramdb.code.operations`) over the code graph of each target
dataset and answer with one entry per dataset that has a code graph: ``kind="code"``,
``search_type="CODE"``, ``raw`` the operation's result and ``text`` that result as JSON (what
the reference's normalised payload carries). A dataset without a code graph, or whose graph
cannot resolve the seed, contributes nothing. ``top_k`` does not apply: ``max_nodes`` and
``limit`` in ``code_query`` bound the results.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engramdb.code.operations import OPERATIONS, run_operation
from engramdb.code.snapshot import load_graph
from engramdb.errors import CodeSeedNotFoundError, InvalidCodeQueryError
from engramdb.models.records import Dataset
from engramdb.models.results import ResponseCodeEntry, ResponseGraphEntry
from engramdb.storage.base import Store

__all__ = ["CodeRun", "check_code_query", "code_entries", "run_code", "run_code_lane"]


class CodeRun:
    """Per-dataset results of one operation, and the seed misses."""

    def __init__(self) -> None:
        self.results: list[tuple[Dataset, dict[str, Any]]] = []
        self.misses: list[CodeSeedNotFoundError] = []


def check_code_query(code_query: Mapping[str, Any] | None) -> None:
    """InvalidCodeQueryError for a code_query that is not a dict or names no known operation
    (raised even when no dataset has a code graph: it is the caller's bug)."""
    if code_query is None:
        return
    if not isinstance(code_query, Mapping):
        raise InvalidCodeQueryError(
            "code_query must be a dict such as {'operation': 'impact_analysis', 'name': 'X'}"
        )
    operation = str(code_query.get("operation") or "explore").lower()
    if operation not in OPERATIONS:
        raise InvalidCodeQueryError(
            f"unknown code_query operation {operation!r}; use one of {', '.join(OPERATIONS)}"
        )


async def run_code(
    store: Store, datasets: Sequence[Dataset], query: str, code_query: Mapping[str, Any] | None
) -> CodeRun:
    """Run the operation over each dataset that has a code graph."""
    check_code_query(code_query)
    run = CodeRun()
    for dataset in datasets:
        graph = await load_graph(store, dataset.id)
        if not graph.nodes and not graph.repositories:
            continue
        try:
            run.results.append((dataset, run_operation(graph, code_query, query)))
        except CodeSeedNotFoundError as miss:
            run.misses.append(miss)
    return run


def code_entries(run: CodeRun, *, lane: bool) -> list[ResponseGraphEntry]:
    """The entries of a run: ResponseCodeEntry (``source="code"``) for the recall lane,
    ResponseGraphEntry for ``SearchType.CODE`` in the graph lane."""
    cls = ResponseCodeEntry if lane else ResponseGraphEntry
    return [
        cls(
            text=json.dumps(result, sort_keys=True, ensure_ascii=False, default=str),
            kind="code",
            search_type="CODE",
            dataset_id=dataset.id,
            dataset_name=dataset.name,
            raw=result,
        )
        for dataset, result in run.results
    ]


async def run_code_lane(
    store: Store, datasets: Sequence[Dataset], query: str, code_query: Mapping[str, Any] | None
) -> list[ResponseGraphEntry]:
    """recall's "code" lane: a seed the graph cannot resolve contributes nothing."""
    return code_entries(await run_code(store, datasets, query, code_query), lane=True)
