"""A throwaway PostgreSQL + pgvector for the tests, shared by the whole test session.

:func:`postgres_server` is a session fixture (imported by the conftests that need it). It uses
``ENGRAMDB_TEST_POSTGRES_URL`` when set (a server you run; its role needs CREATEDB and pgvector
must be installed), and otherwise starts a cluster of its own with ``scripts/postgres-for-tests.sh
start`` (initdb into a temporary directory, a free port on 127.0.0.1, run as an unprivileged user
when the tests run as root) and stops it when the session ends. Either way the session works in
a database of its own, created here and dropped at the end, and every test gets a fresh schema
of it (:meth:`PostgresServer.schema_url`): creating a schema and its tables costs tens of
milliseconds, a new server or database far more.

When neither a URL nor the server binaries with pgvector are available, tests that need the
server are skipped with the reason and the command that fixes it — unless
``ENGRAMDB_REQUIRE_POSTGRES=1`` (CI sets it), which turns the skip into a failure.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "postgres-for-tests.sh"
_INSTALL_HINT = (
    "install PostgreSQL with pgvector (sudo scripts/postgres-for-tests.sh install) or point "
    "ENGRAMDB_TEST_POSTGRES_URL at a server with pgvector"
)


@dataclass
class PostgresServer:
    """The session's database on the test server."""

    #: ``postgresql://`` URL of the session's database.
    url: str
    _cleanups: list[Callable[[], None]] = field(default_factory=list)

    def schema_url(self, key: str) -> str:
        """A URL on a schema named after ``key`` (the same key: the same schema)."""
        digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
        return with_query(self.url, schema=f"t_{digest}")

    def fresh_url(self) -> str:
        """A URL on a new, unused schema."""
        return self.schema_url(uuid.uuid4().hex)

    def stop(self) -> None:
        while self._cleanups:
            self._cleanups.pop()()


def with_query(url: str, **params: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in params]
    return urlunsplit(parts._replace(query=urlencode([*query, *params.items()])))


def _with_database(url: str, dbname: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{dbname}"))


def _run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=180, check=False
    )


def _start_cluster(cleanups: list[Callable[[], None]]) -> str:
    """Start a throwaway cluster; returns its URL (raises _Unavailable when it cannot)."""
    check = _run_script("check")
    if check.returncode != 0:
        reason = check.stderr.strip().removeprefix("[postgres-for-tests] ") or _INSTALL_HINT
        raise _Unavailable(f"{reason}; or set ENGRAMDB_TEST_POSTGRES_URL to a server with pgvector")
    # Not under pytest's tmp dir: that is private to the user running pytest, and under root
    # the server runs as another user, who must be able to reach its data directory.
    directory = tempfile.mkdtemp(
        prefix="engramdb-pg.", dir="/tmp" if os.path.isdir("/tmp") else None
    )
    started = _run_script("start", directory)
    if started.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        raise RuntimeError(f"could not start a test PostgreSQL server: {started.stderr.strip()}")

    def stop() -> None:
        _run_script("stop", directory)

    cleanups.append(stop)
    return started.stdout.strip().splitlines()[-1]


def _create_database(base_url: str, cleanups: list[Callable[[], None]]) -> str:
    import psycopg
    from psycopg import sql

    name = f"engramdb_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base_url, autocommit=True, connect_timeout=15) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def drop() -> None:
        with psycopg.connect(base_url, autocommit=True, connect_timeout=15) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    cleanups.append(drop)
    url = _with_database(base_url, name)
    with psycopg.connect(url, autocommit=True, connect_timeout=15) as conn:
        # Once here, so the per-test setups find it instead of racing to create it.
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    return url


class _Unavailable(Exception):
    """No server to test against (a skip, or a failure when PostgreSQL is required)."""


_session: dict[str, PostgresServer | BaseException] = {}


def _open(config: pytest.Config) -> PostgresServer:
    cleanups: list[Callable[[], None]] = []
    try:
        base = os.environ.get("ENGRAMDB_TEST_POSTGRES_URL") or _start_cluster(cleanups)
        server = PostgresServer(url=_create_database(base, cleanups), _cleanups=cleanups)
    except BaseException:
        for cleanup in reversed(cleanups):
            cleanup()
        raise
    config.add_cleanup(server.stop)
    return server


@pytest.fixture(scope="session")
def postgres_server(request: pytest.FixtureRequest) -> PostgresServer:
    """The session's PostgreSQL database (started once, whichever conftest asks first)."""
    if "server" not in _session:
        try:
            _session["server"] = _open(request.config)
        except _Unavailable as exc:
            _session["server"] = exc
        except Exception as exc:  # a broken server is a failure, not a skip
            _session["server"] = RuntimeError(f"test PostgreSQL unusable: {exc}")
    found = _session["server"]
    if isinstance(found, PostgresServer):
        return found
    if isinstance(found, _Unavailable) and os.environ.get("ENGRAMDB_REQUIRE_POSTGRES") != "1":
        pytest.skip(f"no PostgreSQL with pgvector: {found}")
    pytest.fail(f"PostgreSQL is required (ENGRAMDB_REQUIRE_POSTGRES=1) but unusable: {found}")
