"""Real processes: SIGKILL in the middle of ingesting, and two writers racing on one dataset."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from uuid import UUID, uuid4

import numpy as np
import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import DataRecord, Edge, Node, RunStatus, edge_id, utcnow
from engramdb.storage.base import DocumentWrite, VectorRow
from tests.support.ingest_worker import document

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _worker(module: str, *args: object) -> subprocess.Popen[str]:
    """``python -m tests.support.<module> args...`` from the repository root, pipes open."""
    return subprocess.Popen(
        [sys.executable, "-m", f"tests.support.{module}", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _spawn(
    data_dir: Path, dataset: str, first: int, last: int, *, rebuild: bool = False
) -> subprocess.Popen[str]:
    return _worker("ingest_worker", data_dir, dataset, first, last, *(["rebuild"] * rebuild))


def _kill_after(proc: subprocess.Popen[str], delay: float) -> bool:
    """SIGKILL the worker ``delay`` seconds after it is ready; whether it was still running."""
    _wait_ready(proc)
    time.sleep(delay)
    alive = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return alive


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
    alive_at_kill = _kill_after(proc, delay)

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


@pytest.mark.parametrize("delay", [0.7, 1.5])
async def test_sigkill_mid_rebuild_keeps_every_document(
    isolated_config: Path, delay: float
) -> None:
    """``incremental_loading=False`` builds present content again: each new copy replaces the
    stored one in the transaction that writes it, so a kill part-way loses no document."""
    n_docs = 300
    first = _spawn(isolated_config, "rebuilt", 0, n_docs)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    proc = _spawn(isolated_config, "rebuilt", 0, n_docs, rebuild=True)
    alive_at_kill = _kill_after(proc, delay)

    store = get_engine().store
    await get_engine().ensure_setup()
    assert (await store.check_integrity()).ok
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "rebuilt")
    assert dataset is not None
    records = await store.list_data(dataset.id)
    assert alive_at_kill and len(records) == n_docs
    for record in records:
        chunks = await store.neighbourhood([record.id], depth=1, limit=10_000)
        assert len([n for n in chunks.nodes if n.type == "Chunk"]) == record.chunk_count > 0


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


async def _duplicated_entities(pairs: int) -> tuple[UUID, int]:
    """A dataset of ``pairs`` documents, each naming "Entity i" and "Entity i (dup)" (with
    vectors), both linked to one shared "Hub" entity; returns the dataset id and its node count."""
    store = get_engine().store
    await get_engine().ensure_setup()
    owner = await store.get_or_create_default_user()
    dataset = await store.get_or_create_dataset(owner.id, "merging")
    rng = np.random.default_rng(0)
    hub = Node(id=uuid4(), dataset_id=dataset.id, type="Entity", name="Hub", text="Hub")
    for i in range(pairs):
        chunk = Node(id=uuid4(), dataset_id=dataset.id, type="Chunk", text=f"Entity {i}.")
        names = [f"Entity {i}", f"Entity {i} (dup)"]
        pair = [Node(id=uuid4(), dataset_id=dataset.id, type="Entity", name=n) for n in names]
        nodes = [chunk, hub, *pair]
        edges = [
            Edge(
                id=edge_id(chunk.id, "contains", e.id),
                dataset_id=dataset.id,
                source_id=chunk.id,
                target_id=e.id,
                relation="contains",
            )
            for e in [hub, *pair]
        ] + [
            Edge(
                id=edge_id(e.id, "near", hub.id),
                dataset_id=dataset.id,
                source_id=e.id,
                target_id=hub.id,
                relation="near",
            )
            for e in pair
        ]
        vectors = [
            VectorRow(e.id, "entities", rng.standard_normal(8).astype(np.float32)) for e in pair
        ]
        record = DataRecord(
            id=uuid4(),
            dataset_id=dataset.id,
            name=f"d{i}",
            content_hash=f"h{i}",
            mime_type="text/plain",
            created_at=utcnow(),
        )
        await store.write_document(
            DocumentWrite(data=record, nodes=nodes, edges=edges, vectors=vectors)
        )
    return dataset.id, await store.count_nodes([dataset.id])


@pytest.mark.parametrize("delay", [0.2, 1.0, 2.5, 30.0])  # the merge takes ~3-4 s
async def test_sigkill_mid_merge_leaves_no_half_merged_entity(
    isolated_config: Path, delay: float
) -> None:
    """A merge is one transaction: killed part-way, either every duplicate is still there with
    all its edges, vectors and provenance, or every one is merged -- never a mix."""
    pairs = 1500
    dataset_id, nodes_before = await _duplicated_entities(pairs)
    proc = _worker("merge_worker", isolated_config, dataset_id)
    assert proc.stdout is not None
    assert proc.stdout.readline().split() == ["READY", str(pairs)]
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    store = get_engine().store
    report = await store.check_integrity()
    assert report.ok, report.violations
    nodes_after = await store.count_nodes([dataset_id])
    assert nodes_after in (nodes_before, nodes_before - pairs)
    edges = await store.list_edges([dataset_id], limit=100_000)
    entities = {n.id: n for n in await store.list_nodes([dataset_id], type="Entity", limit=100_000)}
    if nodes_after == nodes_before:  # nothing merged: every duplicate whole
        dups = [n for n in entities.values() if n.name.endswith("(dup)")]
        assert len(dups) == pairs
        touching = {e.source_id for e in edges} | {e.target_id for e in edges}
        assert all(d.id in touching for d in dups)
    else:  # all merged: every survivor is supported by its document, no edge is dangling
        assert not any(n.name.endswith("(dup)") for n in entities.values())
        assert all(e.source_id in entities or e.target_id in entities for e in edges)
    hits = await store.vector_search("entities", np.ones(8, dtype=np.float32), [dataset_id], 10)
    assert all(h.node_id in entities for h in hits)


async def _large_dataset(name: str, docs: int, chunks: int) -> tuple[UUID, int]:
    """``docs`` documents of ``chunks`` chunks (vectors, full text, 'next' edges, a shared
    entity); returns the dataset id and its node count."""
    store = get_engine().store
    await get_engine().ensure_setup()
    owner = await store.get_or_create_default_user()
    dataset = await store.get_or_create_dataset(owner.id, name)
    rng = np.random.default_rng(1)
    hub = Node(id=uuid4(), dataset_id=dataset.id, type="Entity", name=f"{name} hub")
    for i in range(docs):
        nodes = [
            Node(id=uuid4(), dataset_id=dataset.id, type="Chunk", text=f"{name} text {i} {j}")
            for j in range(chunks)
        ]
        edges = [
            Edge(
                id=edge_id(c.id, "contains", hub.id),
                dataset_id=dataset.id,
                source_id=c.id,
                target_id=hub.id,
                relation="contains",
            )
            for c in nodes
        ]
        record = DataRecord(
            id=uuid4(),
            dataset_id=dataset.id,
            name=f"{name}{i}",
            content_hash=f"{name}{i}",
            mime_type="text/plain",
            created_at=utcnow(),
        )
        vectors = [
            VectorRow(c.id, "chunks", rng.standard_normal(8).astype(np.float32)) for c in nodes
        ]
        await store.write_document(
            DocumentWrite(
                data=record,
                nodes=[*nodes, hub],
                edges=edges,
                vectors=vectors,
                lexical={"chunks": [(c.id, c.text) for c in nodes]},
            )
        )
    return dataset.id, await store.count_nodes([dataset.id])


@pytest.mark.parametrize("delay", [0.1, 0.3, 0.6, 30.0])  # the forget takes ~0.5-1 s
async def test_sigkill_mid_forget_of_a_dataset_leaves_all_or_nothing(
    isolated_config: Path, delay: float
) -> None:
    """forget of a dataset in bulk (issue 17: tables emptied and refilled, the full-text table
    dropped and recreated) is one transaction: killed part-way, the dataset is either whole or
    gone, and the other dataset is whole and searchable either way."""
    doomed, doomed_nodes = await _large_dataset("doomed", 40, 300)
    kept, kept_nodes = await _large_dataset("kept", 2, 5)
    proc = _worker("forget_worker", isolated_config, doomed)
    assert proc.stdout is not None
    assert proc.stdout.readline().split() == ["READY"]
    time.sleep(delay)
    alive_at_kill = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    from engramdb.engine import set_engine

    await get_engine().close()
    set_engine(None)  # a fresh store object: nothing cached from before the kill
    store = get_engine().store
    report = await store.check_integrity()
    assert report.ok, report.violations
    assert await store.count_nodes([doomed]) in (doomed_nodes, 0)
    if await store.count_nodes([doomed]):
        assert alive_at_kill
        assert await store.get_dataset(doomed) is not None
        assert len(await store.data_ids(doomed)) == 40
        hits = await store.lexical_search("chunks", "doomed text 7", [doomed], 5)
        assert len(hits) == 5
    else:
        assert await store.get_dataset(doomed) is None
        assert await store.data_ids(doomed) == []
    assert await store.count_nodes([kept]) == kept_nodes
    hits = await store.lexical_search("chunks", "kept text 1", [kept], 20)
    assert len(hits) == kept_nodes - 1  # every chunk of the kept dataset says "kept text"
    vector_hits = await store.vector_search("chunks", np.ones(8, dtype=np.float32), [kept], 20)
    assert len(vector_hits) == kept_nodes - 1  # every chunk (the hub has no vector)
