"""Issue 14 item 7: after a clean stop the database file alone holds what was committed (the
write-ahead log is checkpointed on close), so copying "the one file" is a whole copy."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import engramdb


async def test_a_copy_of_the_database_file_alone_holds_every_document(tmp_path: Path) -> None:
    """Another process still has the file open (a second server, a CLI): SQLite then leaves the
    WAL in place when we close, unless close checkpoints it."""
    facts = [f"Fact number {i}: owls hunt at night in forest {i}." for i in range(6)]
    async with engramdb.Engine(data_dir=tmp_path / "live") as mem:
        for fact in facts:
            await mem.remember(fact, self_improvement=False)
        other = sqlite3.connect(tmp_path / "live" / "engramdb.sqlite3")
        other.execute("SELECT count(*) FROM sqlite_master").fetchone()
    (tmp_path / "copy").mkdir()
    shutil.copy(tmp_path / "live" / "engramdb.sqlite3", tmp_path / "copy" / "engramdb.sqlite3")
    other.close()
    async with engramdb.Engine(data_dir=tmp_path / "copy") as copy:
        found = await copy.recall("owls", engramdb.SearchType.CHUNKS, top_k=20)
    assert sorted(r.text for r in found) == sorted(facts)
