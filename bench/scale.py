"""Vector search at scale: open time, first and warm CHUNKS recall, RSS, data directory size.

Run from the repository root::

    .venv/bin/python bench/scale.py --chunks 100000
    .venv/bin/python bench/scale.py --chunks 1000000 --data-dir /tmp/scale-1m   # keep and reuse
    .venv/bin/python bench/scale.py --chunks 100000 --exact    # ENGRAMDB_VECTOR_ANN_THRESHOLD=0

The store holds chunks only (no graph), written through the fastest store path —
``store.write_document`` with documents of ``--per-doc`` chunks, each with its text in the
full-text collection and a 384-d vector. The vectors are clustered like sentence embeddings
(unit vectors around ``chunks / 100`` random centres plus noise), so approximate search is
measured on neighbourhoods that exist; queries go through ``engramdb.recall`` with the fake
embedder (hashed words: no model time in the figures).

Phases, each in a fresh process so figures do not mix:

1. populate (this process), unless ``--data-dir`` already holds the chunks;
2. *first search after populating*: builds the approximate index file (if above the threshold);
3. *reopen*: the time of the first ``recall`` after opening, warm ``recall`` CHUNKS p50/p95,
   ``store.vector_search`` p50/p95, resident memory, then recall@10 of ``vector_search`` against
   an exact scan (vectors read back from SQLite after the memory figure is taken).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from _common import current_rss_mb, latency_summary, load_note, pin_cores, write_json

DATASET = "scale"
DIM = 384
K = 10
NOISE = 0.35


def configure(data_dir: Path, exact: bool) -> None:
    import engramdb

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("engramdb_storage_url", "")
    engramdb.config.set("embedding_provider", "fake")
    engramdb.config.set("embedding_dimensions", DIM)
    if exact:
        engramdb.config.set("engramdb_vector_ann_threshold", 0)


def clustered(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    rows = centres[rng.integers(0, len(centres), n)]
    rows = rows + NOISE * rng.standard_normal((n, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32)


def centres_for(chunks: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.standard_normal((max(100, chunks // 100), DIM)).astype(np.float32)


async def populate(chunks: int, per_doc: int, seed: int) -> float:
    from engramdb.engine import get_engine
    from recall_latency import TextGenerator, build_write

    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.get_or_create_dataset(owner.id, DATASET)
    await engine.store.set_dataset_embedding(dataset.id, f"fake-hash-{DIM}", DIM)
    gen = TextGenerator(seed)
    rng = np.random.default_rng(seed + 1)
    centres = centres_for(chunks)
    started = time.perf_counter()
    have, doc_index = 0, 0
    while have < chunks:
        n = min(per_doc, chunks - have)
        texts = [gen.chunk(int(rng.integers(30, 60))) for _ in range(n)]
        write = build_write(dataset.id, doc_index, texts, clustered(rng, centres, n))
        if not await engine.store.write_document(write):
            raise RuntimeError(f"document {doc_index} was not written (duplicate content?)")
        have += n
        doc_index += 1
        if have % 50_000 == 0 or have == chunks:
            spent = time.perf_counter() - started
            print(f"  populated {have:,} chunks ({spent:.0f} s)", flush=True)
    await engine.close()
    return time.perf_counter() - started


async def first_search() -> dict[str, Any]:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine

    t0 = time.perf_counter()
    await engramdb.recall("warm the index", SearchType.CHUNKS, datasets=[DATASET], top_k=K)
    seconds = time.perf_counter() - t0
    store: Any = get_engine().store
    builds = int(getattr(store, "ann_builds", 0))
    await get_engine().close()
    return {"first_search_s": seconds, "index_builds": builds}


async def reopen(queries: int, seed: int) -> dict[str, Any]:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine
    from engramdb.graph_schema import CHUNK_COLLECTION
    from recall_latency import TextGenerator

    gen = TextGenerator(seed + 2)
    texts = [gen.question() for _ in range(queries + 1)]
    engine = get_engine()
    await engine.embedder.embed(["load the embedder before the timed call"])
    # Module imports are not "opening the store": load the recall code path first.
    import engramdb.api.recall
    import engramdb.facade
    import engramdb.retrieval.retrievers.chunks
    import engramdb.storage.sqlite

    t0 = time.perf_counter()
    await engramdb.recall(texts[0], SearchType.CHUNKS, datasets=[DATASET], top_k=K)
    first_ms = (time.perf_counter() - t0) * 1000
    recall_times: list[float] = []
    for text in texts[1:]:
        t0 = time.perf_counter()
        hits = await engramdb.recall(text, SearchType.CHUNKS, datasets=[DATASET], top_k=K)
        recall_times.append(time.perf_counter() - t0)
        assert len(hits) == K, len(hits)
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, DATASET)
    assert dataset is not None
    store: Any = engine.store
    count = await _count(store.path)
    rng = np.random.default_rng(seed + 3)
    probes = clustered(rng, centres_for(count), queries)
    search_times: list[float] = []
    found: list[list[str]] = []
    for probe in probes:
        t0 = time.perf_counter()
        hits = await store.vector_search(CHUNK_COLLECTION, probe, [dataset.id], K)
        search_times.append(time.perf_counter() - t0)
        found.append([str(h.node_id) for h in hits])
    rss = current_rss_mb()
    builds = int(getattr(store, "ann_builds", 0))
    loads = int(getattr(store, "matrix_loads", 0))
    await engine.close()
    return {
        "first_recall_ms": first_ms,
        "recall_chunks": latency_summary(recall_times),
        "vector_search": latency_summary(search_times),
        "rss_mb": rss,
        "index_builds": builds,
        "matrix_loads": loads,
        "recall_at_10": _recall_at_10(store.path, probes, found),
    }


async def _count(path: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
    finally:
        conn.close()


def _recall_at_10(path: Path, probes: np.ndarray, found: list[list[str]]) -> float:
    """Exact top-10 by a streamed scan over the stored float32 vectors (after RSS is taken)."""
    import sqlite3

    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    best_ids: list[list[str]] = [[] for _ in probes]
    best_sims = np.full((len(probes), 0), -np.inf, dtype=np.float32)
    try:
        cursor = conn.execute("SELECT node_id, embedding FROM vectors")
        while batch := cursor.fetchmany(50_000):
            ids = [row[0] for row in batch]
            matrix = np.frombuffer(b"".join(row[1] for row in batch), dtype="<f4").reshape(
                len(batch), DIM
            )
            sims = probes @ matrix.T
            merged_sims = np.concatenate([best_sims, sims], axis=1)
            top = np.argsort(-merged_sims, axis=1)[:, :K]
            new_ids = []
            for q in range(len(probes)):
                pool = best_ids[q] + ids
                new_ids.append([pool[i] for i in top[q]])
            best_ids = new_ids
            best_sims = np.take_along_axis(merged_sims, top, axis=1)
    finally:
        conn.close()
    hits = sum(len(set(a) & set(b)) for a, b in zip(found, best_ids, strict=True))
    return hits / (K * len(probes))


def child(args: argparse.Namespace) -> None:
    configure(Path(args.data_dir), args.exact)
    if args.child == "first":
        result = asyncio.run(first_search())
    else:
        result = asyncio.run(reopen(args.queries, args.seed))
    print("RESULT " + json.dumps(result))


def run_child(args: argparse.Namespace, phase: str, data_dir: Path) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", phase, "--data-dir", str(data_dir)]
    cmd += ["--queries", str(args.queries), "--seed", str(args.seed)]
    if args.exact:
        cmd.append("--exact")
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{phase} phase failed:\n{done.stderr[-3000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return dict(json.loads(line.removeprefix("RESULT ")))


def dir_size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--per-doc", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--data-dir", help="keep the store here (reused when it is full)")
    parser.add_argument("--exact", action="store_true", help="threshold 0: exact search only")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--child", choices=["first", "reopen"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    cores = pin_cores(args.cores)
    print(f"pinned to cores {cores}; {load_note(args.cores)}")
    keep = args.data_dir is not None
    data_dir = Path(args.data_dir) if keep else Path(tempfile.mkdtemp(prefix="scale-"))
    figures: dict[str, Any] = {"chunks": args.chunks, "exact_only": args.exact}
    try:
        db = data_dir / "engramdb.sqlite3"
        have = asyncio.run(_count(db)) if db.exists() else 0
        if have < args.chunks:
            if have:
                raise SystemExit(f"{data_dir} holds {have:,} chunks; use an empty directory")
            configure(data_dir, args.exact)
            figures["populate_s"] = asyncio.run(populate(args.chunks, args.per_doc, args.seed))
        figures["first_search_after_populate"] = run_child(args, "first", data_dir)
        figures["reopen"] = run_child(args, "reopen", data_dir)
        figures["data_dir_mb"] = dir_size_mb(data_dir)
        ann_dir = data_dir / "engramdb.sqlite3.ann"
        figures["index_files_mb"] = dir_size_mb(ann_dir) if ann_dir.exists() else 0.0
    finally:
        if not keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    reopen_figures = figures["reopen"]
    first = figures["first_search_after_populate"]
    print(f"chunks: {args.chunks:,}  (exact only: {args.exact})")
    if "populate_s" in figures:
        print(f"populate through store.write_document: {figures['populate_s']:.0f} s")
    print(
        f"first search after populating: {first['first_search_s']:.1f} s "
        f"(index files built: {first['index_builds']})"
    )
    print(f"first recall after reopening: {reopen_figures['first_recall_ms']:.0f} ms")
    for name in ("recall_chunks", "vector_search"):
        s = reopen_figures[name]
        print(f"{name}: p50 {s['p50_ms']:.1f} ms  p95 {s['p95_ms']:.1f} ms  (n={s['n']:.0f})")
    print(f"recall@10 of vector_search against exact: {reopen_figures['recall_at_10']:.3f}")
    print(
        f"RSS after queries: {reopen_figures['rss_mb']:.0f} MB; index builds on reopen: "
        f"{reopen_figures['index_builds']}; matrices loaded: {reopen_figures['matrix_loads']}"
    )
    print(
        f"data directory: {figures['data_dir_mb']:.0f} MB "
        f"(index files {figures['index_files_mb']:.0f} MB)"
    )
    print(load_note(args.cores, "at end"))
    write_json(args.json, figures)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
