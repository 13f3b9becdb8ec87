"""Issue 14 item 8 on PostgreSQL: a server that accepts no writes (a standby, or
``default_transaction_read_only``) is a clear StorageReadOnlyError (503); reads keep working."""

from __future__ import annotations

import pytest

import engramdb
from engramdb.errors import StorageReadOnlyError
from tests.postgres.server import PostgresServer, with_query

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


async def test_a_read_only_server_refuses_writes_and_keeps_reading(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.fresh_url()
    async with engramdb.Engine(storage_url=url) as mem:
        await mem.remember("Owls hunt at night.", self_improvement=False)
    read_only = with_query(url, options="-cdefault_transaction_read_only=on")
    async with engramdb.Engine(storage_url=read_only) as mem:
        found = await mem.recall("owls", engramdb.SearchType.CHUNKS)
        assert [r.text for r in found] == ["Owls hunt at night."]
        with pytest.raises(StorageReadOnlyError, match="ENGRAMDB_STORAGE_URL") as caught:
            await mem.remember("Bats fly at dusk.", self_improvement=False)
    assert caught.value.status_code == 503


async def test_a_postgresql_store_is_backed_up_with_pg_dump(
    postgres_server: PostgresServer, tmp_path: object
) -> None:
    """Issue 14 item 7: PostgreSQL backs up with its own tools; engramdb says which."""
    from pathlib import Path

    async with engramdb.Engine(storage_url=postgres_server.fresh_url()) as mem:
        await mem.remember("Owls hunt.", self_improvement=False)
        with pytest.raises(engramdb.FeatureNotAvailableError, match="pg_dump"):
            await mem.store.backup(Path(str(tmp_path)) / "unused.dump")
