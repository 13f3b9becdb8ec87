"""The blocking API on PostgreSQL: an engine's pool lives on the engine's own loop thread, so
threads and a running loop elsewhere share it safely (issue 15, item 5)."""

from __future__ import annotations

import asyncio
import threading

import pytest

import engramdb
from tests.postgres.server import PostgresServer

pytestmark = pytest.mark.postgres


def test_threads_and_a_running_loop_share_a_sync_engine(postgres_server: PostgresServer) -> None:
    errors: list[BaseException] = []
    with engramdb.Engine(storage_url=postgres_server.fresh_url()).sync() as mem:

        def work(i: int) -> None:
            try:
                mem.remember(f"Bird number {i} sings at dawn.", self_improvement=False)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors

        async def main() -> list[str]:
            found = await asyncio.to_thread(mem.recall, "Bird number 1", engramdb.SearchType.CHUNKS)
            return [r.text for r in found]

        assert "Bird number 1 sings at dawn." in asyncio.run(main())
        (dataset,) = mem.list_datasets()
        assert len(mem.datasets.list_data(dataset.id)) == 3
