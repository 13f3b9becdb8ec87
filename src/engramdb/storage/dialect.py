"""The SQL the two backends spell differently, in one small object.

Both backends keep the same tables and column names (see each backend's ``schema`` module), so
most statements are shared text built here once; what differs is only the spelling:

* placeholders (``?`` for sqlite3, ``%s`` for psycopg) and the cast a JSON parameter needs
  (text in SQLite, ``jsonb`` in PostgreSQL);
* reading one JSON key (``json_extract`` vs ``->>``);
* the upsert (both speak ``INSERT ... ON CONFLICT (...) DO UPDATE SET col = excluded.col``);
* list membership (``IN (?, ?)`` vs ``= ANY(%s::text[])``), ``max`` vs ``greatest`` and the
  byte-wise collation.

This is not an ORM: it builds a handful of statements from column lists, nothing more. The
statements are built once per dialect (``functools.cache``) so the hot write paths pay nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from engramdb.models.records import NodeType

__all__ = ["POSTGRES", "SQLITE", "SqlDialect", "columns_of", "edge_upsert", "node_upsert"]

#: Columns of ``nodes`` a write supplies, in the order of the upsert's parameters.
NODE_COLUMNS = (
    "id",
    "dataset_id",
    "type",
    "name",
    "text",
    "properties",
    "importance_weight",
    "feedback_weight",
    "created_at",
    "updated_at",
)
EDGE_COLUMNS = (
    "id",
    "dataset_id",
    "source_id",
    "target_id",
    "relation",
    "properties",
    "importance_weight",
    "feedback_weight",
)
#: PostgreSQL types of :data:`NODE_COLUMNS` and :data:`EDGE_COLUMNS`, for the batched upserts
#: that bind one array per column (:meth:`SqlDialect.unnest`).
NODE_TYPES = (
    "uuid",
    "uuid",
    "text",
    "text",
    "text",
    "jsonb",
    "float8",
    "float8",
    "timestamptz",
    "timestamptz",
)
EDGE_TYPES = ("uuid", "uuid", "uuid", "uuid", "text", "jsonb", "float8", "float8")
_JSON_COLUMNS = frozenset({"properties"})


@dataclass(frozen=True, slots=True)
class SqlDialect:
    name: Literal["sqlite", "postgres"]
    #: The driver's placeholder for one bound value.
    param: str
    #: The cast a bound JSON text needs to become the column's JSON type ("" when none).
    json_cast: str
    #: The two-argument maximum of scalars.
    greatest: str
    #: What makes text order byte-wise (SQLite's default already is).
    binary_collation: str
    #: The column that orders a table's rows by insertion (``rowid``; PostgreSQL's ``seq``).
    row_order: str

    def params(self, count: int) -> str:
        """``count`` placeholders separated by commas."""
        return ", ".join([self.param] * count)

    def in_values(
        self, column: str, values: Sequence[object], cast: str
    ) -> tuple[str, list[object]]:
        """``column`` is one of ``values``: SQLite binds each value, PostgreSQL one array of
        type ``cast`` (an index on ``column`` serves both)."""
        if self.name == "sqlite":
            return f"{column} IN ({self.params(len(values))})", list(values)
        return f"{column} = ANY({self.param}::{cast}[])", [list(values)]

    def in_list(
        self, column: str, values: Sequence[object], cast: str = "uuid"
    ) -> tuple[str, list[object]]:
        """``column`` is one of ``values``, bound as one parameter however many there are: a
        JSON array read with ``json_each`` (SQLite), an array of type ``cast`` (PostgreSQL)."""
        if self.name == "sqlite":
            items = [v if isinstance(v, str | int | float) else str(v) for v in values]
            return f"{column} IN (SELECT value FROM json_each({self.param}))", [json.dumps(items)]
        return f"{column} = ANY({self.param}::{cast}[])", [list(values)]

    def unnest(self, types: Sequence[str]) -> str:
        """Rows made of one bound array per column, of the given PostgreSQL ``types``: one
        statement writes a whole batch (bind :func:`columns_of` of the rows). The arrays go in
        binary (``%b``): psycopg packs them in C, where text arrays cost more in Python than
        the round trips they save."""
        if self.name != "postgres":
            raise ValueError("array row sources are PostgreSQL's; SQLite binds rows one by one")
        arrays = ", ".join(f"%b::{t}[]" for t in types)
        return f"SELECT * FROM unnest({arrays})"

    def json_param(self) -> str:
        return f"{self.param}{self.json_cast}"

    def json_text(self, column: str, key: str) -> str:
        """The text (or scalar) value of ``column[key]``; ``key`` is a fixed identifier
        written by engramdb, never user input."""
        if self.name == "sqlite":
            return f"json_extract({column}, '$.{key}')"
        return f"({column} ->> '{key}')"

    def array(self, column: str, source: str) -> str:
        """The values of ``column`` over ``source`` (``FROM ... WHERE ...``) as one value: a
        JSON array text in SQLite, an array in PostgreSQL (read with :func:`.sql.values.as_uuids`
        and the like)."""
        if self.name == "sqlite":
            return f"(SELECT json_group_array({column}) {source})"
        return f"ARRAY(SELECT {column} {source})"

    def read_json(self, value: Any, default: Any) -> Any:
        """A JSON column's value: psycopg decodes ``jsonb`` already, SQLite returns the text."""
        if value is None:
            return default
        if self.name == "postgres":
            return value
        return default if value == "" else json.loads(value)

    def upsert(
        self,
        table: str,
        columns: Sequence[str],
        conflict: Sequence[str],
        update: Sequence[str],
        assignments: Sequence[str] = (),
        rows: str | None = None,
    ) -> str:
        """``INSERT INTO table (columns) VALUES (...) ON CONFLICT (conflict) DO UPDATE SET``
        each of ``update`` to the new row's value, plus the raw ``assignments`` (``col = expr``;
        ``DO NOTHING`` when both are empty). ``rows`` replaces ``VALUES (...)`` with another row
        source (e.g. :meth:`unnest`); its rows must not repeat a conflict key."""
        if rows is None:
            params = (self.json_param() if c in _JSON_COLUMNS else self.param for c in columns)
            rows = f"VALUES ({', '.join(params)})"
        head = (
            f"INSERT INTO {table} ({', '.join(columns)}) {rows} "
            f"ON CONFLICT ({', '.join(conflict)}) DO "
        )
        sets = [*(f"{c} = excluded.{c}" for c in update), *assignments]
        if not sets:
            return head + "NOTHING"
        return head + "UPDATE SET " + ", ".join(sets)


