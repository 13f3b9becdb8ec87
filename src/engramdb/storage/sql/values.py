"""Reading values back from either backend's rows.

psycopg returns ``UUID``, aware ``datetime`` and decoded ``jsonb``; sqlite3 returns the text
and integers the SQLite store writes (times as fixed-width ISO-8601 UTC). Each reader accepts
both, so one row converter serves both backends.
"""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from engramdb.errors import EngramValidationError

__all__ = ["as_json", "as_time", "as_uuid", "as_uuids", "encode_json", "maybe_time"]


def as_uuid(value: Any) -> UUID:
    if isinstance(value, UUID):
        return value
    return _parse_uuid(value) if isinstance(value, str) else UUID(str(value))


@functools.lru_cache(maxsize=1 << 14)
def _parse_uuid(text: str) -> UUID:
    """``UUID(text)``, memoised: a graph read decodes the same few ids over and over (every
    row's dataset id, a chunk's id on each of its ``contains`` edges), and parsing one costs
    ten times a cache hit. UUIDs are immutable, so sharing one object is safe."""
    return UUID(text)


def as_time(value: Any) -> datetime:
    """An aware UTC datetime (naive values are taken to be UTC)."""
    parsed = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def maybe_time(value: Any) -> datetime | None:
    return None if value is None else as_time(value)


def as_json(value: Any, default: Any) -> Any:
    """A JSON object or array column's value: decoded already (``jsonb``) or JSON text
    (SQLite). Not for columns that may hold a JSON string scalar."""
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        return value
    # the empty object and array are most rows' properties and bare provenance
    if value == "{}":
        return {}
    return [] if value == "[]" else json.loads(value)


def as_uuids(value: Any) -> list[UUID]:
    """An array of ids: a PostgreSQL array, or JSON array text (SQLite)."""
    items = as_json(value, [])
    return [as_uuid(item) for item in items]


def _json_default(value: object) -> object:
    if isinstance(value, datetime):
        return as_time(value).isoformat(timespec="microseconds")
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def encode_json(value: object, *, finite: bool) -> str:
    """JSON text of a value records carry: datetimes (ISO-8601 UTC), UUIDs and sets are
    accepted, anything else is refused instead of silently stringified; ``finite`` refuses NaN
    and infinities too (PostgreSQL's ``jsonb`` cannot hold them)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_default, allow_nan=not finite)
    except (TypeError, ValueError) as exc:
        numbers = " (and finite numbers)" if finite else ""
        raise EngramValidationError(
            f"A value cannot be stored as JSON ({exc}); use JSON types{numbers} in "
            "metadata/properties."
        ) from exc
