"""Backup, restore and check of a large embedded store (issue 14 item 7's figures).

Run from the repository root::

    .venv/bin/python bench/backup.py                 # 100,000 chunks (1,000 documents)
    .venv/bin/python bench/backup.py --chunks 10000

Populates a store with the synthetic chunks of ``bench/recall_latency.py`` (random vectors, no
model), then times ``engramdb backup`` of it, the size of the backup next to the live database
(with its ``-wal``), ``engramdb restore`` into a new data directory and ``engramdb check`` of the
restored store (which must report no violation), each as the CLI runs it (one process each).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_latency import TextGenerator, populate


def _cli(*args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).with_name("engramdb")), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"engramdb {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return time.perf_counter() - started


async def _populate(data_dir: Path, chunks: int) -> float:
    import engramdb
    from engramdb.engine import get_engine

    engramdb.config.set("engramdb_data_dir", data_dir)
    rng = np.random.default_rng(42)
    seconds = await populate(TextGenerator(42), rng, 0, chunks, (100, 180), lambda m: None)
    await get_engine().close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engramdb-backup-") as tmp:
        root = Path(tmp)
        live, copy, dest = root / "live", root / "copy", root / "backup.sqlite3"
        populated = asyncio.run(_populate(live, args.chunks))
        print(f"populated {args.chunks:,} chunks in {populated:.1f} s")
        database = sum(p.stat().st_size for p in live.glob("engramdb.sqlite3*"))
        backup_s = _cli("backup", str(dest), "--data-dir", str(live))
        restore_s = _cli("restore", str(dest), "--data-dir", str(copy))
        check_s = _cli("check", "--data-dir", str(copy))
        print(f"store (database + WAL): {database / 1e6:.1f} MB")
        print(f"backup:  {backup_s:.2f} s, {dest.stat().st_size / 1e6:.1f} MB")
        print(f"restore: {restore_s:.2f} s")
        print(f"check:   {check_s:.2f} s (no violation)")


if __name__ == "__main__":
    main()
