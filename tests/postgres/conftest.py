"""Fixtures of the PostgreSQL tests: the session's test server and, for tests that drive the
public API, an engine whose store is a fresh schema on it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engramdb.engine import get_engine, set_engine
from engramdb.settings import config
from tests.postgres import server
from tests.postgres.server import PostgresServer

postgres_server = server.postgres_server  # the session fixture, visible to this directory


@pytest.fixture
async def postgres_storage(
    isolated_config: Path, monkeypatch: pytest.MonkeyPatch, postgres_server: PostgresServer
) -> AsyncIterator[str]:
    """ENGRAMDB_STORAGE_URL on a fresh schema: the public API (and any subprocess started with
    this environment) runs on PostgreSQL. Closes the engine's pool afterwards."""
    url = postgres_server.fresh_url()
    monkeypatch.setenv("ENGRAMDB_STORAGE_URL", url)
    config.reset()
    set_engine(None)
    yield url
    await get_engine().close()
