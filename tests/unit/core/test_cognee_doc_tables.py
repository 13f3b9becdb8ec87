"""docs/migrating-from-cognee.md's generated tables match the code they are derived from."""

from __future__ import annotations

from pathlib import Path

from engramdb.compat.cognee.doc_tables import update_document

DOC = Path(__file__).resolve().parents[3] / "docs" / "migrating-from-cognee.md"


def test_generated_tables_are_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "<!-- generated: modules -->" in text and "<!-- generated: refused -->" in text
    assert update_document(text) == text, (
        "docs/migrating-from-cognee.md is out of date: run "
        "`python -m engramdb.compat.cognee.doc_tables docs/migrating-from-cognee.md`"
    )
