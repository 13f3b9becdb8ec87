"""PostgreSQL + pgvector beside the embedded SQLite store, in one run: ingest throughput, recall
latency at 100k chunks, and filtered vector search recall@10 against exact search.

Run from the repository root (PostgreSQL 15 + pgvector installed, e.g. with
``sudo scripts/postgres-for-tests.sh install``)::

    .venv/bin/python bench/postgres.py
    .venv/bin/python bench/postgres.py --chunks 20000 --queries 50       # a quick look
    .venv/bin/python bench/postgres.py --url postgresql://u:p@host/db    # your own server

Without ``--url`` (or ``$ENGRAMDB_TEST_POSTGRES_URL``) the script starts a throwaway server with
``scripts/postgres-for-tests.sh start`` (fsync off, like the test server) and stops it at the
end; with a URL it works in a schema of its own and drops it afterwards.

For each backend, in a fresh store:

1. **remember()**: ``--remember-chunks`` chunks (documents of 4 paragraphs) through the whole
   pipeline with the fake embedder (384-d): the backend's share of ingestion cost.
2. **populate**: ``--chunks`` chunks written with ``store.write_document`` in documents of 100
   chunks (the shape the pipeline writes; synthetic English-like text and 384-d vectors, as in
   ``recall_latency.py``), split over four datasets holding 50 / 30 / 15 / 5 % of them.
3. **latency** at that size: ``recall(CHUNKS)`` and ``recall(CHUNKS_LEXICAL)`` over all four
   datasets (the real ONNX embedder embeds each query), and ``store.vector_search`` /
   ``store.lexical_search`` alone; warm, p50/p95 over ``--queries`` questions.
4. **filtered recall@10**: ``store.vector_search`` restricted to each dataset (and to all four),
   against exact top-10 by numpy over the same vectors; mean share of the exact top 10 found.

Vectors: random unit vectors are the worst case for any graph index (no structure at all, every
direction equally likely), unlike text embeddings, whose intrinsic dimension is low. The store is
therefore filled with *clustered* vectors by default — a mixture of 300 Gaussian clusters in a
48-dimensional latent space, mapped to 384 dimensions by a fixed random projection, plus
isotropic noise, L2-normalised (``--vectors random`` for the worst case). Queries are drawn the
same way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from _common import (
    REPO_ROOT,
    format_table,
    latency_summary,
    load_note,
    pin_cores,
    random_paragraph,
    write_json,
)
from recall_latency import CHUNKS_PER_DOC, DIM, MODEL, TextGenerator, build_write

SCRIPT = REPO_ROOT / "scripts" / "postgres-for-tests.sh"
SHARES = {"d50": 0.50, "d30": 0.30, "d15": 0.15, "d05": 0.05}
TOP_K = 10


class VectorSource:
    """Unit vectors: clustered (text-embedding-like) or uniformly random."""

    def __init__(self, kind: str, seed: int, latent: int = 48, clusters: int = 300) -> None:
        self.kind = kind
        self.rng = np.random.default_rng(seed)
        self.projection = self.rng.standard_normal((latent, DIM)).astype(np.float32)
        self.centres = self.rng.standard_normal((clusters, latent)).astype(np.float32) * 2.0

    def draw(self, n: int) -> np.ndarray:
        if self.kind == "random":
            rows = self.rng.standard_normal((n, DIM)).astype(np.float32)
        else:
            which = self.rng.integers(0, len(self.centres), size=n)
            latent = self.centres[which] + self.rng.standard_normal(
                (n, self.centres.shape[1])
            ).astype(np.float32)
            rows = latent @ self.projection
            rows += self.rng.standard_normal((n, DIM)).astype(np.float32) * 2.0
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        return rows


@dataclass
class Figures:
    backend: str
    remember_chunks_per_s: float = float("nan")
    populate_seconds: float = float("nan")
    populate_chunks_per_s: float = float("nan")
    timings: dict[str, dict[str, float]] = field(default_factory=dict)
    recall_at_10: dict[str, float] = field(default_factory=dict)
    first_recall_ms: float = float("nan")


# --- the PostgreSQL server -----------------------------------------------------------------------


@contextlib.contextmanager
def postgres_url(given: str | None) -> Any:
    """A base URL: the one given, or a throwaway server started (and stopped) here."""
    if given:
        yield given
        return
    directory = tempfile.mkdtemp(prefix="engramdb-pg.", dir="/tmp")
    started = subprocess.run(
        ["bash", str(SCRIPT), "start", directory], capture_output=True, text=True, check=False
    )
    if started.returncode != 0:
        raise SystemExit(f"could not start PostgreSQL: {started.stderr.strip()}")
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", directory], check=False)


def drop_bench_schemas(base: str) -> None:
    """Drop the schemas this script made on a server it did not start."""
    import psycopg

    with psycopg.connect(base.split("?")[0], autocommit=True) as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_%'"
        ).fetchall()
        for (schema,) in rows:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _schema_url(base: str, schema: str) -> str:
    parts = urlsplit(base)
    query = "&".join(q for q in (parts.query, f"schema={schema}") if q)
    return urlunsplit(parts._replace(query=query))


@contextlib.asynccontextmanager
async def engramdb_on(storage_url: str, embedder: str) -> AsyncIterator[None]:
    """Point engramdb at a storage URL ('' = a fresh embedded store) and an embedder."""
    import engramdb
    from engramdb.engine import get_engine, set_engine

    data_dir = Path(tempfile.mkdtemp(prefix="engramdb-bench-pg-"))
    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("engramdb_storage_url", storage_url)
    engramdb.config.set("embedding_provider", embedder)
    engramdb.config.set("embedding_dimensions", 384)
    try:
        yield
    finally:
        await get_engine().close()
        set_engine(None)
        subprocess.run(["rm", "-rf", str(data_dir)], check=False)


# --- measurements --------------------------------------------------------------------------------


async def measure_remember(storage_url: str, chunks: int, seed: int) -> float:
    import random

    import engramdb

    rng = random.Random(seed)
    docs = [
        "\n\n".join(random_paragraph(rng, 140, 215) for _ in range(4)) for _ in range(chunks // 4)
    ]
    async with engramdb_on(storage_url, "fake"):
        started = time.perf_counter()
        result = await engramdb.remember(docs, dataset_name="remember", self_improvement=False)
        elapsed = time.perf_counter() - started
    return float(result.counts["chunks"]) / elapsed


async def populate(
    total: int, gen: TextGenerator, source: VectorSource, progress: Any
) -> tuple[float, dict[str, tuple[list[Any], np.ndarray]]]:
    """Write ``total`` chunks over the datasets of SHARES; returns seconds and, per dataset,
    (chunk ids, vectors) for the exact ground truth."""
    from engramdb.engine import get_engine

    engine = get_engine()
    owner = await engine.resolve_user(None)
    stored: dict[str, tuple[list[Any], list[np.ndarray]]] = {}
    plan: list[str] = []
    for name, share in SHARES.items():
        plan += [name] * round(total * share / CHUNKS_PER_DOC)
    order = np.random.default_rng(5).permutation(len(plan))  # interleave the datasets
    datasets = {}
    for name in SHARES:
        ds = await engine.store.get_or_create_dataset(owner.id, name)
        await engine.store.set_dataset_embedding(ds.id, MODEL, DIM)
        datasets[name] = ds
        stored[name] = ([], [])
    started = time.perf_counter()
    for count, index in enumerate(order, start=1):
        name = plan[index]
        texts = [gen.chunk(int(gen.rng.integers(100, 181))) for _ in range(CHUNKS_PER_DOC)]
        vectors = source.draw(CHUNKS_PER_DOC)
        write = build_write(datasets[name].id, int(index), texts, vectors)
        if not await engine.store.write_document(write):
            raise RuntimeError("a synthetic document was a duplicate")
        ids, blocks = stored[name]
        ids += [v.node_id for v in write.vectors]
        blocks.append(vectors)
        if (count * CHUNKS_PER_DOC) % 20_000 == 0:
            progress(f"  {count * CHUNKS_PER_DOC:,} chunks written")
    elapsed = time.perf_counter() - started
    return elapsed, {name: (ids, np.vstack(blocks)) for name, (ids, blocks) in stored.items()}


async def measure_latency(queries: list[str], warmup: int, figures: Figures) -> None:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine

    engine = get_engine()
    embedder = engine.embedder
    await embedder.embed(["load the model first"])
    names = list(SHARES)
    owner = await engine.resolve_user(None)
    ids = [d.id for d in await engine.store.list_datasets(owner.id) if d.name in SHARES]
    t0 = time.perf_counter()
    await engramdb.recall(queries[0], SearchType.CHUNKS, datasets=names, top_k=15)
    figures.first_recall_ms = (time.perf_counter() - t0) * 1000
    for q in queries[:warmup]:
        await engramdb.recall(q, SearchType.CHUNKS, datasets=names, top_k=15)
        await engramdb.recall(q, SearchType.CHUNKS_LEXICAL, datasets=names, top_k=15)
    timings: dict[str, list[float]] = {
        k: [] for k in ("recall_chunks", "vector_search", "recall_lexical", "lexical_search")
    }
    for q in queries[warmup:]:
        t0 = time.perf_counter()
        await engramdb.recall(q, SearchType.CHUNKS, datasets=names, top_k=15)
        timings["recall_chunks"].append(time.perf_counter() - t0)
        vector = (await embedder.embed([q]))[0]
        t0 = time.perf_counter()
        await engine.store.vector_search("chunks", vector, ids, 15)
        timings["vector_search"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await engramdb.recall(q, SearchType.CHUNKS_LEXICAL, datasets=names, top_k=15)
        timings["recall_lexical"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await engine.store.lexical_search("chunks", q, ids, 15)
        timings["lexical_search"].append(time.perf_counter() - t0)
    figures.timings = {k: latency_summary(v) for k, v in timings.items()}


async def measure_filtered_recall(
    truth: dict[str, tuple[list[Any], np.ndarray]], source: VectorSource, n_queries: int
) -> dict[str, float]:
    from engramdb.engine import get_engine

    engine = get_engine()
    owner = await engine.resolve_user(None)
    by_name = {d.name: d.id for d in await engine.store.list_datasets(owner.id)}
    queries = source.draw(n_queries)
    scopes: dict[str, list[str]] = {name: [name] for name in SHARES}
    scopes["all four"] = list(SHARES)
    out: dict[str, float] = {}
    for label, names in scopes.items():
        ids = [i for name in names for i in truth[name][0]]
        matrix = np.vstack([truth[name][1] for name in names])
        found = 0
        for query in queries:
            exact = np.argsort(1.0 - matrix @ query, kind="stable")[:TOP_K]
            hits = await engine.store.vector_search(
                "chunks", query, [by_name[n] for n in names], TOP_K
            )
            found += len({ids[i] for i in exact} & {h.node_id for h in hits})
        out[label] = found / (TOP_K * len(queries))
    return out


async def run_backend(
    backend: str, storage_url: str, args: argparse.Namespace, progress: Any
) -> Figures:
    figures = Figures(backend)
    progress(f"{backend}: remember() of {args.remember_chunks:,} chunks (fake embedder)")
    figures.remember_chunks_per_s = await measure_remember(
        storage_url, args.remember_chunks, args.seed
    )
    gen = TextGenerator(args.seed)
    source = VectorSource(args.vectors, args.seed + 1)
    queries = [gen.question() for _ in range(args.queries + args.warmup)]
    second_url = storage_url
    if storage_url:
        second_url = _schema_url(storage_url.split("?")[0], f"bench_{uuid.uuid4().hex[:8]}")
    async with engramdb_on(second_url, "onnx"):
        progress(f"{backend}: populating {args.chunks:,} chunks")
        seconds, truth = await populate(args.chunks, gen, source, progress)
        figures.populate_seconds = seconds
        figures.populate_chunks_per_s = args.chunks / seconds
        progress(f"{backend}: {args.chunks:,} chunks in {seconds:.0f} s; measuring latency")
        await measure_latency(queries, args.warmup, figures)
        progress(f"{backend}: filtered recall@10")
        figures.recall_at_10 = await measure_filtered_recall(truth, source, args.recall_queries)
    return figures


def report(results: Sequence[Figures], args: argparse.Namespace) -> None:
    print(f"\n{args.chunks:,} chunks ({args.vectors} vectors), {args.queries} timed queries\n")
    print(
        format_table(
            ["backend", "remember chunks/s", "populate s", "populate chunks/s", "first recall ms"],
            [
                [
                    f.backend,
                    f.remember_chunks_per_s,
                    f.populate_seconds,
                    f.populate_chunks_per_s,
                    f.first_recall_ms,
                ]
                for f in results
            ],
        )
    )
    print("\nLatency in ms (p50 / p95), warm")
    keys = ("recall_chunks", "vector_search", "recall_lexical", "lexical_search")
    print(
        format_table(
            [
                "operation",
                *(f"{f.backend} p50" for f in results),
                *(f"{f.backend} p95" for f in results),
            ],
            [
                [
                    key,
                    *(f.timings[key]["p50_ms"] for f in results),
                    *(f.timings[key]["p95_ms"] for f in results),
                ]
                for key in keys
            ],
        )
    )
    print("\nFiltered vector search: recall@10 against exact top 10")
    labels = list(results[0].recall_at_10)
    sizes = {name: round(args.chunks * share) for name, share in SHARES.items()}
    sizes["all four"] = args.chunks
    print(
        format_table(
            ["datasets searched", "chunks", *(f.backend for f in results)],
            [[label, sizes[label], *(f.recall_at_10[label] for f in results)] for label in labels],
        )
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("ENGRAMDB_TEST_POSTGRES_URL"))
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--remember-chunks", type=int, default=2_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--recall-queries", type=int, default=200)
    parser.add_argument("--vectors", choices=("clustered", "random"), default="clustered")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--cores", type=int, default=2, help="pin to N cores (0 = all)")
    parser.add_argument("--json", dest="json_path", metavar="OUT.json")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cores = pin_cores(args.cores)
    print(f"pinned to CPUs {cores}; {load_note(args.cores)}")

    def progress(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    results: list[Figures] = []
    started = time.perf_counter()
    with postgres_url(args.url if "postgres" in backends else "unused") as base:
        for backend in backends:
            url = ""
            if backend == "postgres":
                url = _schema_url(base, f"bench_{uuid.uuid4().hex[:8]}")
            try:
                results.append(asyncio.run(run_backend(backend, url, args, progress)))
            finally:
                if backend == "postgres" and args.url:
                    drop_bench_schemas(base)
    print(f"\nwall time {time.perf_counter() - started:.0f} s; {load_note(args.cores, 'at end')}")
    report(results, args)
    write_json(args.json_path, {"args": vars(args), "results": [vars(f) for f in results]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
