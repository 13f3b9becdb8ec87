"""What only the PostgreSQL backend has: storage URLs, database and extension setup, the HNSW
path of vector search, BM25 agreeing with the embedded store, advisory locks of dead processes,
and a client killed while its document transaction is open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from uuid import UUID

import numpy as np
import psycopg
import pytest

from engramdb.errors import (
    ConfigurationError,
    EngramValidationError,
    LockTimeoutError,
    StorageError,
)
from engramdb.storage.base import Store
from engramdb.storage.postgres import PostgresStore
from engramdb.storage.postgres.config import parse_url
from engramdb.storage.postgres.vectors import index_name
from engramdb.storage.sqlite import SqliteStore
from tests.conformance._helpers import brute_force, make_doc, unit_rows
from tests.postgres.server import PostgresServer
from tests.support.ingest_worker import document

ROOT = Path(__file__).resolve().parents[2]


# --- URLs (no server needed) -----------------------------------------------------------------


def test_url_keeps_libpq_parameters_and_takes_engramdb_ones() -> None:
    target = parse_url(
        "postgresql://me:s3cret@db.example:5433/mem?sslmode=disable&schema=engram&pool_max_size=4"
    )
    assert (target.schema, target.pool_max_size, target.dbname) == ("engram", 4, "mem")
    assert "schema" not in target.conninfo and "sslmode=disable" in target.conninfo
    assert "s3cret" not in target.display and "***" in target.display


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("mysql://x@y/z", "not a PostgreSQL URL"),
        ("postgresql://h/db?schema=Bad-Name", "schema='Bad-Name'"),
        ("postgresql://h/db?pool_max_size=0", "pool_max_size"),
        ("postgresql://h/db?no_such_libpq_option=1", "not a valid PostgreSQL URL"),
    ],
)
def test_bad_urls_say_what_to_fix(url: str, fragment: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        PostgresStore(url)
    assert fragment in str(caught.value)


async def test_unreachable_server_is_a_clear_error_without_the_password() -> None:
    store = PostgresStore("postgresql://me:hunter2@127.0.0.1:1/db?connect_timeout=2")
    # unreachable is an error to report, never "nothing stored yet" (a verb would then answer
    # "no such key" or "no datasets")
    with pytest.raises(StorageError) as looked:
        await store.exists()
    with pytest.raises(StorageError) as caught:
        await store.setup()
    for error in (looked.value, caught.value):
        assert "127.0.0.1:1" in str(error) and "hunter2" not in str(error)
    await store.close()


# --- setup -----------------------------------------------------------------------------------

pg = pytest.mark.postgres


@pg
async def test_setup_creates_a_missing_database(postgres_server: PostgresServer) -> None:
    name = f"engramdb_new_{uuid.uuid4().hex[:8]}"
    url = postgres_server.url.rsplit("/", 1)[0] + f"/{name}"
    store = PostgresStore(url)
    assert await store.exists() is False
    await store.setup()
    await store.get_or_create_default_user()
    assert await store.exists() is True
    await store.close()
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pg
async def test_a_role_that_cannot_enable_pgvector_is_told_who_can(
    postgres_server: PostgresServer,
) -> None:
    role, database = f"limited_{uuid.uuid4().hex[:8]}", f"novector_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw'")
        conn.execute(f"CREATE DATABASE {database} OWNER {role}")
    parts = postgres_server.url.split("@", 1)[1].split("/", 1)[0]
    store = PostgresStore(f"postgresql://{role}:pw@{parts}/{database}")
    try:
        with pytest.raises(StorageError) as caught:
            await store.setup()
        assert "CREATE EXTENSION vector" in str(caught.value)
        assert await store.exists() is False
    finally:
        await store.close()
        with psycopg.connect(postgres_server.url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {database} WITH (FORCE)")
            conn.execute(f"DROP ROLE {role}")


@pg
async def test_a_store_that_was_never_set_up_says_run_setup(
    postgres_server: PostgresServer,
) -> None:
    store = PostgresStore(postgres_server.fresh_url())
    with pytest.raises(StorageError) as caught:
        await store.list_datasets()
    assert "setup()" in str(caught.value)
    await store.close()


@pg
async def test_nul_characters_are_a_validation_error_and_write_nothing(
    postgres_server: PostgresServer,
) -> None:
    store = PostgresStore(postgres_server.fresh_url())
    await store.setup()
    try:
        user = await store.get_or_create_default_user()
        dataset = await store.get_or_create_dataset(user.id, "main")
        doc = make_doc(dataset.id, ["fine", "bad\x00text"])
        with pytest.raises(EngramValidationError):
            await store.write_document(doc.write)
        assert await store.count_nodes([dataset.id]) == 0
        assert (await store.check_integrity()).ok
    finally:
        await store.close()


# --- vector search through the HNSW index ------------------------------------------------------


@pg
async def test_filtered_search_above_the_exact_limit_uses_hnsw_and_keeps_recall(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.fresh_url()
    store = PostgresStore(url, exact_search_limit=100)
    await store.setup()
    rng = np.random.default_rng(7)
    try:
        user = await store.get_or_create_default_user()
        mine = await store.get_or_create_dataset(user.id, "mine")
        theirs = await store.get_or_create_dataset(user.id, "theirs")
        ids: list[UUID] = []
        rows = []
        for d in range(12):
            # 1 in 4 rows is in the filtered dataset: the iterative scan must skip the others.
            target = mine if d % 4 == 0 else theirs
            vectors = unit_rows(rng, 150, dim=32)
            doc = make_doc(target.id, [f"c{d}-{i}" for i in range(150)], vectors=vectors)
            await store.write_document(doc.write)
            if target is mine:
                ids += [c.id for c in doc.chunks]
                rows.append(vectors)
        matrix = np.vstack(rows)
        with psycopg.connect(postgres_server.url, autocommit=True) as conn:
            schema = parse_url(url).schema
            found = conn.execute(
                "SELECT 1 FROM pg_indexes WHERE schemaname = %s AND indexname = %s",
                (schema, index_name("chunks", 32)),
            ).fetchone()
        assert found is not None, "no HNSW index for (chunks, 32)"
        hits_total = 0
        for query in unit_rows(rng, 30, dim=32):
            hits = await store.vector_search("chunks", query, [mine.id], 10)
            assert len(hits) == 10
            assert {h.node_id for h in hits} <= set(ids)  # the filter never leaks
            assert [h.score for h in hits] == sorted(h.score for h in hits)
            exact = {e[0] for e in brute_force(ids, matrix, query, 10)}
            hits_total += len(exact & {h.node_id for h in hits})
        assert hits_total / 300 >= 0.95
    finally:
        await store.close()


# --- full text ---------------------------------------------------------------------------------


@pg
async def test_bm25_scores_agree_with_the_embedded_store(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    texts = [
        "The harbor lantern glowed over the copper harbor at night",
        "A falcon crossed the glacier; the glacier was silent",
        "Lantern light, lantern smoke, and a quiet meadow",
        "The meadow by the river hosts a falcon and a willow",
        "Copper wire and a brass lantern in the workshop",
        "Nothing here matches anything at all",
    ]
    backends: list[Store] = [
        PostgresStore(postgres_server.fresh_url()),
        SqliteStore(tmp_path / "e.db"),
    ]
    results = []
    for store in backends:
        await store.setup()
        user = await store.get_or_create_default_user()
        dataset = await store.get_or_create_dataset(user.id, "main")
        doc = make_doc(dataset.id, texts)
        await store.write_document(doc.write)
        by_text = {c.id: c.text for c in doc.chunks}
        found = []
        for query in ("lantern harbor", "falcon glacier meadow", "copper lantern", "willow"):
            hits = await store.lexical_search("chunks", query, [dataset.id], 10)
            found.append([(by_text[h.node_id], h.score) for h in hits])
        results.append(found)
        await store.close()
    postgres, sqlite = results
    for pg_hits, lite_hits in zip(postgres, sqlite, strict=True):
        assert [t for t, _ in pg_hits] == [t for t, _ in lite_hits]
        assert [s for _, s in pg_hits] == pytest.approx([s for _, s in lite_hits], rel=1e-4)


# --- locks -----------------------------------------------------------------------------------

_HOLD_LOCK = """
import asyncio, sys
from engramdb.storage.postgres import PostgresStore

