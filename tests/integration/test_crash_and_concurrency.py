"""Real processes: SIGKILL in the middle of ingesting, and two writers racing on one dataset."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import RunStatus
from tests.support.ingest_worker import document

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _spawn(data_dir: Path, dataset: str, first: int, last: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.ingest_worker",
            str(data_dir),
            dataset,
            str(first),
            str(last),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _wait_ready(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "READY", (
        f"worker failed to start: {line!r} {proc.stderr.read() if proc.stderr else ''}"
    )


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.7, 1.2, 2.0])
async def test_sigkill_mid_ingest_leaves_whole_documents_only(
    isolated_config: Path, delay: float
) -> None:
    n_docs = 600
    proc = _spawn(isolated_config, "crashy", 0, n_docs)
    _wait_ready(proc)
    time.sleep(delay)
    alive_at_kill = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    store = get_engine().store
    await get_engine().ensure_setup()
    report = await store.check_integrity()
    assert report.ok, report.violations
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "crashy")
    survivors = await store.list_data(dataset.id) if dataset else []
    for record in survivors:  # every stored document is complete: all its chunks are there
        chunks = await store.neighbourhood([record.id], depth=1, limit=10_000)
        chunk_nodes = [n for n in chunks.nodes if n.type == "Chunk"]
        assert len(chunk_nodes) == record.chunk_count > 0

    # The next remember reaps the dead run, takes over the lock and completes the rest.
    result = await engramdb.remember(
        [document(i) for i in range(n_docs)], dataset_name="crashy", self_improvement=False
    )
    assert result.counts["documents"] + result.counts["skipped"] == n_docs
    assert result.counts["skipped"] == len(survivors)
    dataset = await store.find_dataset(owner.id, "crashy")
    assert dataset is not None
    records = await store.list_data(dataset.id)
    assert len(records) == n_docs
    assert len({r.content_hash for r in records}) == n_docs
    assert (await store.check_integrity()).ok
    runs = await store.list_runs([dataset.id])
    killed = [r for r in runs if r.pid == proc.pid]
    if killed and alive_at_kill and len(survivors) < n_docs:  # killed mid-run
        assert killed[0].status is RunStatus.ERRORED
        assert killed[0].error_class == "ProcessDied"
    assert runs[0].status is RunStatus.COMPLETED


async def test_two_processes_remember_into_one_dataset(isolated_config: Path) -> None:
    a = _spawn(isolated_config, "shared", 0, 150)
    b = _spawn(isolated_config, "shared", 75, 225)
    out_a, err_a = a.communicate(timeout=300)
    out_b, err_b = b.communicate(timeout=300)
    assert a.returncode == 0, err_a
    assert b.returncode == 0, err_b
    assert "locked" not in err_a + err_b
    done = [line.split() for line in (out_a + out_b).splitlines() if line.startswith("DONE")]
    written = sum(int(d[1]) for d in done)
    skipped = sum(int(d[2]) for d in done)
    assert written == 225 and skipped == 75  # overlap stored once, nothing lost

    store = get_engine().store
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "shared")
    assert dataset is not None
    records = await store.list_data(dataset.id)
    assert len(records) == 225
    assert (await store.check_integrity()).ok
    found = await engramdb.recall("Document 200 part 3", "CHUNKS_LEXICAL", datasets=["shared"])
    assert found
