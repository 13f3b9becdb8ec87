"""The REST server on loopback: recall latency over HTTP vs in-process, and a concurrent load run.

Run from the repository root (needs the ``server`` extra)::

    .venv/bin/python bench/server_load.py                         # 100k chunks, 60 s load
    .venv/bin/python bench/server_load.py --chunks 10000 --duration 20 --queries 100

1. **Latency.** A fresh data directory gets ``--chunks`` chunks of synthetic English-like text
   (``store.write_document`` with 100-chunk documents and random unit 384-d vectors, exactly as
   ``bench/recall_latency.py`` fills its store) in a dataset of a bench user; recall embeds each
   query with the real ONNX model. ``recall(q, CHUNKS)`` is timed in-process first, then the same
   queries through remote mode (``engramdb.serve(url, api_key=...)``) against ``engramdb serve``
   running as a subprocess on 127.0.0.1. Target: remote p50 at most 15 ms above in-process.
2. **Load.** ``--clients`` concurrent clients (each its own user and API key, raw HTTP) loop for
   ``--duration`` seconds: remember a unique text into their dataset, then recall a token of one
   of their earlier texts (CHUNKS_LEXICAL). Every non-2xx answer or transport error counts as an
   error. After the run the server is stopped and every acknowledged document is looked up in
   the store: a missing one is a lost document. Target: 0 errors, 0 lost documents.

Everything is bounded in time and stays on loopback; the data directory is deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import numpy as np

from _common import REPO_ROOT, format_table, latency_summary, load_note, pin_cores
from recall_latency import CHUNKS_PER_DOC, DIM, MODEL, TextGenerator, build_write

DATASET = "latency"
TARGET_OVERHEAD_MS = 15.0


@dataclass
class LoadFigures:
    remembered: int = 0
    recalled: int = 0
    errors: list[str] = field(default_factory=list)
    data_ids: list[UUID] = field(default_factory=list)
    remember_s: list[float] = field(default_factory=list)
    recall_s: list[float] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def prepare(chunks: int, seed: int, clients: int, progress: Any) -> dict[str, Any]:
    """Users and keys, and the latency dataset filled with ``chunks`` chunks."""
    from engramdb import access
    from engramdb.engine import get_engine

    engine = get_engine()
    user = await access.create_user("bench@example.com")
    _, key = await access.create_api_key(user.id, name="bench")
    load_keys = []
    for i in range(clients):
        load_user = await access.create_user(f"load{i}@example.com")
        load_keys.append((await access.create_api_key(load_user.id, name="load"))[1])
    dataset = await engine.store.get_or_create_dataset(user.id, DATASET)
    await engine.store.set_dataset_embedding(dataset.id, MODEL, DIM)
    gen = TextGenerator(seed)
    rng = np.random.default_rng(seed + 1)
    started = time.perf_counter()
    for doc in range(0, chunks, CHUNKS_PER_DOC):
        n = min(CHUNKS_PER_DOC, chunks - doc)
        texts = [gen.chunk(int(rng.integers(100, 181))) for _ in range(n)]
        vectors = rng.standard_normal((n, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        await engine.store.write_document(
            build_write(dataset.id, doc // CHUNKS_PER_DOC, texts, vectors)
        )
        if (doc + n) % 20_000 == 0:
            progress(f"populated {doc + n:,} chunks")
    progress(f"{chunks:,} chunks written in {time.perf_counter() - started:.1f}s")
    return {"user": user, "key": key, "load_keys": load_keys, "gen": gen}


async def time_recalls(queries: list[str], warmup: int, **kwargs: Any) -> list[float]:
    import engramdb

    for q in queries[:warmup]:
        await engramdb.recall(q, engramdb.SearchType.CHUNKS, datasets=[DATASET], **kwargs)
    out = []
    for q in queries[warmup:]:
        t0 = time.perf_counter()
        results = await engramdb.recall(q, engramdb.SearchType.CHUNKS, datasets=[DATASET], **kwargs)
        out.append(time.perf_counter() - t0)
        assert results, "recall found nothing"
    return out


def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, ENGRAMDB_DATA_DIR=str(data_dir), EMBEDDING_PROVIDER="onnx")
    cmd = [sys.executable, "-c", "from engramdb.cli import main; main()", "serve"]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port)],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start within 60 s")


async def load_client(url: str, key: str, index: int, until: float, figures: LoadFigures) -> None:
    import httpx

    rng = random.Random(index)
    tokens: list[str] = []
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client:
        n = 0
        while time.monotonic() < until:
            token = f"tok{uuid4().hex[:12]}"
            text = f"Client {index} note {n}: the marker {token} belongs to this document."
            t0 = time.perf_counter()
            try:
                r = await client.post(
                    "/api/v1/remember", json={"data": text, "dataset_name": f"load{index}"}
                )
                if r.status_code != 200:
                    figures.errors.append(f"remember {r.status_code}: {r.text[:200]}")
                else:
                    figures.remembered += 1
                    figures.data_ids.extend(UUID(d) for d in r.json()["data_ids"])
                    figures.remember_s.append(time.perf_counter() - t0)
                    tokens.append(token)
                wanted = rng.choice(tokens) if tokens else token
                t0 = time.perf_counter()
                r = await client.post(
                    "/api/v1/recall",
                    json={"query_text": wanted, "query_type": "CHUNKS_LEXICAL", "top_k": 3},
                )
                if r.status_code != 200:
                    figures.errors.append(f"recall {r.status_code}: {r.text[:200]}")
                elif tokens and not any(wanted in hit.get("text", "") for hit in r.json()):
                    figures.errors.append(f"recall did not find {wanted}")
                else:
                    figures.recalled += 1
                    figures.recall_s.append(time.perf_counter() - t0)
            except httpx.HTTPError as exc:
                figures.errors.append(f"{type(exc).__name__}: {exc}")
            n += 1


async def count_lost(data_ids: list[UUID]) -> int:
    from engramdb.engine import get_engine, set_engine

    set_engine(None)
    store = get_engine().store
    lost = 0
    for data_id in data_ids:
        lost += await store.get_data(data_id) is None
    return lost


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200, help="timed recalls per mode")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60.0, help="load run, seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cores", type=int, default=2, help="pin to N cores (0 = all)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cores = pin_cores(args.cores)
    wall = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"  [{time.perf_counter() - wall:6.1f}s] {msg}", flush=True)

    print(f"engramdb server on loopback — cores: {len(cores)} {cores}")
    print(load_note(len(cores)))
    data_dir = Path(tempfile.mkdtemp(prefix="engramdb-server-bench-"))
    import engramdb
    from engramdb.engine import get_engine, set_engine

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("embedding_provider", "onnx")
    engramdb.config.set("embedding_dimensions", DIM)
    proc: subprocess.Popen[bytes] | None = None
    try:
        setup = asyncio.run(prepare(args.chunks, args.seed, args.clients, progress))
        gen: TextGenerator = setup["gen"]
        queries = [gen.question() for _ in range(args.queries + args.warmup)]

        async def local() -> list[float]:
            await get_engine().close()
            set_engine(None)
            return await time_recalls(queries, args.warmup, user=setup["user"])

        local_s = asyncio.run(local())
        progress("in-process recalls timed")
        set_engine(None)
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        proc = start_server(data_dir, port)
        progress(f"server started on {url}")

        async def remote() -> list[float]:
            await engramdb.serve(url, api_key=setup["key"])
            try:
                return await time_recalls(queries, args.warmup)
            finally:
                await engramdb.disconnect()

        remote_s = asyncio.run(remote())
        progress("remote recalls timed")
        here, there = latency_summary(local_s), latency_summary(remote_s)
        overhead = there["p50_ms"] - here["p50_ms"]
        print(f"\nrecall CHUNKS at {args.chunks:,} chunks, {args.queries} queries (ms)")
        print(
            format_table(
                ["mode", "p50", "p95"],
                [
                    ["in-process", f"{here['p50_ms']:.1f}", f"{here['p95_ms']:.1f}"],
                    ["HTTP (remote mode)", f"{there['p50_ms']:.1f}", f"{there['p95_ms']:.1f}"],
                ],
            )
        )
        verdict = "meets" if overhead <= TARGET_OVERHEAD_MS else "MISSES"
        print(f"p50 overhead {overhead:.1f} ms: {verdict} the target (≤ {TARGET_OVERHEAD_MS} ms)")

        figures = LoadFigures()

        async def load() -> None:
            until = time.monotonic() + args.duration
            await asyncio.gather(
                *(
                    load_client(url, key, i, until, figures)
                    for i, key in enumerate(setup["load_keys"])
                )
            )

        progress(f"load: {args.clients} clients for {args.duration:.0f}s")
        asyncio.run(load())
        proc.terminate()
        proc.wait(timeout=30)
        proc = None
        lost = asyncio.run(count_lost(figures.data_ids))
        rem, rec = latency_summary(figures.remember_s), latency_summary(figures.recall_s)
        print(
            f"\nload: {args.clients} clients × {args.duration:.0f}s — "
            f"{figures.remembered} remembers (p50 {rem['p50_ms']:.0f} ms, "
            f"p95 {rem['p95_ms']:.0f} ms), {figures.recalled} recalls (p50 {rec['p50_ms']:.0f} "
            f"ms, p95 {rec['p95_ms']:.0f} ms); errors {len(figures.errors)}, lost documents {lost}"
        )
        for error in figures.errors[:5]:
            print(f"  error: {error}")
        ok = overhead <= TARGET_OVERHEAD_MS and not figures.errors and lost == 0
        return 0 if ok else 1
    finally:
        if proc is not None:
            proc.kill()
        asyncio.run(get_engine().close())
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
