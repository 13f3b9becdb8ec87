"""Real processes sharing one SQLite file: writers, dead lock holders, dead pipeline runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from engramdb.errors import LockTimeoutError
from engramdb.models.records import Dataset, RunStatus
from engramdb.storage.sqlite import SqliteStore

from .conftest import DocBuilder

pytestmark = pytest.mark.slow

_PRELUDE = textwrap.dedent(
    """
    import asyncio, json, sys, uuid
    import numpy as np
    from engramdb.models.records import DataRecord, Node, utcnow
    from engramdb.storage.base import DocumentWrite, VectorRow
    from engramdb.storage.sqlite import SqliteStore

    def doc(dataset_id, vectors):
        record = DataRecord(id=uuid.uuid4(), dataset_id=dataset_id, name="d",
                            content_hash=uuid.uuid4().hex, mime_type="text/plain",
                            created_at=utcnow())
        nodes = [Node(id=uuid.uuid4(), dataset_id=dataset_id, type="Chunk", text="child text")
                 for _ in vectors]
        return DocumentWrite(data=record, nodes=nodes,
                             vectors=[VectorRow(n.id, "chunks", np.asarray(v, dtype=np.float32))
                                      for n, v in zip(nodes, vectors)],
                             lexical={"chunks": [(n.id, n.text) for n in nodes]}), nodes
    """
)


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _PRELUDE + textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start a long-running child; it prints one line when ready. Killed at teardown."""
    children: list[subprocess.Popen[str]] = []

    def start(script: str, *args: str) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [sys.executable, "-c", _PRELUDE + textwrap.dedent(script), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        children.append(child)
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "ready", child.stderr.read() if child.stderr else line
        return child

    yield start
    for child in children:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=30)


def _kill(child: subprocess.Popen[str]) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)


async def test_a_writer_process_is_seen_by_a_loaded_index(
    store: SqliteStore, dataset: Dataset, db_path: Path, chunk_doc: DocBuilder
) -> None:
    mine = np.eye(8, dtype=np.float32)[:4]
    doc, ids = chunk_doc(dataset.id, mine)
    await store.write_document(doc)
    assert len(await store.vector_search("chunks", mine[0], [dataset.id], 10)) == 4
    loads = store.matrix_loads

    result = _run(
        """
        async def main():
            store = SqliteStore(sys.argv[1])
            dataset_id = uuid.UUID(sys.argv[2])
            vectors = np.random.default_rng(5).standard_normal((6, 8))
            write, nodes = doc(dataset_id, vectors)
            await store.write_document(write)
            await store.delete_data(uuid.UUID(sys.argv[3]))
            await store.close()
            print(json.dumps([str(n.id) for n in nodes]))
        asyncio.run(main())
        """,
        str(db_path),
        str(dataset.id),
        str(doc.data.id),
    )
    assert result.returncode == 0, result.stderr
    child_ids = set(json.loads(result.stdout))
    hits = await store.vector_search("chunks", mine[0], [dataset.id], 20)
    assert {str(h.node_id) for h in hits} == child_ids
    assert store.matrix_loads == loads
    assert {str(n.id) for n in await store.get_nodes(ids)} == set()


async def test_concurrent_processes_set_up_and_write_without_lock_errors(db_path: Path) -> None:
    script = """
        async def main():
            store = SqliteStore(sys.argv[1])
            await store.setup()
            user = await store.get_or_create_default_user()
            dataset = await store.get_or_create_dataset(user.id, "shared")
            rng = np.random.default_rng(int(sys.argv[2]))
            for _ in range(25):
                write, _ = doc(dataset.id, rng.standard_normal((4, 8)))
                await store.write_document(write)
                await store.vector_search("chunks", rng.standard_normal(8), [dataset.id], 3)
            await store.close()
            print(user.id, dataset.id)
        asyncio.run(main())
        """
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _PRELUDE + textwrap.dedent(script), str(db_path), str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(3)
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (_out, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
        assert "locked" not in err
    assert len({out for out, _ in outputs}) == 1  # one default user, one dataset
    store = SqliteStore(db_path)
    try:
        (dataset,) = await store.list_datasets()
        assert len(await store.list_data(dataset.id)) == 75
        assert await store.count_nodes([dataset.id]) == 300
        assert (await store.check_integrity()).ok
    finally:
        await store.close()


async def test_lock_of_a_killed_process_is_taken_over(
    store: SqliteStore, db_path: Path, spawn: Callable[..., subprocess.Popen[str]]
) -> None:
    holder = spawn(
        """
        async def main():
            store = SqliteStore(sys.argv[1])
            async with store.lock("dataset:shared"):
                print("ready", flush=True)
                await asyncio.sleep(120)
        asyncio.run(main())
        """,
        str(db_path),
    )
    with pytest.raises(LockTimeoutError) as caught:
        async with store.lock("dataset:shared", timeout=0.3):
            pass
    assert str(holder.pid) in str(caught.value)
    _kill(holder)
    async with store.lock("dataset:shared", timeout=5):
        pass


async def test_dead_runs_are_reaped(
    store: SqliteStore,
    dataset: Dataset,
    db_path: Path,
    spawn: Callable[..., subprocess.Popen[str]],
) -> None:
    mine = await store.start_run(dataset.id, "remember")
    child = spawn(
        """
        async def main():
            store = SqliteStore(sys.argv[1])
            await store.start_run(uuid.UUID(sys.argv[2]), "remember")
            print("ready", flush=True)
            await asyncio.sleep(120)
        asyncio.run(main())
        """,
        str(db_path),
        str(dataset.id),
    )
    assert await store.reap_dead_runs() == 0
    _kill(child)
    assert await store.reap_dead_runs() == 1
    assert await store.reap_dead_runs() == 0
    runs = {run.pid: run for run in await store.list_runs([dataset.id])}
    dead = runs[child.pid]
    assert dead.status is RunStatus.ERRORED
    assert dead.error_class == "ProcessDied"
    assert dead.error_message and "exited before the run finished" in dead.error_message
    assert dead.finished_at is not None
    assert runs[os.getpid()].id == mine.id
    assert runs[os.getpid()].status is RunStatus.STARTED
