"""Parse, plan and run one Cypher query; rows come back as JSON-able dicts.

This is the only entry point the retrievers use. Decoding undoes what SQL flattens: a returned
node or relationship (several SQL columns) becomes one dict, a JSON property keeps its JSON type
(a list stays a list, ``true`` stays ``True`` rather than SQLite's ``1``), comparisons come back
as booleans, and ids are strings on every backend (PostgreSQL returns uuids and decoded
``jsonb``, SQLite text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from engramdb.retrieval.cypher.backend import CypherBackend
from engramdb.retrieval.cypher.compiler import DEFAULT_LIMIT, MAX_LIMIT, Column, compile_query
from engramdb.retrieval.cypher.parser import parse
from engramdb.retrieval.cypher.sql_expr import EDGE_FIELDS, NODE_FIELDS

__all__ = ["DEFAULT_TIMEOUT_S", "CypherResult", "run_cypher"]

#: Time budget of one query (seconds).
DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class CypherResult:
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    #: True when the LIMIT default or cap cut rows off (a LIMIT the query set itself never does).
    truncated: bool = False
    #: The effective LIMIT the query ran with.
    limit: int = DEFAULT_LIMIT


async def run_cypher(
    backend: CypherBackend,
    query: str,
    dataset_ids: Sequence[UUID | str],
    parameters: Mapping[str, object] | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    default_limit: int = DEFAULT_LIMIT,
    max_limit: int = MAX_LIMIT,
    viewer: UUID | str | None = None,
) -> CypherResult:
    """Rows of ``query`` over ``dataset_ids`` only. Raises CypherSyntaxError,
    CypherUnsupportedError or CypherTimeoutError (all EngramValidationErrors)."""
    tree = parse(query)
    compiled = compile_query(
        tree,
        dataset_ids,
        parameters or {},
        backend.dialect,
        default_limit=default_limit,
        max_limit=max_limit,
        viewer=viewer,
    )
    names = [c.name for c in compiled.columns]
    if not dataset_ids:
        return CypherResult(names, [], False, compiled.limit)
    raw_rows = await backend.fetch(compiled.sql, compiled.params, timeout=timeout)
    truncated = compiled.probe_truncation and len(raw_rows) > compiled.limit
    rows = [_decode(row, compiled.columns) for row in raw_rows[: compiled.limit]]
    return CypherResult(names, rows, truncated, compiled.limit)


def _decode(row: tuple[Any, ...], columns: list[Column]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    i = 0
    for column in columns:
        cells = row[i : i + column.width]
        i += column.width
        out[column.name] = _cell(column, cells)
    return out


def _cell(column: Column, cells: tuple[Any, ...]) -> Any:
    kind = column.kind
    if kind == "value":
        return _plain(cells[0])
    if kind == "bool":
        return None if cells[0] is None else bool(cells[0])
    if kind == "jsontext":
        return _json(cells[0])
    if kind == "json":
        value, json_type = cells
        if json_type in ("array", "object"):
            return _json(value)
        if json_type in ("true", "false"):
            return json_type == "true"
        return value
    fields = NODE_FIELDS if kind == "node" else EDGE_FIELDS
    record = {f: _plain(v) for f, v in zip(fields, cells, strict=True)}
    if record["id"] is None:
        return None
    record["properties"] = _json(record["properties"]) or {}
    return record


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, UUID) else value


def _json(value: Any) -> Any:
    """A JSON document as text (SQLite) or already decoded (PostgreSQL ``jsonb``)."""
    return json.loads(value) if isinstance(value, str | bytes) else value
