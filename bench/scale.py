"""Scale: open time, first and warm recall of every lane, remember with and without the
automatic improve, forget of one document and of the dataset, RSS, data size.

Run from the repository root::

    .venv/bin/python bench/scale.py --chunks 100000 --graph
    .venv/bin/python bench/scale.py --chunks 1000000 --graph --data-dir /tmp/scale-1m  # keep it
    .venv/bin/python bench/scale.py --chunks 100000 --exact    # ENGRAMDB_VECTOR_ANN_THRESHOLD=0
    .venv/bin/python bench/scale.py --chunks 100000 --graph --backend postgres   # own server

The store is written through the fastest store path, ``store.write_document``, with documents
of ``--per-doc`` chunks, each with its text in the full-text collection and a 384-d vector.
Chunk vectors are clustered like sentence embeddings (unit vectors around ``chunks / 100``
random centres plus noise), so approximate search is measured on neighbourhoods that exist.
With ``--graph`` each document is planned by ``plan_document`` from synthetic extractions
(four entities per chunk drawn from a Zipf vocabulary, so a few entities are hubs; three
relations per chunk; a summary per chunk): the nodes, edges, summaries and entity sharing
the pipeline writes. Queries go through ``engramdb.recall`` with the fake embedder (hashed
words: no model time in the figures).

Phases, each in a fresh process so figures do not mix:

1. populate (this process), unless ``--data-dir`` already holds the chunks;
2. *first search after populating*: builds the approximate index file (if above the threshold);
3. *reopen*: the first ``recall`` after opening; warm p50/p95 of CHUNKS, CHUNKS_LEXICAL and,
   with ``--graph``, HYBRID_COMPLETION and GRAPH_COMPLETION (context only);
   ``store.vector_search`` alone; resident memory; recall@10 of ``vector_search`` against an
   exact scan (SQLite: vectors read back after the memory figure is taken);
4. *writes*: ``remember`` of one short document with ``self_improvement=False`` and ``True``
   alternately (``--writes`` of each; the first automatic improve of the process is reported
   apart: it loads the improve state), then ``forget`` of each of those documents;
5. *forget the dataset* (``--forget-dataset``; the default when the store is not kept).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from _common import current_rss_mb, latency_summary, load_note, pin_cores, write_json
from engramdb.graph_schema import CHUNK_COLLECTION

DATASET = "scale"
DIM = 384
K = 10
NOISE = 0.35


def configure(data_dir: Path, exact: bool, storage_url: str = "") -> None:
    import engramdb

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("engramdb_storage_url", storage_url)
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


async def populate(chunks: int, per_doc: int, seed: int, graph: bool = False) -> float:
    from engramdb.engine import get_engine
    from recall_latency import TextGenerator, build_graph_write, build_write

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
        vectors = clustered(rng, centres, n)
        if graph:
            write = await build_graph_write(dataset, doc_index, texts, rng, gen, vectors)
        else:
            write = build_write(dataset.id, doc_index, texts, vectors)
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


#: The warm recall lanes: (figure key, search type, context only), graph lanes with --graph.
LANES = (
    ("recall_chunks", "CHUNKS", False),
    ("recall_lexical", "CHUNKS_LEXICAL", False),
)
GRAPH_LANES = (
    ("recall_hybrid", "HYBRID_COMPLETION", True),
    ("recall_graph", "GRAPH_COMPLETION", True),
)


async def reopen(queries: int, seed: int, graph: bool) -> dict[str, Any]:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine
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
    lanes = LANES + (GRAPH_LANES if graph else ())
    times: dict[str, list[float]] = {key: [] for key, _, _ in lanes}
    for text in texts[1:]:
        for key, type_, context in lanes:
            t0 = time.perf_counter()
            hits = await engramdb.recall(
                text, SearchType(type_), datasets=[DATASET], top_k=K, only_context=context
            )
            times[key].append(time.perf_counter() - t0)
            if key == "recall_chunks":
                assert len(hits) == K, len(hits)
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, DATASET)
    assert dataset is not None
    store: Any = engine.store
    count = await _count(store)
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
    size_mb = await _database_mb(store)
    await engine.close()
    path = getattr(store, "path", None)
    return {
        "first_recall_ms": first_ms,
        **{key: latency_summary(values) for key, values in times.items()},
        "vector_search": latency_summary(search_times),
        "rss_mb": rss,
        "index_builds": builds,
        "matrix_loads": loads,
        "database_mb": size_mb,
        "recall_at_10": _recall_at_10(path, probes, found) if path is not None else None,
    }


async def writes(repeats: int, seed: int) -> dict[str, Any]:
    """remember() of one short document without and with the automatic improve, alternately,
    then forget() of each of those documents."""
    import engramdb
    from engramdb.engine import get_engine
    from recall_latency import TextGenerator

    gen = TextGenerator(seed + 4)
    engine = get_engine()
    await engine.embedder.embed(["load the embedder before the timed call"])

    async def remember(auto: bool, i: int) -> tuple[float, Any]:
        text = f"{gen.chunk(60)} Note {i} ({'auto' if auto else 'plain'})."
        t0 = time.perf_counter()
        result = await engramdb.remember(text, dataset_name=DATASET, self_improvement=auto)
        return time.perf_counter() - t0, result

    # The first remember of the process opens what it needs; the first automatic improve
    # loads the improve state. Both are reported apart from the steady figures.
    first_plain, first = await remember(False, -2)
    first_auto, first_auto_result = await remember(True, -1)
    data_ids = [first.data_ids[0], first_auto_result.data_ids[0]]
    plain: list[float] = []
    auto: list[float] = []
    for i in range(repeats):
        for flag, bucket in ((False, plain), (True, auto)):
            seconds, result = await remember(flag, i)
            bucket.append(seconds)
            data_ids.append(result.data_ids[0])
    forgets: list[float] = []
    for data_id in data_ids:
        t0 = time.perf_counter()
        await engramdb.forget(data_id=data_id)
        forgets.append(time.perf_counter() - t0)
    await engine.close()
    return {
        "first_remember_s": first_plain,
        "first_auto_remember_s": first_auto,
        "remember_plain": latency_summary(plain),
        "remember_auto": latency_summary(auto),
        "forget_document": latency_summary(forgets),
    }


async def forget_dataset() -> dict[str, Any]:
    import engramdb
    from engramdb.engine import get_engine

    engine = get_engine()
    await engine.resolve_user(None)  # open the store before the timed call
    t0 = time.perf_counter()
    result = await engramdb.forget(dataset=DATASET)
    seconds = time.perf_counter() - t0
    await engine.close()
    return {"forget_dataset_s": seconds, "data_records": result.data_records}


async def _database_mb(store: Any) -> float | None:
    """PostgreSQL: the size of the store's schema (SQLite's is the data directory's)."""
    if getattr(store, "path", None) is not None:
        return None

    async def size(conn: Any) -> int:
        cur = await conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
            (store.schema,),
        )
        return int((await cur.fetchone())[0])

    return await store._db.read(size) / 2**20


