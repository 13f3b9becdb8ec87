"""Numbered schema migrations: the ``Migration`` record and the bookkeeping both backends share.

Each backend lists its migrations (``sqlite/schema.py``, ``postgres/schema.py``) and applies the
pending ones inside ONE transaction that first takes the database's write or advisory lock, so
concurrent ``setup`` calls apply each migration once. What is pending, how an applied version is
recorded and when a database's version may be used are decided here. Append new migrations;
never edit a released one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import LiteralString

from engramdb.errors import DatabaseNotCreatedError, StorageError
from engramdb.storage.dialect import SqlDialect

__all__ = ["Migration", "check_version", "latest_version", "pending", "record_sql"]


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    statements: tuple[LiteralString, ...]


def latest_version(migrations: Sequence[Migration]) -> int:
    return migrations[-1].version


def pending(migrations: Sequence[Migration], applied: Iterable[int]) -> list[Migration]:
    """The migrations not applied yet, in version order (versions must increase)."""
    versions = [m.version for m in migrations]
    if versions != sorted(set(versions)):
        raise StorageError(f"Migration versions must increase strictly, got {versions}.")
    done = set(applied)
    return [m for m in migrations if m.version not in done]


def record_sql(dialect: SqlDialect) -> str:
    """The statement that records one applied migration: (version, name, applied_at)."""
    return f"INSERT INTO schema_migrations (version, name, applied_at) VALUES ({dialect.params(3)})"


def check_version(found: int | None, latest: int, where: str) -> None:
    """Refuse a database this release cannot use: DatabaseNotCreatedError when it has no schema
    or an older one (run ``setup()``), StorageError when a newer engramdb created it."""
    if found is None or found < latest:
        raise DatabaseNotCreatedError(
            f"The database at {where} is not set up for engramdb (or needs migrations); "
            "run setup() first."
        )
    if found > latest:
        raise StorageError(
            f"The database at {where} was set up by a newer engramdb "
            f"(schema version {found} > {latest}); upgrade engramdb."
        )
