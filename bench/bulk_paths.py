"""Bulk paths of the store: document writes and lexical search, PostgreSQL beside SQLite, the
code under test beside a baseline tree's, in one run.

Run from the repository root::

    .venv/bin/python bench/bulk_paths.py --chunks 20000
    .venv/bin/python bench/bulk_paths.py --chunks 20000 --baseline-src /tmp/base/src  # vs. a tree

For each code tree (``--baseline-src`` first when given, then ``--src``) and each backend, a fresh
process (the tree's ``src`` first on ``sys.path``) fills a fresh store (SQLite: a new data
directory; PostgreSQL: a new schema on ``--url`` or on one throwaway server started here) with
``--chunks`` chunks through ``store.write_document`` exactly as ``bench/scale.py --graph`` does
(documents of ``--per-doc`` chunks with entities, relations and summaries), then times
``--queries`` warm ``store.lexical_search`` calls (chunk collection, the dataset, top 10) and
``recall(CHUNKS_LEXICAL)``. It prints documents/s and chunks/s of the writes, lexical p50/p95,
and the PostgreSQL / SQLite ratios of each tree.
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
from pathlib import Path
from typing import Any

from _common import (
    add_code_trees,
    code_trees,
    format_table,
    latency_summary,
    load_note,
    pin_cores,
    tree_env,
    write_json,
)

K = 10


async def measure(chunks: int, per_doc: int, queries: int, seed: int) -> dict[str, Any]:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine, set_engine
    from engramdb.graph_schema import CHUNK_COLLECTION
    from recall_latency import TextGenerator
    from scale import DATASET, populate

    populate_s = await populate(chunks, per_doc, seed, graph=True)  # closes its engine
    set_engine(None)
    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, DATASET)
    assert dataset is not None
    gen = TextGenerator(seed + 2)
    texts = [gen.question() for _ in range(queries + 1)]
    await engine.store.lexical_search(CHUNK_COLLECTION, texts[0], [dataset.id], K)
    store_times: list[float] = []
    recall_times: list[float] = []
    for text in texts[1:]:
        t0 = time.perf_counter()
        await engine.store.lexical_search(CHUNK_COLLECTION, text, [dataset.id], K)
        store_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await engramdb.recall(text, SearchType.CHUNKS_LEXICAL, datasets=[DATASET], top_k=K)
        recall_times.append(time.perf_counter() - t0)
    await engine.close()
    documents = -(-chunks // per_doc)
    return {
        "populate_s": populate_s,
        "documents_per_s": documents / populate_s,
        "chunks_per_s": chunks / populate_s,
        "lexical_search": latency_summary(store_times),
        "recall_lexical": latency_summary(recall_times),
    }


def child(args: argparse.Namespace) -> None:
    from scale import configure

    configure(Path(args.data_dir), False, args.storage_url)
    result = asyncio.run(measure(args.chunks, args.per_doc, args.queries, args.seed))
    print("RESULT " + json.dumps(result), flush=True)


def run_child(args: argparse.Namespace, src: str, url: str) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="bulk-paths-"))
    cmd = [sys.executable, __file__, "--child", "--data-dir", str(data_dir)]
    cmd += ["--storage-url", url, "--chunks", str(args.chunks), "--per-doc", str(args.per_doc)]
    cmd += ["--queries", str(args.queries), "--seed", str(args.seed)]
    env = tree_env(src)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"measurement failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return dict(json.loads(line.removeprefix("RESULT ")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--per-doc", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--url", help="PostgreSQL server (default: a throwaway one)")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    add_code_trees(parser)
    args = parser.parse_args()
    if args.child:
        return child(args)
    from postgres import _schema_url, postgres_url

    trees, backends = code_trees(args), [b.strip() for b in args.backends.split(",") if b.strip()]
    print(f"pinned to cores {pin_cores(args.cores)}; {load_note(args.cores)}", flush=True)
    runs: list[dict[str, Any]] = []
    server = postgres_url(args.url) if "postgres" in backends else contextlib.nullcontext("")
    with server as base:
        for label, src in trees:
            for backend in backends:
                url = _schema_url(base, f"bench_bulk_{os.getpid()}_{len(runs)}")
                result = run_child(args, src, url if backend == "postgres" else "")
                runs.append({"code": label, "backend": backend, **result})
                print(f"{label} {backend}: {json.dumps(result)}", flush=True)
    rows = [
        [
            r["code"],
            r["backend"],
            r["documents_per_s"],
            r["chunks_per_s"],
            r["lexical_search"]["p50_ms"],
            r["lexical_search"]["p95_ms"],
            r["recall_lexical"]["p50_ms"],
        ]
        for r in runs
    ]
    headers = ["code", "backend", "docs/s", "chunks/s", "lexical p50 ms", "p95 ms", "recall p50 ms"]
    print(f"\n{args.chunks:,} chunks with graph, {args.per_doc} per document")
    print(format_table(headers, rows))
    by = {(r["code"], r["backend"]): r for r in runs}
    for label, _ in trees:
        pg, lite = by.get((label, "postgres")), by.get((label, "sqlite"))
        if pg and lite:
            writes = pg["populate_s"] / lite["populate_s"]
            lexical = pg["lexical_search"]["p50_ms"] / lite["lexical_search"]["p50_ms"]
            print(
                f"{label}: PostgreSQL / SQLite: write time {writes:.2f}, lexical p50 {lexical:.2f}"
            )
    print(load_note(args.cores, "at end"))
    write_json(args.json, {"chunks": args.chunks, "runs": runs})


if __name__ == "__main__":
    main()