SQLITE = SqlDialect("sqlite", "?", "", greatest="max", binary_collation="", row_order="rowid")
POSTGRES = SqlDialect(
    "postgres",
    "%s",
    "::jsonb",
    greatest="greatest",
    binary_collation=' COLLATE "C"',
    row_order="seq",
)


#: The weight rule of an ingested node met again by a later document (importance-weight.md): an
#: entity keeps the weight it was stored with ("improve() never changes the importance_weight
#: you stored"; a document that mentions it again does not either), while the shared EntityType
#: nodes are the documented exception: "each ingest rewrites the one it uses".
_KEEP_ENTITY_WEIGHT = (
    f"importance_weight = CASE WHEN nodes.type = '{NodeType.ENTITY.value}' "
    "THEN nodes.importance_weight ELSE excluded.importance_weight END"
)


@cache
def node_upsert(dialect: SqlDialect, *, derived: bool, batch: bool = False) -> str:
    """Insert a node or update it in place. An existing node keeps its ``feedback_weight`` (and
    ``created_at``); an ingested node keeps its ``type`` (its id is derived from it) and, when it
    is an entity, its ``importance_weight``; a derived one takes the new type and weight.
    ``batch`` (PostgreSQL): many distinct nodes in one statement, bound as column arrays."""
    update = ("name", "text", "properties", "updated_at")
    rows = dialect.unnest(NODE_TYPES) if batch else None
    if derived:
        return dialect.upsert(
            "nodes", NODE_COLUMNS, ("id",), ("type", *update, "importance_weight"), rows=rows
        )
    return dialect.upsert("nodes", NODE_COLUMNS, ("id",), update, (_KEEP_ENTITY_WEIGHT,), rows=rows)


@cache
def edge_upsert(dialect: SqlDialect, *, derived: bool = True, batch: bool = False) -> str:
    """Insert an edge or update its properties (``feedback_weight`` is kept). A derived edge
    takes the new ``importance_weight``; an ingested one met again (a later document stating the
    same relation) keeps the weight it was stored with. ``batch`` as for :func:`node_upsert`."""
    update = ("properties", "importance_weight") if derived else ("properties",)
    rows = dialect.unnest(EDGE_TYPES) if batch else None
    return dialect.upsert("edges", EDGE_COLUMNS, ("id",), update, rows=rows)


def columns_of(rows: Sequence[Sequence[object]], width: int) -> list[list[object]]:
    """``rows`` as ``width`` column lists: the parameters of a :meth:`SqlDialect.unnest`
    source."""
    if not rows:
        return [[] for _ in range(width)]
    return [list(column) for column in zip(*rows, strict=True)]