async def main():
    store = PostgresStore(sys.argv[1])
    async with store.lock("dataset:held"):
        print("HELD", flush=True)
        await asyncio.sleep(120)

asyncio.run(main())
"""


@pg
async def test_a_lock_of_a_killed_process_is_released_at_once(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.fresh_url()
    store = PostgresStore(url)
    await store.setup()
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, url],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "HELD"
        with pytest.raises(LockTimeoutError) as caught:
            async with store.lock("dataset:held", timeout=0.3):
                pass
        assert f"pid {proc.pid}" in str(caught.value)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        started = time.monotonic()
        async with store.lock("dataset:held", timeout=10):
            waited = time.monotonic() - started
        assert waited < 5
    finally:
        if proc.poll() is None:
            proc.kill()
        await store.close()


# --- a client killed inside its document transaction -------------------------------------------

_OPEN_WRITE = (
    "SELECT 1 FROM pg_stat_activity WHERE application_name LIKE %s AND backend_xid IS NOT NULL"
)


@pg
@pytest.mark.slow
async def test_client_killed_inside_an_open_document_transaction(
    postgres_storage: str, postgres_server: PostgresServer
) -> None:
    """SIGKILL the ingest worker at a moment when PostgreSQL shows it inside a write transaction
    (its session holds a transaction id): the document being written must vanish whole, every
    stored one stays complete, and a later remember() finishes the rest."""
    import engramdb
    from engramdb.engine import get_engine

    data_dir = os.environ["ENGRAMDB_DATA_DIR"]
    caught_open = 0
    with psycopg.connect(postgres_server.url, autocommit=True) as watcher:
        for attempt in range(4):
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.support.ingest_worker",
                    data_dir,
                    "crashy",
                    "0",
                    "400",
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            try:
                deadline = time.monotonic() + 60
                pattern = f"engramdb pid={proc.pid} %"
                while time.monotonic() < deadline and proc.poll() is None:
                    if watcher.execute(_OPEN_WRITE, (pattern,)).fetchone() is not None:
                        proc.send_signal(signal.SIGKILL)
                        caught_open += 1
                        break
                    time.sleep(0.002)
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.wait(timeout=30)

            store = get_engine().store
            await get_engine().ensure_setup()
            report = await store.check_integrity()
            assert report.ok, (attempt, report.violations)
            owner = await store.get_or_create_default_user()
            dataset = await store.find_dataset(owner.id, "crashy")
            for record in await store.list_data(dataset.id) if dataset else []:
                chunks = await store.neighbourhood([record.id], depth=1, limit=10_000)
                chunk_nodes = [n for n in chunks.nodes if n.type == "Chunk"]
                assert len(chunk_nodes) == record.chunk_count > 0
    assert caught_open >= 3, f"caught the worker inside a write transaction {caught_open}/4 times"
    result = await engramdb.remember(
        [document(i) for i in range(400)], dataset_name="crashy", self_improvement=False
    )
    assert result.counts["documents"] + result.counts["skipped"] == 400
    assert (await get_engine().store.check_integrity()).ok
