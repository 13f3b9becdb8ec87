"""forget of one document and of a whole large dataset, on a store built once and reused.

Run from the repository root::

    .venv/bin/python bench/forget.py --store-dir /tmp/forget-100k            # SQLite, 100k
    .venv/bin/python bench/forget.py --store-dir /tmp/forget-100k --baseline-src /work/main/src
    .venv/bin/python bench/forget.py --backend postgres --chunks 20000

The template store is filled once (``recall_latency.populate`` with ``graph=True``: 100 chunks
per document, 4 entities per chunk with hub skew, relations, summaries, random vectors; the
fake embedder is recorded on the dataset), then ``improve()`` derives its global context index
and one recall builds the approximate vector index files, so the forget meets every kind of row
a real dataset has. A second small dataset ``kept`` must survive. On SQLite the template
directory is kept in ``--store-dir`` and reused by later runs (delete it to rebuild); each
measurement forgets a fresh copy of it. On PostgreSQL a throwaway server is started, the
template is a database, and each measurement forgets a ``CREATE DATABASE ... TEMPLATE`` clone.

Each measurement runs in a fresh process (``--src`` on its ``sys.path`` first, so a baseline
tree's code can be timed in the same run): open the engine and recall once, then time
``forget(data_id=...)`` of one document and ``forget(dataset=...)`` of the rest, then check the
``kept`` dataset is whole and the store passes ``check_integrity``.
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

from _common import (
    REPO_ROOT,
    add_code_trees,
    code_trees,
    load_note,
    pin_cores,
    tree_env,
    write_json,
)
from recall_latency import DATASET  # the dataset recall_latency.populate fills

KEPT = "kept"
SCRIPT = REPO_ROOT / "scripts" / "postgres-for-tests.sh"


def configure(data_dir: Path, storage_url: str) -> None:
    import engramdb

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("engramdb_storage_url", storage_url)
    engramdb.config.set("embedding_provider", "fake")
    engramdb.config.set("embedding_dimensions", 384)


async def build(chunks: int) -> dict[str, float]:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine, set_engine
    from recall_latency import TextGenerator, populate

    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.get_or_create_dataset(owner.id, DATASET)
    await engine.store.set_dataset_embedding(dataset.id, engine.embedder.model_name, 384)
    gen, rng = TextGenerator(seed=11), np.random.default_rng(11)
    figures = {"populate_s": await populate(gen, rng, 0, chunks, (60, 120), print, graph=True)}
    await engine.close()
    set_engine(None)
    t0 = time.perf_counter()
    await engramdb.improve(DATASET)
    figures["improve_s"] = time.perf_counter() - t0
    for i in range(5):
        await engramdb.remember(
            f"Kept note {i}: Alice met Bob.", dataset_name=KEPT, self_improvement=False
        )
    await engramdb.recall("warm the vector index", SearchType.CHUNKS, datasets=[DATASET])
    await get_engine().close()
    set_engine(None)
    return figures


async def measure() -> dict[str, Any]:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine

    engine = get_engine()
    await engramdb.recall("open the store", SearchType.CHUNKS, datasets=[DATASET, KEPT])
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, DATASET)
    kept = await engine.store.find_dataset(owner.id, KEPT)
    assert dataset is not None and kept is not None
    kept_nodes = await engine.store.count_nodes([kept.id])
    nodes = await engine.store.count_nodes([dataset.id])
    items = await engine.store.list_data(dataset.id)
    one = items[len(items) // 2]
    t0 = time.perf_counter()
    await engramdb.forget(data_id=one.id)
    forget_one = time.perf_counter() - t0
    t0 = time.perf_counter()
    await engramdb.forget(dataset=DATASET)
    forget_all = time.perf_counter() - t0
    assert await engine.store.find_dataset(owner.id, DATASET) is None
    assert await engine.store.count_nodes([kept.id]) == kept_nodes
    hits = await engramdb.recall("Alice", SearchType.CHUNKS, datasets=[KEPT])
    assert hits, "the kept dataset lost its chunks"
    report = await engine.store.check_integrity()
    await engine.close()
    return {
        "nodes": nodes,
        "forget_document_s": forget_one,
        "forget_dataset_s": forget_all,
        "integrity_ok": bool(report.ok),
    }


def child(args: argparse.Namespace) -> None:
    configure(Path(args.data_dir), args.storage_url)
    fn = build(args.chunks) if args.child == "build" else measure()
    print("RESULT " + json.dumps(asyncio.run(fn)), flush=True)


def run_child(args: argparse.Namespace, phase: str, data_dir: Path, url: str, src: str) -> Any:
    cmd = [sys.executable, __file__, "--child", phase, "--data-dir", str(data_dir)]
    cmd += ["--storage-url", url, "--chunks", str(args.chunks)]
    env = tree_env(src)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{phase} phase failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def _psql(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def _database_url(base: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(base)._replace(path=f"/{name}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--store-dir", help="SQLite: keep the template store here and reuse it")
    add_code_trees(parser)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json")
    parser.add_argument("--child", choices=["build", "measure"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    cores = pin_cores(args.cores)
    print(f"pinned to cores {cores}; {load_note(args.cores)}", flush=True)
    # The template is built with the oldest code timed, so every tree can open it.
    build_src = args.baseline_src or args.src
    trees = code_trees(args)
    figures: dict[str, Any] = {"chunks": args.chunks, "backend": args.backend, "runs": []}
    if args.backend == "sqlite":
        root = Path(args.store_dir or tempfile.mkdtemp(prefix="forget-bench-"))
        template = root / "template"
        if not (template / "built.json").exists():
            shutil.rmtree(template, ignore_errors=True)
            template.mkdir(parents=True)
            print(f"building the {args.chunks:,}-chunk template in {template}", flush=True)
            built = run_child(args, "build", template, "", build_src)
            (template / "built.json").write_text(json.dumps(built))
        figures["build"] = json.loads((template / "built.json").read_text())
        for _ in range(args.repeats):
            for label, src in trees:
                scratch = root / "run"
                shutil.rmtree(scratch, ignore_errors=True)
                shutil.copytree(template, scratch)
                result = run_child(args, "measure", scratch, "", src)
                figures["runs"].append({"code": label, **result})
                print(f"{label}: {result}", flush=True)
                shutil.rmtree(scratch, ignore_errors=True)
        if not args.store_dir:
            shutil.rmtree(root, ignore_errors=True)
    else:
        pg_dir = tempfile.mkdtemp(prefix="engramdb-pg.", dir="/tmp")
        started = subprocess.run(
            ["bash", str(SCRIPT), "start", pg_dir], capture_output=True, text=True, check=False
        )
        if started.returncode != 0:
            raise SystemExit(f"could not start PostgreSQL: {started.stderr.strip()}")
        base = started.stdout.strip().splitlines()[-1]
        scratch_dir = Path(tempfile.mkdtemp(prefix="forget-bench-pg-"))
        try:
            _psql(base, "CREATE DATABASE forget_template")
            print(f"building the {args.chunks:,}-chunk template database", flush=True)
            template_url = _database_url(base, "forget_template")
            figures["build"] = run_child(args, "build", scratch_dir, template_url, build_src)
            for i in range(args.repeats):
                for label, src in trees:
                    name = f"forget_run_{label}_{i}"
                    _psql(base, f"CREATE DATABASE {name} TEMPLATE forget_template")
                    url = _database_url(base, name)
                    result = run_child(args, "measure", scratch_dir, url, src)
                    figures["runs"].append({"code": label, **result})
                    print(f"{label}: {result}", flush=True)
                    _psql(base, f"DROP DATABASE {name}")
        finally:
            subprocess.run(["bash", str(SCRIPT), "stop", pg_dir], check=False)
            shutil.rmtree(scratch_dir, ignore_errors=True)
    print(f"{args.backend}, {args.chunks:,} chunks; template build {figures['build']}")
    for run in figures["runs"]:
        print(
            f"  {run['code']:>8}: forget one document {run['forget_document_s']:.2f} s, "
            f"forget the dataset ({run['nodes']:,} nodes) {run['forget_dataset_s']:.2f} s, "
            f"integrity ok: {run['integrity_ok']}"
        )
    print(load_note(args.cores, "at end"))
    write_json(args.json, figures)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
