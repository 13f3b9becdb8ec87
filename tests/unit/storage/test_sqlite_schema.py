"""SQLite specifics: migrations, pragmas, not-set-up files, query plans, integrity, errors."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path
from uuid import uuid4

import numpy as np
import pytest

from engramdb.errors import (
    DatabaseNotCreatedError,
    DatasetNotFoundError,
    EmbeddingMismatchError,
    StorageError,
)
from engramdb.models.records import Dataset
from engramdb.storage.sqlite import SqliteStore
from engramdb.storage.sqlite.graph import fts_query, neighbourhood_sql
from engramdb.storage.sqlite.schema import MIGRATIONS

from .conftest import DocBuilder


def _raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


async def test_migrations_are_applied_once(store: SqliteStore, db_path: Path) -> None:
    await store.setup()
    again = SqliteStore(db_path)
    await again.setup()
    await again.close()
    with _raw(db_path) as conn:
        versions = [row[0] for row in conn.execute("SELECT version FROM schema_migrations")]
        assert versions == [m.version for m in MIGRATIONS]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_using_a_store_before_setup_fails_clearly(db_path: Path) -> None:
    store = SqliteStore(db_path)
    with pytest.raises(DatabaseNotCreatedError):
        await store.get_default_user()
    with pytest.raises(DatabaseNotCreatedError):
        await store.get_or_create_default_user()
    assert not db_path.exists() and not db_path.parent.exists()
    await store.close()


async def test_a_foreign_sqlite_file_is_not_a_store(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    with _raw(db_path) as conn:
        conn.execute("CREATE TABLE something (x)")
    store = SqliteStore(db_path)
    assert await store.exists() is False
    with pytest.raises(DatabaseNotCreatedError):
        await store.list_datasets()
    await store.setup()
    assert await store.list_datasets() == []
    await store.close()


def test_neighbourhood_walk_uses_both_edge_indexes(db_path: Path) -> None:
    asyncio.run(SqliteStore(db_path).setup())
    with _raw(db_path) as conn:
        plan = " | ".join(
            str(row[3])
            for row in conn.execute("EXPLAIN QUERY PLAN " + neighbourhood_sql(), ("[]", 1, 1, 9, 9))
        )
    assert "INDEX edges_by_source_target (source_id=?)" in plan
    assert "INDEX edges_by_target_relation (target_id=?)" in plan
    assert "SCAN e" not in plan


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello world", '"hello" OR "world"'),
        ('say "hi" NEAR(x', '"say" OR "hi" OR "near" OR "x"'),
        ("x:y -z*", '"x" OR "y" OR "z"'),
        ("Héllo HELLO héllo", '"héllo" OR "hello"'),
        ("what is the capital of France", '"capital" OR "france"'),
        ("the", '"the"'),
        ("__ !!", None),
        ("", None),
    ],
)
def test_fts_query_quotes_every_word(text: str, expected: str | None) -> None:
    assert fts_query(text) == expected


async def test_integrity_reports_broken_rows(
    store: SqliteStore, dataset: Dataset, db_path: Path, chunk_doc: DocBuilder
) -> None:
    doc, ids = chunk_doc(dataset.id, np.eye(8, dtype=np.float32)[:2])
    await store.write_document(doc)
    assert (await store.check_integrity()).ok
    with _raw(db_path) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DELETE FROM data WHERE id = ?", (str(doc.data.id),))
        conn.execute("DELETE FROM nodes WHERE id = ?", (str(ids[1]),))
    report = await store.check_integrity()
    text = "\n".join(report.violations)
    assert not report.ok
    assert "chunk node without an existing data record" in text
    assert "provenance pointing at a missing data record" in text
    assert "vector without its node" in text and str(ids[1]) in text
    assert "full-text row without its node" in text


async def test_unknown_dataset_embedding_is_not_found(store: SqliteStore) -> None:
    with pytest.raises(DatasetNotFoundError):
        await store.set_dataset_embedding(uuid4(), "m", 8)


async def test_vector_dimension_mismatch(
    store: SqliteStore, dataset: Dataset, chunk_doc: DocBuilder
) -> None:
    first, _ = chunk_doc(dataset.id, np.eye(8, dtype=np.float32)[:2])
    await store.write_document(first)
    wrong, wrong_ids = chunk_doc(dataset.id, np.eye(4, dtype=np.float32)[:2])
    with pytest.raises(EmbeddingMismatchError):
        await store.write_document(wrong)
    assert await store.get_nodes(wrong_ids) == []
    with pytest.raises(EmbeddingMismatchError):
        await store.vector_search("chunks", np.ones(4, dtype=np.float32), [dataset.id], 3)


async def test_a_competing_writer_makes_writes_wait_not_fail(
    store: SqliteStore, dataset: Dataset, db_path: Path, chunk_doc: DocBuilder
) -> None:
    holding = threading.Event()

    def hold_write_lock() -> None:
        with _raw(db_path) as conn:
            conn.execute("BEGIN IMMEDIATE")
            holding.set()
            time.sleep(0.4)
            conn.execute("COMMIT")

    blocker = threading.Thread(target=hold_write_lock)
    blocker.start()
    holding.wait(5)
    doc, _ = chunk_doc(dataset.id, np.eye(8, dtype=np.float32)[:1])
    started = time.monotonic()
    assert await store.write_document(doc) is True
    assert time.monotonic() - started >= 0.2
    blocker.join()


async def test_exists_reads_a_closed_database_without_changing_it(db_path: Path) -> None:
    first = SqliteStore(db_path)
    await first.setup()
    await first.get_or_create_default_user()
    await first.close()
    before = db_path.stat().st_mtime_ns
    second = SqliteStore(db_path)
    assert await second.exists() is True
    await second.close()
    assert db_path.stat().st_mtime_ns == before


async def test_a_closed_store_refuses_work(store: SqliteStore) -> None:
    await store.close()
    with pytest.raises(StorageError):
        await store.list_datasets()
