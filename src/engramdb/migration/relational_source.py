"""A relational database to read into the graph (cognee's "migration database"): where it is,
what its tables hold, and their rows.

The source is named by the ``MIGRATION_DB_*`` settings (the reference's variables):
``MIGRATION_DB_PROVIDER`` ``sqlite`` (the file ``MIGRATION_DB_PATH``/``MIGRATION_DB_NAME``,
opened read-only) or ``postgres`` (``MIGRATION_DB_HOST``, ``_PORT``, ``_NAME``, ``_USERNAME``,
``_PASSWORD``; needs the ``postgres`` extra's psycopg). It is read with SQLAlchemy (the
``relational`` extra) and never written.

:meth:`RelationalSource.extract_schema` answers in cognee's shape, one entry per table::

    {"Customer": {"columns": [{"name": "CustomerId", "type": "INTEGER"}, ...],
                  "primary_key": "CustomerId",
                  "foreign_keys": [{"column": "SupportRepId", "ref_table": "Employee",
                                    "ref_column": "EmployeeId"}]}}

``primary_key`` is the first primary-key column (None without one); ``primary_keys`` lists all
of them (a composite key). PostgreSQL tables outside the ``public`` schema are named
``schema.table``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engramdb.errors import ConfigurationError, FeatureNotAvailableError, StorageError
from engramdb.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["PROVIDERS", "RelationalSource", "TableSchema"]

#: The providers a source can be.
PROVIDERS = ("sqlite", "postgres")
_INSTALL = "pip install 'engramdb[relational]'"

TableSchema = dict[str, Any]


def _sqlalchemy() -> Any:
    try:
        import sqlalchemy
    except ImportError:
        raise FeatureNotAvailableError(
            f"reading a relational database needs SQLAlchemy, which is not installed: {_INSTALL}"
        ) from None
    return sqlalchemy


class RelationalSource:
    """One relational database, read-only. Build it with :meth:`from_settings`."""

    def __init__(self, url: Any, provider: str, label: str) -> None:
        self.provider = provider
        #: Where it is, without a password (for messages and logs).
        self.label = label
        self._url = url
        self._engine: Engine | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> RelationalSource:
        """The source the ``MIGRATION_DB_*`` settings name; ConfigurationError when they name
        none, or an unknown provider, or a SQLite file that does not exist."""
        sa = _sqlalchemy()
        provider = (settings.migration_db_provider or "").strip().lower()
        if provider in ("postgresql", "pgvector"):
            provider = "postgres"
        if provider not in PROVIDERS:
            raise ConfigurationError(
                f"MIGRATION_DB_PROVIDER must be one of {', '.join(PROVIDERS)} to read a "
                f"relational database (got {settings.migration_db_provider!r}); set it with "
                "the MIGRATION_DB_* variables or get_migration_config()"
            )
        if not settings.migration_db_name:
            raise ConfigurationError(
                "MIGRATION_DB_NAME is not set: name the database to read (for SQLite, the file "
                "name inside MIGRATION_DB_PATH)"
            )
        if provider == "sqlite":
            path = Path(settings.migration_db_path or ".") / settings.migration_db_name
            if not path.is_file():
                raise ConfigurationError(
                    f"MIGRATION_DB_PATH / MIGRATION_DB_NAME: there is no SQLite database at "
                    f"{path}; point them at an existing file"
                )
            url = sa.URL.create(
                "sqlite",
                database=f"file:{path.resolve()}",
                query={"mode": "ro", "uri": "true"},
            )
            return cls(url, provider, str(path))
        try:
            import psycopg  # noqa: F401 - the driver SQLAlchemy's postgresql+psycopg uses
        except ImportError:
            raise FeatureNotAvailableError(
                "reading a PostgreSQL database needs psycopg: pip install 'engramdb[postgres]'"
            ) from None
        url = sa.URL.create(
            "postgresql+psycopg",
            username=settings.migration_db_username,
            password=settings.migration_db_password,
            host=settings.migration_db_host or "localhost",
            port=int(settings.migration_db_port) if settings.migration_db_port else None,
            database=settings.migration_db_name,
        )
        return cls(url, provider, url.render_as_string(hide_password=True))

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (synchronous; created on first use)."""
        if self._engine is None:
            sa = _sqlalchemy()
            self._engine = sa.create_engine(self._url)
        return self._engine

    async def extract_schema(self) -> dict[str, TableSchema]:
        """Every table with its columns, primary key and foreign keys (module docstring)."""
        return await asyncio.to_thread(self._schema)

    async def get_table_names(self) -> list[str]:
        """The names of the tables (``schema.table`` outside PostgreSQL's ``public``)."""
        return list(await self.extract_schema())

    async def rows(self, table: str, columns: Sequence[str]) -> list[dict[str, Any]]:
        """Every row of ``table`` (a name :meth:`extract_schema` gave), as column -> value."""
        return await asyncio.to_thread(self._rows, table, list(columns))

    def dispose(self) -> None:
        """Close the connections."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    # --- blocking work, run in a thread ---------------------------------------------------------

    def _schema(self) -> dict[str, TableSchema]:
        sa = _sqlalchemy()
        try:
            inspector = sa.inspect(self.engine)
            schemas: list[str | None] = (
                [None]
                if self.provider == "sqlite"
                else [s for s in inspector.get_schema_names() if not _system_schema(s)]
            )
            found: dict[str, TableSchema] = {}
            for schema in schemas:
                for table in inspector.get_table_names(schema=schema):
                    key = table if schema in (None, "public") else f"{schema}.{table}"
                    found[key] = _table(inspector, table, schema)
            return found
        except sa.exc.SQLAlchemyError as exc:
            raise StorageError(f"could not read the schema of {self.label}: {exc}") from exc

    def _rows(self, table: str, columns: list[str]) -> list[dict[str, Any]]:
        sa = _sqlalchemy()
        schema, _, name = table.rpartition(".")
        target = sa.table(name, *(sa.column(c) for c in columns), schema=schema or None)
        try:
            with self.engine.connect() as conn:
                result = conn.execute(sa.select(*target.columns))
                return [dict(zip(columns, row, strict=True)) for row in result]
        except sa.exc.SQLAlchemyError as exc:
            raise StorageError(f"could not read table {table!r} of {self.label}: {exc}") from exc


def _system_schema(name: str) -> bool:
    return name == "information_schema" or name.startswith("pg_")


def _table(inspector: Any, table: str, schema: str | None) -> TableSchema:
    columns = [
        {"name": c["name"], "type": str(c["type"])}
        for c in inspector.get_columns(table, schema=schema)
    ]
    keys = list(inspector.get_pk_constraint(table, schema=schema).get("constrained_columns") or [])
    foreign = []
    for fk in inspector.get_foreign_keys(table, schema=schema):
        ref_schema = fk.get("referred_schema")
        ref_table = fk["referred_table"]
        if ref_schema and ref_schema != "public" and schema is not None:
            ref_table = f"{ref_schema}.{ref_table}"
        for column, ref_column in zip(
            fk["constrained_columns"], fk["referred_columns"], strict=False
        ):
            foreign.append({"column": column, "ref_table": ref_table, "ref_column": ref_column})
    return {
        "columns": columns,
        "primary_key": keys[0] if keys else None,
        "primary_keys": keys,
        "foreign_keys": foreign,
    }
