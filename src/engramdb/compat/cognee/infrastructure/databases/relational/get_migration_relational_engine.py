"""``cognee.infrastructure.databases.relational.get_migration_relational_engine``."""

from __future__ import annotations

from engramdb.migration.relational_source import RelationalSource
from engramdb.settings import config

__all__ = ["get_migration_relational_engine"]


def get_migration_relational_engine() -> RelationalSource:
    """The relational database the ``MIGRATION_DB_*`` settings (``get_migration_config()``)
    name, read-only: ``await engine.extract_schema()`` gives its tables in cognee's shape.
    Its ``engine`` is a synchronous SQLAlchemy engine (cognee's is asynchronous).

    Raises ConfigurationError when the settings name no readable database (an unknown
    provider, no name, a SQLite file that does not exist) and FeatureNotAvailableError without
    SQLAlchemy (``pip install 'engramdb[relational]'``)."""
    return RelationalSource.from_settings(config.settings)
