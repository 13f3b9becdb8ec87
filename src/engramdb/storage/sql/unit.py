"""Units of work that run unchanged on both backends (see the package docstring).

A unit is ``Generator[Sql, Any, T]``: it yields each statement and is sent its result (all
rows, one row or ``None``, or the row count, as the statement asks), and returns ``T``. Units
are written with the helpers below::

    def get_key(d: SqlDialect, key_id: UUID) -> Unit[ApiKeyInfo | None]:
        found = yield from one(f"SELECT ... WHERE id = {d.param}", key_id)
        return None if found is None else key_from_row(found)

A unit may be run more than once (a transaction retried after a busy/serialization failure),
so the store hands the backend a factory of units, never a started one.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, TypeVar

__all__ = ["Row", "Sql", "Unit", "UnitFactory", "all_rows", "count", "execute", "one"]

T = TypeVar("T")

#: One result row: a tuple (psycopg) or a ``sqlite3.Row``; read it by position.
Row: TypeAlias = Sequence[Any]


@dataclass(frozen=True, slots=True)
class Sql:
    """One statement, its parameters (Python values) and which result the unit wants back."""

    text: str
    params: Sequence[object] = ()
    result: Literal["rows", "row", "count"] = "rows"


Unit: TypeAlias = Generator[Sql, Any, T]
UnitFactory: TypeAlias = Callable[[], Unit[T]]


def all_rows(text: str, *params: object) -> Generator[Sql, Any, list[Row]]:
    """Every row of the statement."""
    found: list[Row] = yield Sql(text, params, "rows")
    return found


def one(text: str, *params: object) -> Generator[Sql, Any, Row | None]:
    """The first row of the statement, or ``None``."""
    found: Row | None = yield Sql(text, params, "row")
    return found


def count(text: str, *params: object) -> Generator[Sql, Any, int]:
    """Run the statement; how many rows it changed."""
    changed: int = yield Sql(text, params, "count")
    return changed


execute = count
