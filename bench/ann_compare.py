"""Compare approximate-nearest-neighbour libraries on synthetic 384-d vectors.

Run from the repository root (the candidates are optional: a missing one is skipped)::

    .venv/bin/pip install usearch hnswlib faiss-cpu sqlite-vec
    .venv/bin/python bench/ann_compare.py --n 200000 --queries 200

The vectors are clustered like sentence embeddings (unit vectors around a few thousand random
centres, plus noise), the queries are drawn the same way. For each library: build time, index
file size, open time (load from the file, memory-mapped where the library can), query p50/p95
for top-10, recall@10 against the exact numpy top-10, and the resident memory the process grew
by while opening and querying (a fresh subprocess per library, so figures do not mix).

Filtered search (engramdb searches per dataset) is reported as what each library offers; the
engramdb design keeps one index per (collection, dataset), so no library-side filter is needed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

DIM = 384
#: Noise around each centre (per coordinate, centres are standard normal): 0.5 keeps the
#: neighbourhoods of a sentence-embedding-like collection; 1.0 and above is close to uniform
#: random vectors, where no graph index reaches high recall cheaply.
NOISE = 0.35
K = 10
#: Candidates fetched per query; engramdb re-scores them exactly (float32 from SQLite) and
#: keeps the top K, so recall@10 is how many of the exact top 10 are among them.
CAND = 40
FILTERS = {
    "usearch": "no predicate from Python; one index per dataset",
    "hnswlib": "filter= Python callable per candidate (slow); or one index per dataset",
    "faiss": "IDSelector via SearchParametersHNSW (C++ predicate); or one index per dataset",
    "sqlite-vec": (
        "partition key / metadata columns in vec0 (exact scan only; needs a\n"
        "    Python whose sqlite3 can load extensions, which this one cannot)"
    ),
}


def clustered(n: int, seed: int, centres: int = 2000) -> np.ndarray:
    """``n`` unit vectors around ``centres`` fixed random centres."""
    rng = np.random.default_rng(seed)
    base = np.random.default_rng(7).standard_normal((centres, DIM)).astype(np.float32)
    which = rng.integers(0, centres, n)
    out = np.empty((n, DIM), dtype=np.float32)
    step = 100_000
    for start in range(0, n, step):
        sl = slice(start, min(n, start + step))
        block = base[which[sl]] + NOISE * rng.standard_normal((sl.stop - start, DIM)).astype(
            np.float32
        )
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[sl] = block
    return out


def rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def exact_top(data: np.ndarray, queries: np.ndarray) -> np.ndarray:
    sims = queries @ data.T
    top = np.argpartition(-sims, K - 1, axis=1)[:, :K]
    return top


# --- one library per subprocess -------------------------------------------------------------


def build(lib: str, data: np.ndarray, path: Path, dtype: str) -> None:
    n = data.shape[0]
    keys = np.arange(n, dtype=np.uint64)
    if lib == "usearch":
        from usearch.index import Index

        index = Index(ndim=DIM, metric="cos", dtype=dtype, connectivity=16, expansion_add=128)
        index.add(keys, data, threads=2)
        index.save(str(path))
    elif lib == "hnswlib":
        import hnswlib

        index = hnswlib.Index(space="cosine", dim=DIM)
        index.init_index(max_elements=n, ef_construction=128, M=16)
        index.set_num_threads(2)
        index.add_items(data, keys.astype(np.int64))
        index.save_index(str(path))
    elif lib == "faiss":
        import faiss

        faiss.omp_set_num_threads(2)
        if dtype == "f16":
            index = faiss.IndexHNSWSQ(DIM, faiss.ScalarQuantizer.QT_fp16, 16)
        else:
            index = faiss.IndexHNSWFlat(DIM, 16)
        index.hnsw.efConstruction = 128
        index.add(data)
        faiss.write_index(index, str(path))
    elif lib == "sqlite-vec":
        import sqlite3

        import sqlite_vec

        conn = sqlite3.connect(str(path))
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.execute(
            f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{DIM}] distance_metric=cosine)"
        )
        with conn:
            conn.executemany(
                "INSERT INTO v(rowid, embedding) VALUES (?, ?)",
                ((int(i), data[i].tobytes()) for i in range(n)),
            )
        conn.close()


def query(lib: str, path: Path, queries: np.ndarray, ef: int) -> dict[str, Any]:
    before = rss_mib()
    t0 = time.perf_counter()
    if lib == "usearch":
        from usearch.index import Index

        index = Index.restore(str(path), view=True)
        index.expansion_search = ef

        def one(q: np.ndarray) -> np.ndarray:
            return np.asarray(index.search(q, CAND, threads=1).keys)
    elif lib == "hnswlib":
        import hnswlib

        index = hnswlib.Index(space="cosine", dim=DIM)
        index.load_index(str(path))
        index.set_ef(ef)
        index.set_num_threads(1)

        def one(q: np.ndarray) -> np.ndarray:
            return np.asarray(index.knn_query(q, k=CAND)[0][0])
    elif lib == "faiss":
        import faiss

        faiss.omp_set_num_threads(1)
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP)
        index.hnsw.efSearch = ef
        qn = queries  # inner product on unit vectors == cosine ordering

        def one(q: np.ndarray) -> np.ndarray:
            return np.asarray(index.search(q.reshape(1, -1), CAND)[1][0])

        del qn
    else:
        import sqlite3

        import sqlite_vec

        conn = sqlite3.connect(str(path))
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)

        def one(q: np.ndarray) -> np.ndarray:
            rows = conn.execute(
                "SELECT rowid FROM v WHERE embedding MATCH ? AND k = ?", (q.tobytes(), CAND)
            ).fetchall()
            return np.asarray([r[0] for r in rows])

    open_s = time.perf_counter() - t0
    first_t = time.perf_counter()
    results = [one(queries[0])]
    first_s = time.perf_counter() - first_t
    times = []
    for q in queries[1:]:
        t = time.perf_counter()
        results.append(one(q))
        times.append(time.perf_counter() - t)
    times.sort()
    return {
        "open_ms": open_s * 1000,
        "first_query_ms": first_s * 1000,
        "p50_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * (len(times) - 1))] * 1000,
        "rss_growth_mib": rss_mib() - before,
        "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "results": [r.tolist() for r in results],
    }


def child(args: argparse.Namespace) -> None:
    work = Path(args.work)
    data = np.load(work / "data.npy", mmap_mode="r")
    queries = np.load(work / "queries.npy")
    path = work / f"{args.lib}-{args.dtype}.index"
    out: dict[str, Any] = {}
    if not path.exists():
        t0 = time.perf_counter()
        build(args.lib, np.ascontiguousarray(data), path, args.dtype)
        out["build_s"] = time.perf_counter() - t0
        out["file_mib"] = path.stat().st_size / 2**20
        print(json.dumps(out))
        return
    out.update(query(args.lib, path, queries, args.ef))
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--libs", default="usearch,hnswlib,faiss,sqlite-vec")
    parser.add_argument("--dtypes", default="f32,f16,i8", help="usearch/faiss storage types")
    parser.add_argument("--ef", type=int, default=64)
    parser.add_argument("--work", help="(internal) working directory of a child")
    parser.add_argument("--lib", help="(internal)")
    parser.add_argument("--dtype", default="f32", help="(internal)")
    args = parser.parse_args()
    if args.lib:
        child(args)
        return
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])
    with tempfile.TemporaryDirectory(prefix="ann-compare-") as tmp:
        work = Path(tmp)
        centres = max(100, args.n // 100)
        data = clustered(args.n, seed=1, centres=centres)
        queries = clustered(args.queries, seed=2, centres=centres)
        np.save(work / "data.npy", data)
        np.save(work / "queries.npy", queries)
        truth = exact_top(data, queries)
        t0 = time.perf_counter()
        for q in queries[:50]:
            sims = data @ q
            np.argpartition(-sims, K - 1)[:K]
        exact_ms = (time.perf_counter() - t0) / 50 * 1000
        del data
        print(f"n={args.n} dim={DIM} queries={args.queries} ef={args.ef} candidates={CAND}")
        print(f"exact numpy scan (float32, in memory): {exact_ms:.1f} ms/query")
        header = (
            f"{'library':<12}{'dtype':<6}{'build s':>9}{'file MiB':>10}{'open ms':>9}"
            f"{'1st ms':>8}{'p50 ms':>8}{'p95 ms':>8}{'rec@10':>8}{'rerank':>8}{'RSS+ MiB':>10}"
        )
        print(header)
        for lib in args.libs.split(","):
            dtypes = args.dtypes.split(",") if lib in ("usearch", "faiss") else ["f32"]
            if lib == "faiss":
                dtypes = [d for d in dtypes if d != "i8"]
            for dtype in dtypes:
                cmd = [sys.executable, __file__, "--work", tmp, "--lib", lib, "--dtype", dtype]
                cmd += ["--ef", str(args.ef)]
                built = subprocess.run(cmd, capture_output=True, text=True)
                if built.returncode != 0:
                    print(f"{lib:<12}{dtype:<6} failed: {built.stderr.strip()[-200:]}")
                    continue
                b = json.loads(built.stdout)
                run = subprocess.run(cmd, capture_output=True, text=True, check=True)
                r = json.loads(run.stdout)
                hits = [
                    len(set(res) & set(t.tolist()))
                    for res, t in zip(r["results"], truth, strict=True)
                ]
                raw = [
                    len(set(res[:K]) & set(t.tolist()))
                    for res, t in zip(r["results"], truth, strict=True)
                ]
                raw_recall = sum(raw) / (K * len(raw))
                recall = sum(hits) / (K * len(hits))
                print(
                    f"{lib:<12}{dtype:<6}{b['build_s']:>9.1f}{b['file_mib']:>10.0f}"
                    f"{r['open_ms']:>9.1f}{r['first_query_ms']:>8.2f}{r['p50_ms']:>8.2f}"
                    f"{r['p95_ms']:>8.2f}{raw_recall:>8.3f}{recall:>8.3f}{r['rss_growth_mib']:>10.0f}",
                    flush=True,
                )
        print("filtered search:")
        for lib, how in FILTERS.items():
            print(f"  {lib}: {how}")


if __name__ == "__main__":
    main()
