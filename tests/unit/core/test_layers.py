"""Layering: reading never imports writing (DESIGN.md §1.6).

Retrieval and sessions read what ingest and improve wrote through the modules below both
(``engramdb.artifacts``, ``engramdb.graph_schema``, ``engramdb.text``, ``engramdb.models``), never
through the writers themselves or the verbs; improve's stages never call the verbs. Every
import counts: top-level, function-local and ``TYPE_CHECKING``-only ones alike.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[3] / "src" / "engramdb"

READERS_MUST_NOT_IMPORT = ("engramdb.improvement", "engramdb.ingest", "engramdb.api")
IMPROVE_MUST_NOT_IMPORT = ("engramdb.api",)
EXEMPT: set[str] = set()


def _package_of(path: Path) -> list[str]:
    """The package a module's relative imports start from, e.g. ``engramdb.retrieval``."""
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return parts[:-1]


def _imported(source: str, package: list[str]) -> list[tuple[int, str]]:
    """Every module ``source`` imports (relative imports resolved against ``package``), with
    its line; ``from a import b`` counts as importing ``a`` and ``a.b``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _violations(package: str, forbidden: tuple[str, ...]) -> list[str]:
    out = []
    for path in sorted((SRC / package).rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in EXEMPT:
            continue
        for line, module in _imported(path.read_text(encoding="utf-8"), _package_of(path)):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                out.append(f"{rel}:{line} imports {module}")
    return sorted(set(out))


@pytest.mark.parametrize("package", ["retrieval", "sessions"])
def test_reading_never_imports_writing_or_the_verbs(package: str) -> None:
    assert _violations(package, READERS_MUST_NOT_IMPORT) == []


def test_the_code_graph_readers_never_import_its_writers() -> None:
    forbidden = (
        *READERS_MUST_NOT_IMPORT,
        "engramdb.code.index",
        "engramdb.code.remember",
        "engramdb.code.discover",
    )
    out = []
    for name in ("model", "snapshot", "operations", "lane"):
        path = SRC / "code" / f"{name}.py"
        for line, module in _imported(path.read_text(encoding="utf-8"), _package_of(path)):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                out.append(f"code/{name}.py:{line} imports {module}")
    assert out == []


def test_improve_never_imports_the_verbs() -> None:
    assert _violations("improvement", IMPROVE_MUST_NOT_IMPORT) == []


def test_the_scan_sees_every_kind_of_import() -> None:
    """The checker itself: plain, attribute-style, function-local, TYPE_CHECKING and relative."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "import engramdb.ingest.chunkers\n"
        "from engramdb import api\n"
        "if TYPE_CHECKING:\n"
        "    from engramdb.api.recall import recall\n"
        "def f():\n"
        "    from ..improvement.truth import build_truth_subspace\n"
    )
    modules = {m for _, m in _imported(source, ["engramdb", "retrieval"])}
    assert {
        "engramdb.ingest.chunkers",
        "engramdb.api",
        "engramdb.api.recall",
        "engramdb.improvement.truth",
    } <= modules
    assert _violations("retrieval", READERS_MUST_NOT_IMPORT) == []  # and the tree is scanned
    assert len(list((SRC / "retrieval").rglob("*.py"))) > 10
