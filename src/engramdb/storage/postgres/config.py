"""Storage URLs of the PostgreSQL store.

``postgresql://user:password@host:5432/dbname?schema=engram&pool_max_size=10`` — everything libpq
understands (``sslmode``, ``connect_timeout``, ``application_name``, ...) passes through to
libpq; two query parameters are engramdb's own and are taken out before libpq sees the URL:

* ``schema`` — the PostgreSQL schema that holds engramdb's tables (default ``public``), so
  several engramdb stores can share one database;
* ``pool_max_size`` — connections the store's pool may open per event loop (default 10).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from engramdb.errors import ConfigurationError

__all__ = ["DEFAULT_POOL_MAX_SIZE", "PostgresTarget", "is_postgres_url", "parse_url"]

DEFAULT_POOL_MAX_SIZE = 10
_SCHEMES = ("postgresql", "postgres")
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_EXAMPLE = "postgresql://user:password@host:5432/dbname"


def is_postgres_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in _SCHEMES and "://" in url


@dataclass(frozen=True, slots=True)
class PostgresTarget:
    """A parsed storage URL."""

    #: The URL as given (what ``Store.url`` reports).
    url: str
    #: The URL without engramdb's own parameters: what libpq connects to.
    conninfo: str
    schema: str
    pool_max_size: int
    #: The URL with its password masked, for messages and logs.
    display: str
    #: The database named in the URL (None: libpq's default, the user name).
    dbname: str | None


def _mask(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def parse_url(url: str) -> PostgresTarget:
    """Parse and check a ``postgresql://`` storage URL; ConfigurationError names the fix."""
    if not is_postgres_url(url):
        raise ConfigurationError(
            f"ENGRAMDB_STORAGE_URL {_mask(url)!r} is not a PostgreSQL URL; use {_EXAMPLE}"
        )
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError as exc:
        raise ConfigurationError(
            f"ENGRAMDB_STORAGE_URL {_mask(url)!r} cannot be parsed ({exc}); use {_EXAMPLE}"
        ) from exc
    own = {key: value for key, value in query if key in ("schema", "pool_max_size")}
    passed = [(key, value) for key, value in query if key not in own]
    schema = own.get("schema", "public")
    if not _IDENTIFIER.match(schema):
        raise ConfigurationError(
            f"schema={schema!r} in ENGRAMDB_STORAGE_URL is not a plain lower-case SQL "
            "identifier; use letters, digits and underscores (at most 63), e.g. ?schema=engramdb"
        )
    try:
        pool_max_size = int(own.get("pool_max_size", DEFAULT_POOL_MAX_SIZE))
    except ValueError:
        pool_max_size = 0
    if pool_max_size < 1:
        raise ConfigurationError(
            f"pool_max_size={own.get('pool_max_size')!r} in ENGRAMDB_STORAGE_URL must be a "
            "positive integer"
        )
    conninfo = urlunsplit(parts._replace(query=urlencode(passed)))
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
    except ImportError as exc:
        raise ConfigurationError(
            "the PostgreSQL backend needs psycopg; install it with pip install 'engramdb[postgres]'"
        ) from exc
    try:
        params = conninfo_to_dict(conninfo)
    except psycopg.Error as exc:  # libpq rejected the URL
        raise ConfigurationError(
            f"ENGRAMDB_STORAGE_URL {_mask(url)!r} is not a valid PostgreSQL URL ({exc}); "
            f"use {_EXAMPLE}"
        ) from exc
    dbname = params.get("dbname")
    return PostgresTarget(
        url=url,
        conninfo=conninfo,
        schema=schema,
        pool_max_size=pool_max_size,
        display=_mask(url),
        dbname=str(dbname) if dbname else None,
    )
