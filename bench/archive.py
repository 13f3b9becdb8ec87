"""Export and import throughput of a generated embedded store (issue 15 item 6's figures).

Run from the repository root::

    .venv/bin/python bench/archive.py                  # 20,000 chunks (200 documents)
    .venv/bin/python bench/archive.py --chunks 100000

Populates a store with the synthetic chunks of ``bench/recall_latency.py`` (random vectors, no
model), then runs, each as the CLI runs it (one process each, the fake embedder configured):
``engramdb backup`` (the same-run baseline: a page copy of the same store), ``engramdb export``
(a directory, vectors excluded), ``engramdb export --with-vectors`` (a ``.zip``), ``engramdb
import`` of the ``.zip`` (its vectors reused) and of the directory (every vector embedded
again) into new data directories. Prints seconds, documents and nodes per second and sizes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_latency import CHUNKS_PER_DOC, DATASET, TextGenerator, build_write

DIM = 384
#: What every process of the run embeds with (the populated vectors carry its name).
ENV = {"EMBEDDING_PROVIDER": "fake", "EMBEDDING_DIMENSIONS": str(DIM)}


def _cli(*args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).with_name("engramdb")), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **ENV},
    )
    if done.returncode != 0:
        raise SystemExit(f"engramdb {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return time.perf_counter() - started


async def _populate(data_dir: Path, chunks: int) -> tuple[int, float]:
    import engramdb
    from engramdb.engine import get_engine

    os.environ.update(ENV)
    engramdb.config.set("engramdb_data_dir", data_dir)
    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.get_or_create_dataset(owner.id, DATASET)
    await engine.store.set_dataset_embedding(dataset.id, f"fake-hash-{DIM}", DIM)
    gen, rng = TextGenerator(42), np.random.default_rng(42)
    started = time.perf_counter()
    documents = 0
    for have in range(0, chunks, CHUNKS_PER_DOC):
        n = min(CHUNKS_PER_DOC, chunks - have)
        texts = [gen.chunk(int(rng.integers(100, 181))) for _ in range(n)]
        vectors = rng.standard_normal((n, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        await engine.store.write_document(build_write(dataset.id, documents, texts, vectors))
        documents += 1
    seconds = time.perf_counter() - started
    await engine.close()
    return documents, seconds


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engramdb-archive-") as tmp:
        root = Path(tmp)
        live = root / "live"
        documents, populated = asyncio.run(_populate(live, args.chunks))
        print(f"populated {documents:,} documents, {args.chunks:,} chunks in {populated:.1f} s")
        plain, full = root / "plain", root / "full.zip"
        runs = {
            "backup (baseline)": _cli("backup", str(root / "b.sqlite3"), "--data-dir", str(live)),
            "export": _cli("export", str(plain), "--data-dir", str(live)),
            "export --with-vectors (.zip)": _cli(
                "export", str(full), "--with-vectors", "--data-dir", str(live)
            ),
            "import .zip (vectors reused)": _cli(
                "import", str(full), "--data-dir", str(root / "a")
            ),
            "import (vectors embedded again)": _cli(
                "import", str(plain), "--data-dir", str(root / "b")
            ),
        }
        manifest = json.loads((plain / "manifest.json").read_text())
        nodes = manifest["files"]["nodes.jsonl"]["records"]
        database = sum(p.stat().st_size for p in live.glob("engramdb.sqlite3*"))
        print(f"store: {database / 1e6:.1f} MB; {nodes:,} nodes")
        print(
            f"archive: {_size(plain) / 1e6:.1f} MB (directory, no vectors), "
            f"{_size(full) / 1e6:.1f} MB (.zip with vectors)"
        )
        for name, seconds in runs.items():
            print(
                f"{name:34s} {seconds:7.2f} s  {documents / seconds:8.1f} documents/s  "
                f"{nodes / seconds:9.0f} nodes/s"
            )


if __name__ == "__main__":
    main()
