"""Issue 14 items 6 and 8: a damaged database, a full disk and a read-only data directory are
clear errors that name the data-directory setting (never the absolute path) and change nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import engramdb
from engramdb.errors import DatabaseDamagedError, StorageFullError, StorageReadOnlyError
from engramdb.server.app import create_app

DB = "engramdb.sqlite3"


async def _store_one(data_dir: Path) -> None:
    async with engramdb.Engine(data_dir=data_dir) as mem:
        await mem.remember("Owls hunt at night.", self_improvement=False)


async def test_a_file_that_is_not_a_database_is_named_as_damaged(tmp_path: Path) -> None:
    await _store_one(tmp_path)
    damaged = b"this is not an sqlite database " * 200
    (tmp_path / DB).write_bytes(damaged)
    async with engramdb.Engine(data_dir=tmp_path) as mem:
        with pytest.raises(DatabaseDamagedError, match="ENGRAMDB_DATA_DIR") as caught:
            await mem.list_datasets()
        with pytest.raises(DatabaseDamagedError):
            await mem.remember("Bats fly at dusk.")
    assert str(tmp_path) not in str(caught.value)
    assert (tmp_path / DB).read_bytes() == damaged  # nothing overwritten


async def test_the_server_answers_503_for_a_damaged_database_not_401(tmp_path: Path) -> None:
    async with engramdb.Engine(data_dir=tmp_path) as mem:
        user = await mem.create_user("ada@example.com")
        _, key = await mem.create_api_key(user.id)
    (tmp_path / DB).write_bytes(b"garbage" * 1000)
    with TestClient(create_app(engramdb.Engine(data_dir=tmp_path))) as client:
        answer = client.get("/api/v1/datasets", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 503
    assert answer.json()["code"] == "database_damaged"
    assert str(tmp_path) not in answer.text


async def test_a_read_only_store_refuses_writes_and_keeps_reading(tmp_path: Path) -> None:
    """``PRAGMA query_only`` makes SQLite answer exactly as for a read-only file (which root,
    who runs CI, could still write)."""
    await _store_one(tmp_path)
    async with engramdb.Engine(data_dir=tmp_path) as mem:
        mem.store._db._get_writer().execute("PRAGMA query_only = ON")  # type: ignore[attr-defined]
        with pytest.raises(StorageReadOnlyError, match="ENGRAMDB_DATA_DIR") as caught:
            await mem.remember("Bats fly at dusk.", self_improvement=False)
        assert caught.value.status_code == 503
        found = await mem.recall("owls", engramdb.SearchType.CHUNKS)
        assert [r.text for r in found] == ["Owls hunt at night."]


async def test_a_full_disk_is_insufficient_storage_and_writes_nothing(tmp_path: Path) -> None:
    """SQLite's max_page_count makes the database "full" exactly as a full disk does."""
    await _store_one(tmp_path)
    async with engramdb.Engine(data_dir=tmp_path) as mem:
        writer = mem.store._db._get_writer()  # type: ignore[attr-defined]
        pages = writer.execute("PRAGMA page_count").fetchone()[0]
        writer.execute(f"PRAGMA max_page_count = {pages + 2}")
        big = " ".join(
            f"Sentence {i} about owls and forests and the night sky." for i in range(4000)
        )
        with pytest.raises(StorageFullError, match="ENGRAMDB_DATA_DIR") as caught:
            await mem.remember(big, "big", self_improvement=False)
        assert caught.value.status_code == 507
        assert str(tmp_path) not in str(caught.value)
        found = await mem.recall("owls", engramdb.SearchType.CHUNKS, datasets=["main_dataset"])
        assert [r.text for r in found] == ["Owls hunt at night."]
    check = sqlite3.connect(tmp_path / DB)
    assert check.execute("SELECT count(*) FROM data").fetchone()[0] == 1
    check.close()
