"""CYPHER: run the user's read-only Cypher query verbatim over the graph of the recall's datasets.

The query is parsed, compiled to one parameterised SELECT and run by the store's Cypher backend
(see :mod:`engramdb.retrieval.cypher` and docs/cypher.md). It is the one search type that
returns preference nodes unfiltered (recall.md): the user asked for exactly these rows.

Output: one :class:`ResponseGraphEntry` per row, in the query's order -- ``kind="cypher_row"``,
``raw`` the row as a JSON-able dict keyed by column name, ``text`` a readable ``column: value``
rendering, ``score`` None. The query's own LIMIT decides how many rows come back (default and
maximum 1000), not ``top_k``: a query language that silently drops rows past 15 would be wrong.
``only_context=True`` returns the same rows with ``system_prompt`` unset -- CYPHER has no
prompt to show.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.models.records import Dataset
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.cypher import DEFAULT_TIMEOUT_S, CypherResult, backend_for, run_cypher
from engramdb.storage.base import Store

__all__ = ["MAX_TIMEOUT_S", "CypherRetriever", "render_row", "search_cypher"]

#: The largest time budget ``retriever_specific_config["timeout_seconds"]`` may ask for.
MAX_TIMEOUT_S = 60.0
_MAX_RENDERED_VALUE = 500


class CypherRetriever(Retriever):
    """SearchType.CYPHER. Config: ``parameters`` (dict for ``$name``), ``timeout_seconds``."""

    search_types = frozenset({SearchType.CYPHER})
    node_name_refusal = (
        "a Cypher query chooses its own nodes, so there is nothing for a node set to narrow; "
        "filter in the query instead, e.g. WHERE 'hr' IN c.node_set (docs/cypher.md), and "
        "recall without node_name"
    )

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        config = opts.retriever_specific_config
        entries = await search_cypher(
            ctx.store,
            ctx.datasets,
            opts.query,
            parameters=_parameters(config.get("parameters")),
            timeout=_timeout(config.get("timeout_seconds")),
            viewer=ctx.user.id,
        )
        return list(entries)


async def search_cypher(
    store: Store,
    datasets: Sequence[Dataset],
    query: str,
    *,
    parameters: Mapping[str, object] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    viewer: UUID | None = None,
) -> list[ResponseGraphEntry]:
    """One entry per result row of ``query`` over ``datasets`` (nothing outside them, and none
    of another user's per-user internal nodes when a ``viewer`` is given)."""
    result = await run_cypher(
        backend_for(store),
        query,
        [d.id for d in datasets],
        parameters,
        timeout=timeout,
        viewer=viewer,
    )
    return _entries(result, datasets)


def _entries(result: CypherResult, datasets: Sequence[Dataset]) -> list[ResponseGraphEntry]:
    names = {str(d.id): d.name for d in datasets}
    only = str(datasets[0].id) if len(datasets) == 1 else None
    entries = []
    for index, row in enumerate(result.rows):
        dataset_id = only or _row_dataset(row)
        entries.append(
            ResponseGraphEntry(
                text=render_row(row),
                kind="cypher_row",
                search_type=SearchType.CYPHER.value,
                score=None,
                dataset_id=UUID(dataset_id) if dataset_id else None,
                dataset_name=names.get(dataset_id) if dataset_id else None,
                metadata={
                    "columns": list(result.columns),
                    "row_index": index,
                    "row_count": len(result.rows),
                    "limit": result.limit,
                    "truncated": result.truncated,
                },
                raw=row,
            )
        )
    return entries


def _row_dataset(row: Mapping[str, Any]) -> str | None:
    """The dataset of a row whose returned nodes/relationships all come from one dataset."""
    found = {
        v["dataset_id"]
        for v in row.values()
        if isinstance(v, dict) and isinstance(v.get("dataset_id"), str) and "id" in v
    }
    return found.pop() if len(found) == 1 else None


def render_row(row: Mapping[str, Any]) -> str:
    """``column: value | column: value``; nodes as ``(:Type name)``, relationships as
    ``[:relation]``, other values as JSON (strings bare)."""
    return " | ".join(f"{name}: {_render(value)}" for name, value in row.items())


def _render(value: Any) -> str:
    if isinstance(value, dict) and "id" in value and "properties" in value:
        if "relation" in value:
            return f"[:{value['relation']}]"
        label = value.get("name") or value.get("id")
        return f"(:{value.get('type')} {label})"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > _MAX_RENDERED_VALUE:
        text = text[: _MAX_RENDERED_VALUE - 1] + "…"
    return text


def _parameters(value: object) -> dict[str, object]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise EngramValidationError(
            "retriever_specific_config['parameters'] must be a dict of parameter names to "
            "values, e.g. {'name': 'Alice'} for $name"
        )
    return dict(value)


def _timeout(value: object) -> float:
    if value is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise EngramValidationError(
            "retriever_specific_config['timeout_seconds'] must be a positive number"
        )
    return min(float(value), MAX_TIMEOUT_S)
