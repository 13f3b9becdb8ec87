"""Where compiled Cypher runs: a small backend interface and the SQL dialects of both stores.

The compiler (:mod:`.compiler`) emits parameterised SQL over the store's ``nodes`` and ``edges``
tables; every placeholder, bound value and the few places where SQL dialects differ (JSON
access, list membership, substring search, uuid columns) go through a :class:`Dialect`:
:class:`SqliteDialect` (``?``, ``json_extract``) and :class:`PostgresDialect` (``%s``,
``jsonb`` operators, typed parameters). Running the statement is the store's own
:attr:`~engramdb.storage.capabilities.Capability.CYPHER` capability (``Store.query_sql``): one
read-only snapshot, bounded in time. A store that does not declare it raises
FeatureNotAvailableError; nothing here looks at the store's class.

A statement that runs past its budget is stopped by the store, and surfaces as
:class:`CypherTimeoutError` (a validation error: the query is too expensive, not the store
broken).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engramdb.errors import CypherTimeoutError, FeatureNotAvailableError
from engramdb.retrieval.cypher.errors import DOCS_HINT
from engramdb.storage.capabilities import Capability, StatementTimeoutError

if TYPE_CHECKING:
    from engramdb.storage.base import Store

__all__ = [
    "CypherBackend",
    "CypherTimeoutError",
    "Dialect",
    "Fragment",
    "PostgresDialect",
    "SqliteCypherBackend",
    "SqliteDialect",
    "StoreCypherBackend",
    "backend_for",
]

#: A piece of SQL with placeholders and the values bound to them, in order.
Fragment = tuple[str, list[object]]


class Dialect(ABC):
    """The SQL a backend spells differently. Every method returns a :data:`Fragment`."""

    #: The driver's placeholder for one bound value.
    param: str = "?"

    def literal(self, value: object) -> Fragment:
        """A bound scalar (str, int, float or bool)."""
        return self.param, [value]

    def column(self, alias: str, name: str) -> str:
        """A table column read as a value (PostgreSQL reads uuid columns as text)."""
        return f"{alias}.{name}"

    def in_ids(self, column: str, ids: Sequence[str]) -> Fragment:
        """The uuid ``column`` (``dataset_id``) is one of ``ids``: an indexed filter."""
        return self.in_json_list(column, ids)

    @abstractmethod
    def in_json_list(self, column: str, values: Sequence[object]) -> Fragment:
        """``column`` is one of ``values`` (bound as ONE parameter, however many there are)."""

    @abstractmethod
    def json_value(self, properties: str, key: str) -> Fragment:
        """The SQL value of ``properties[key]`` (NULL when missing) in an expression."""

    def json_number(self, properties: str, key: str) -> Fragment:
        """``properties[key]`` compared with or aggregated as a number."""
        return self.json_value(properties, key)

    def json_bool(self, properties: str, key: str) -> Fragment:
        """``properties[key]`` compared with a boolean."""
        return self.json_value(properties, key)

    def json_output(self, properties: str, key: str) -> Fragment:
        """``properties[key]`` as a result column (decoded with :meth:`json_type`)."""
        return self.json_value(properties, key)

    @abstractmethod
    def json_type(self, properties: str, key: str) -> Fragment:
        """The JSON type name of ``properties[key]`` ('array', 'object', 'true', ...)."""

    @abstractmethod
    def json_members(self, properties: str, key: str) -> Fragment:
        """A subquery yielding the elements of the list ``properties[key]`` (a scalar: itself)."""

    @abstractmethod
    def not_flagged(self, properties: str, key: str) -> Fragment:
        """``properties[key]`` is missing, null, false or 0."""

    @abstractmethod
    def contains(self, haystack: Fragment, needle: Fragment) -> Fragment: ...

    @abstractmethod
    def json_array1(self, value: Fragment) -> Fragment:
        """A one-element JSON array (``labels(n)``)."""


class SqliteDialect(Dialect):
    param = "?"

    def in_json_list(self, column: str, values: Sequence[object]) -> Fragment:
        return f"{column} IN (SELECT value FROM json_each(?))", [json.dumps(list(values))]

    def json_value(self, properties: str, key: str) -> Fragment:
        return f"json_extract({properties}, ?)", [_path(key)]

    def json_type(self, properties: str, key: str) -> Fragment:
        return f"json_type({properties}, ?)", [_path(key)]

    def json_members(self, properties: str, key: str) -> Fragment:
        return f"SELECT value FROM json_each({properties}, ?)", [_path(key)]

    def not_flagged(self, properties: str, key: str) -> Fragment:
        return f"(COALESCE(json_extract({properties}, ?), 0) = 0)", [_path(key)]

    def contains(self, haystack: Fragment, needle: Fragment) -> Fragment:
        return f"(instr({haystack[0]}, {needle[0]}) > 0)", [*haystack[1], *needle[1]]

    def json_array1(self, value: Fragment) -> Fragment:
        return f"json_array({value[0]})", list(value[1])


def _path(key: str) -> str:
    # The compiler rejects keys containing '"', so quoting the key is enough to make any other
    # character (dots, spaces, brackets) a literal part of the name.
    return f'$."{key}"'


#: PostgreSQL casts of bound scalars: psycopg sends a str untyped, and functions such as
#: length() need to know the type.
_PG_CASTS: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "bigint"),
    (float, "double precision"),
    (str, "text"),
)
_PG_UUID_COLUMNS = frozenset({"id", "dataset_id", "source_id", "target_id"})


class PostgresDialect(Dialect):
    """``jsonb`` operators and ``%s`` placeholders. JSON keys are bound parameters too."""

    param = "%s"

    def literal(self, value: object) -> Fragment:
        for kind, cast in _PG_CASTS:
            if isinstance(value, kind):
                return f"%s::{cast}", [value]
        return "%s", [value]

    def column(self, alias: str, name: str) -> str:
        # Cypher compares ids with strings: read uuids as their text (joins use the columns).
        return f"{alias}.{name}::text" if name in _PG_UUID_COLUMNS else f"{alias}.{name}"

    def in_ids(self, column: str, ids: Sequence[str]) -> Fragment:
        return f"{column} = ANY(%s::uuid[])", [list(ids)]

    def in_json_list(self, column: str, values: Sequence[object]) -> Fragment:
        return f"({column})::text = ANY(%s::text[])", [[_pg_text(v) for v in values]]

    def json_value(self, properties: str, key: str) -> Fragment:
        return f"({properties} ->> %s::text)", [key]

    def json_number(self, properties: str, key: str) -> Fragment:
        return (
            f"(CASE WHEN jsonb_typeof({properties} -> %s::text) = 'number' "
            f"THEN ({properties} ->> %s::text)::double precision END)",
            [key, key],
        )

    def json_bool(self, properties: str, key: str) -> Fragment:
        return (
            f"(CASE WHEN jsonb_typeof({properties} -> %s::text) = 'boolean' "
            f"THEN ({properties} ->> %s::text)::boolean END)",
            [key, key],
        )

    def json_output(self, properties: str, key: str) -> Fragment:
        return f"({properties} -> %s::text)", [key]

    def json_type(self, properties: str, key: str) -> Fragment:
        return f"jsonb_typeof({properties} -> %s::text)", [key]

    def json_members(self, properties: str, key: str) -> Fragment:
        value = f"({properties} -> %s::text)"
        return (
            f"SELECT jsonb_array_elements_text(CASE jsonb_typeof({value}) WHEN 'array' "
            f"THEN {value} ELSE jsonb_build_array({value}) END)",
            [key, key, key],
        )

    def not_flagged(self, properties: str, key: str) -> Fragment:
        return (
            f"COALESCE(({properties} -> %s::text) IN ('false'::jsonb, '0'::jsonb, "
            "'null'::jsonb), true)",
            [key],
        )

    def contains(self, haystack: Fragment, needle: Fragment) -> Fragment:
        return f"(strpos({haystack[0]}, {needle[0]}) > 0)", [*haystack[1], *needle[1]]

    def json_array1(self, value: Fragment) -> Fragment:
        return f"jsonb_build_array({value[0]})", list(value[1])


def _pg_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_DIALECTS: dict[str, type[Dialect]] = {"sqlite": SqliteDialect, "postgres": PostgresDialect}


class CypherBackend(ABC):
    """Runs compiled Cypher for one store."""

    dialect: Dialect

    @abstractmethod
    async def fetch(
        self, sql: str, params: Sequence[object], *, timeout: float
    ) -> list[tuple[Any, ...]]:
        """All rows of one read-only statement, in one consistent snapshot; raises
        :class:`CypherTimeoutError` when it runs longer than ``timeout`` seconds."""


class StoreCypherBackend(CypherBackend):
    """Runs on a store that declares :attr:`Capability.CYPHER`, in the store's SQL dialect."""

    def __init__(self, store: Store) -> None:
        self.dialect = _DIALECTS[store.dialect.name]()
        self._store = store

    async def fetch(
        self, sql: str, params: Sequence[object], *, timeout: float
    ) -> list[tuple[Any, ...]]:
        try:
            return await self._store.query_sql(sql, params, timeout=timeout)
        except StatementTimeoutError:
            raise CypherTimeoutError(
                f"the Cypher query ran longer than {timeout:g} s and was stopped; add "
                "labels, a relationship type or a WHERE filter to narrow the pattern, "
                "or raise retriever_specific_config['timeout_seconds']"
            ) from None


#: The name this backend had when only the embedded store ran Cypher.
SqliteCypherBackend = StoreCypherBackend


def backend_for(store: Store) -> CypherBackend:
    """The Cypher backend of ``store``; FeatureNotAvailableError when the store does not declare
    :attr:`Capability.CYPHER`."""
    if not store.supports(Capability.CYPHER):
        raise FeatureNotAvailableError(
            f"CYPHER is not available for the {type(store).__name__} backend; {DOCS_HINT}"
        )
    return StoreCypherBackend(store)
