"""remember() never stores a mistyped path as a memory: a string that looks like a path but
names nothing is refused (nothing of the call is written), engramdb.Text(...) stores it as text
on purpose, and a folder's unsupported files come back in RememberResult.skipped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import engramdb
from engramdb.cli import app
from engramdb.engine import get_engine
from engramdb.ingest.text import Text


async def _stored_texts() -> list[str]:
    store = get_engine().store
    if not await get_engine().database_exists():
        return []
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "main_dataset")
    if dataset is None:
        return []
    return [d.name for d in await store.list_data(dataset.id)]


@pytest.mark.parametrize(
    "missing",
    ["./notes/", "./nonexistent.txt", "notes.md", "~/no-such.pdf", "~no-such-user/notes.md"],
)
async def test_a_missing_path_is_an_error_and_nothing_is_written(missing: str) -> None:
    refused = r"no such file or directory exists"
    with pytest.raises(engramdb.EngramValidationError, match=refused) as e:
        await engramdb.remember(["A real note about owls.", missing], self_improvement=False)
    assert repr(missing) in str(e.value) and "engramdb.Text(" in str(e.value)
    assert await _stored_texts() == []


async def test_text_stores_a_path_looking_string_on_purpose() -> None:
    result = await engramdb.remember(Text("./notes/"), self_improvement=False)
    assert result.counts["documents"] == 1
    found = await engramdb.recall("notes", engramdb.SearchType.CHUNKS_LEXICAL)
    assert [r.text for r in found] == ["./notes/"]


async def test_a_folders_unsupported_files_are_listed_as_skipped(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "deep").mkdir(parents=True)
    (notes / "owls.md").write_text("Owls hunt at night.", encoding="utf-8")
    (notes / "deep" / "slides.pptx").write_bytes(b"PK\x03\x04")
    (notes / "README").write_text("no extension", encoding="utf-8")
    (notes / ".hidden.docx").write_bytes(b"ignored")
    os.symlink(notes / "deep", notes / "link")

    result = await engramdb.remember(str(notes), self_improvement=False)

    assert result.counts["documents"] == 1
    skipped = {(Path(s.path).relative_to(notes).as_posix(), s.reason) for s in result.skipped}
    assert {p for p, _ in skipped} == {"README", "deep/slides.pptx", "link"}
    reasons = dict(skipped)
    assert reasons["deep/slides.pptx"].startswith("unsupported file type '.pptx' (supported: ")
    assert reasons["README"].startswith("no file extension")
    assert "not followed" in reasons["link"]


def test_cli_remember_of_a_missing_folder_fails_with_the_message() -> None:
    out = CliRunner().invoke(app, ["remember", "./missing/"])
    assert out.exit_code != 0
    assert "'./missing/' looks like a path" in out.output
    assert "engramdb.Text(" in out.output
