"""Issue 14 item 7: ``engramdb backup`` takes a consistent copy of a store in use, ``engramdb
restore`` puts it back, ``engramdb check`` verifies SQLite's pages and the store's invariants."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

import engramdb
from engramdb.cli import app

runner = CliRunner()
FACTS = [f"Fact number {i}: owls hunt at night in forest {i}." for i in range(8)]


def test_a_backup_taken_while_writing_holds_every_committed_document(tmp_path: Path) -> None:
    async def write_and_back_up() -> None:
        async with engramdb.Engine(data_dir=tmp_path / "live") as mem:
            for fact in FACTS[:4]:
                await mem.remember(fact, self_improvement=False)
            writing = asyncio.ensure_future(
                asyncio.gather(*(mem.remember(f, self_improvement=False) for f in FACTS[4:]))
            )
            await mem.store.backup(tmp_path / "backup.sqlite3")  # the store is in use
            await writing

    async def read_copy() -> set[str]:
        async with engramdb.Engine(data_dir=tmp_path / "copy") as copy:
            found = await copy.recall("owls", engramdb.SearchType.CHUNKS, top_k=20)
        return {r.text for r in found}

    asyncio.run(write_and_back_up())
    # the copy is one self-contained file: no -wal beside it
    assert not (tmp_path / "backup.sqlite3-wal").exists()
    restored = runner.invoke(
        app, ["restore", str(tmp_path / "backup.sqlite3"), "--data-dir", str(tmp_path / "copy")]
    )
    assert restored.exit_code == 0, restored.output
    checked = runner.invoke(app, ["check", "--data-dir", str(tmp_path / "copy")])
    assert checked.exit_code == 0 and "ok: no violation found" in checked.output
    texts = asyncio.run(read_copy())
    assert set(FACTS[:4]) <= texts  # committed before the backup began
    assert texts <= set(FACTS)  # and never a half document


def test_the_commands_refuse_what_would_lose_data(tmp_path: Path) -> None:
    live, dest = tmp_path / "live", tmp_path / "b.sqlite3"
    assert runner.invoke(app, ["remember", "Owls hunt.", "--data-dir", str(live)]).exit_code == 0
    assert runner.invoke(app, ["backup", str(dest), "--data-dir", str(live)]).exit_code == 0
    again = runner.invoke(app, ["backup", str(dest), "--data-dir", str(live)])
    assert again.exit_code == 2 and "already exists" in again.output
    onto = runner.invoke(app, ["restore", str(dest), "--data-dir", str(live)])
    assert onto.exit_code == 1 and "pass --yes" in onto.output  # no TTY: nobody to ask
    foreign = tmp_path / "notes.sqlite3"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (x)").connection.close()
    target = tmp_path / "fresh"
    refused = runner.invoke(app, ["restore", str(foreign), "--data-dir", str(target)])
    assert refused.exit_code == 2 and "not an engramdb database" in refused.output
    assert not (target / "engramdb.sqlite3").exists()  # nothing written
    empty = runner.invoke(app, ["backup", str(tmp_path / "x.sqlite3"), "--data-dir", str(target)])
    assert empty.exit_code == 2 and "nothing to back up" in empty.output
    replaced = runner.invoke(app, ["restore", str(dest), "--overwrite", "--data-dir", str(live)])
    assert replaced.exit_code == 0


def test_check_reports_a_broken_invariant_and_fails(tmp_path: Path) -> None:
    live = tmp_path / "live"
    assert runner.invoke(app, ["remember", "Owls hunt.", "--data-dir", str(live)]).exit_code == 0
    conn = sqlite3.connect(live / "engramdb.sqlite3")
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DELETE FROM data")  # chunks now point at no document
    conn.commit()
    conn.close()
    checked = runner.invoke(app, ["check", "--data-dir", str(live)])
    assert checked.exit_code == 1
    assert "chunk node without an existing data record" in checked.output


def test_restore_drops_the_replaced_databases_vector_index_files(tmp_path: Path) -> None:
    """The ANN index files beside a database (``<db>.ann/``) describe that database: a restore
    over it removes them, so the restored copy builds its own instead of reading stale ones."""
    live, dest = tmp_path / "live", tmp_path / "b.sqlite3"
    assert runner.invoke(app, ["remember", "Owls hunt.", "--data-dir", str(live)]).exit_code == 0
    assert runner.invoke(app, ["backup", str(dest), "--data-dir", str(live)]).exit_code == 0
    stale = live / "engramdb.sqlite3.ann"
    stale.mkdir()
    (stale / "old.meta").write_text("{}")
    replaced = runner.invoke(app, ["restore", str(dest), "--overwrite", "--data-dir", str(live)])
    assert replaced.exit_code == 0, replaced.output
    assert not stale.exists()