async def _count(store: Any) -> int:
    """How many vectors the store holds (read-only: the SQLite file, or the PostgreSQL schema)."""
    path = getattr(store, "path", None)
    if path is None:

        async def count(conn: Any) -> int:
            cur = await conn.execute(
                f'SELECT count(*) FROM "{store.schema}".vectors WHERE collection = %s',
                (CHUNK_COLLECTION,),
            )
            return int((await cur.fetchone())[0])

        return int(await store._db.read(count))
    return _count_file(path)


def _count_file(path: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        sql = "SELECT count(*) FROM vectors WHERE collection = ?"
        return int(conn.execute(sql, (CHUNK_COLLECTION,)).fetchone()[0])
    finally:
        conn.close()


def _recall_at_10(path: Path, probes: np.ndarray, found: list[list[str]]) -> float:
    """Exact top-10 by a streamed scan over the stored float32 vectors (after RSS is taken)."""
    import sqlite3

    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    best_ids: list[list[str]] = [[] for _ in probes]
    best_sims = np.full((len(probes), 0), -np.inf, dtype=np.float32)
    try:
        sql = "SELECT node_id, embedding FROM vectors WHERE collection = ?"
        cursor = conn.execute(sql, (CHUNK_COLLECTION,))
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
    configure(Path(args.data_dir), args.exact, args.storage_url or "")
    if args.child == "first":
        result = asyncio.run(first_search())
    elif args.child == "reopen":
        result = asyncio.run(reopen(args.queries, args.seed, args.graph))
    elif args.child == "writes":
        result = asyncio.run(writes(args.writes, args.seed))
    else:
        result = asyncio.run(forget_dataset())
    print("RESULT " + json.dumps(result))


def run_child(args: argparse.Namespace, phase: str, data_dir: Path, url: str) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", phase, "--data-dir", str(data_dir)]
    cmd += ["--queries", str(args.queries), "--seed", str(args.seed), "--writes", str(args.writes)]
    cmd += ["--storage-url", url] * bool(url)
    cmd += ["--exact"] * args.exact + ["--graph"] * args.graph
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{phase} phase failed:\n{done.stderr[-3000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return dict(json.loads(line.removeprefix("RESULT ")))


def dir_size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


@contextlib.contextmanager
def storage_url(args: argparse.Namespace) -> Iterator[str]:
    """SQLite: "" (the data directory's file). PostgreSQL: a fresh schema on ``--url`` or on a
    throwaway server started here (bench/postgres.py's)."""
    if args.backend == "sqlite":
        yield ""
        return
    from postgres import _schema_url, postgres_url

    with postgres_url(args.url) as base:
        yield _schema_url(base, f"bench_scale_{os.getpid()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--per-doc", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--writes", type=int, default=5, help="remembers of each kind (phase 4)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--graph", action="store_true", help="entities, relations, summaries")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--url", help="PostgreSQL server (default: a throwaway one)")
    parser.add_argument("--data-dir", help="keep the store here (reused when it is full)")
    parser.add_argument("--exact", action="store_true", help="threshold 0: exact search only")
    parser.add_argument(
        "--forget-dataset",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="forget the whole dataset at the end (default: when the store is not kept)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--child", choices=["first", "reopen", "writes", "forget"])
    parser.add_argument("--storage-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    cores = pin_cores(args.cores)
    print(f"pinned to cores {cores}; {load_note(args.cores)}")
    keep = args.data_dir is not None
    if keep and args.backend == "postgres":
        raise SystemExit("--data-dir keeps a SQLite store; PostgreSQL runs on a fresh schema")
    forget_all = (not keep) if args.forget_dataset is None else args.forget_dataset
    data_dir = Path(args.data_dir) if keep else Path(tempfile.mkdtemp(prefix="scale-"))
    figures: dict[str, Any] = {
        "chunks": args.chunks,
        "graph": args.graph,
        "backend": args.backend,
        "exact_only": args.exact,
    }
    try:
        with storage_url(args) as url:
            db = data_dir / "engramdb.sqlite3"
            have = _count_file(db) if db.exists() and not url else 0
            if have < args.chunks:
                if have:
                    raise SystemExit(f"{data_dir} holds {have:,} chunks; use an empty directory")
                configure(data_dir, args.exact, url)
                figures["populate_s"] = asyncio.run(
                    populate(args.chunks, args.per_doc, args.seed, args.graph)
                )
            figures["first_search_after_populate"] = run_child(args, "first", data_dir, url)
            figures["reopen"] = run_child(args, "reopen", data_dir, url)
            figures["data_dir_mb"] = dir_size_mb(data_dir)
            ann_dir = data_dir / "engramdb.sqlite3.ann"
            figures["index_files_mb"] = dir_size_mb(ann_dir) if ann_dir.exists() else 0.0
            figures["writes"] = run_child(args, "writes", data_dir, url)
            if forget_all:
                figures["forget"] = run_child(args, "forget", data_dir, url)
    finally:
        if not keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    report(args, figures)
    print(load_note(args.cores, "at end"))
    write_json(args.json, figures)


def report(args: argparse.Namespace, figures: dict[str, Any]) -> None:
    reopened, first, written = figures["reopen"], figures["first_search_after_populate"], None
    written = figures["writes"]
    graph = "with graph" if args.graph else "chunks only"
    print(f"\n{args.chunks:,} chunks ({graph}), {args.backend}, exact only: {args.exact}")
    if "populate_s" in figures:
        print(f"populate through store.write_document: {figures['populate_s']:.0f} s")
    print(
        f"first search after populating: {first['first_search_s']:.1f} s "
        f"(index files built: {first['index_builds']})"
    )
    print(f"first recall after reopening: {reopened['first_recall_ms']:.0f} ms")
    keys = ["recall_chunks", "recall_lexical", "recall_hybrid", "recall_graph", "vector_search"]
    for name in keys:
        if name in reopened:
            s = reopened[name]
            print(f"{name}: p50 {s['p50_ms']:.1f} ms  p95 {s['p95_ms']:.1f} ms  (n={s['n']:.0f})")
    if reopened.get("recall_at_10") is not None:
        print(f"recall@10 of vector_search against exact: {reopened['recall_at_10']:.3f}")
    print(
        f"RSS after queries: {reopened['rss_mb']:.0f} MB; index builds on reopen: "
        f"{reopened['index_builds']}; matrices loaded: {reopened['matrix_loads']}"
    )
    plain, auto = written["remember_plain"], written["remember_auto"]
    print(
        f"remember one short document: p50 {plain['p50_ms']:.0f} ms without the automatic "
        f"improve, {auto['p50_ms']:.0f} ms with it ({auto['p50_ms'] / plain['p50_ms']:.2f}x); "
        f"first of the process {written['first_remember_s'] * 1000:.0f} / "
        f"{written['first_auto_remember_s'] * 1000:.0f} ms"
    )
    print(f"forget one document: p50 {written['forget_document']['p50_ms']:.0f} ms")
    if "forget" in figures:
        print(f"forget the dataset: {figures['forget']['forget_dataset_s']:.1f} s")
    size = reopened.get("database_mb")
    database = f"; PostgreSQL schema {size:.0f} MB" if size is not None else ""
    print(
        f"data directory: {figures['data_dir_mb']:.0f} MB "
        f"(index files {figures['index_files_mb']:.0f} MB){database}"
    )


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
