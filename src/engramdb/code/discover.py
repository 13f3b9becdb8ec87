"""Which ``remember()`` inputs are source code, and which go through the normal text path.

Recognition is by suffix: ``.py`` always (the standard library parses it), ``.js .jsx .mjs
.cjs .ts .tsx`` through tree-sitter (the ``code`` extra). A directory is split: its code files
form one repository (named after the directory) that is indexed into the code graph, and its
other files go through the normal loader when it has any the loader supports. A single code
file is indexed as a repository of one file, named after its parent directory, and does not
remove the repository's other files.

Without the ``code`` extra, JS/TS files found in a directory are skipped with a reason naming
``pip install 'engramdb[code]'``; a JS/TS file named directly raises FeatureNotAvailableError.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engramdb.code.parse_treesitter import INSTALL_HINT, TREE_SITTER_SUFFIXES
from engramdb.errors import EngramValidationError, FeatureNotAvailableError
from engramdb.ingest.loaders import SUPPORTED_SUFFIXES
from engramdb.models.results import SkippedFile
from engramdb.paths import user_path

__all__ = [
    "CODE_SUFFIXES",
    "CodeRoot",
    "code_only_roots",
    "split_code_inputs",
    "treesitter_available",
]

CODE_SUFFIXES: frozenset[str] = frozenset({".py", *TREE_SITTER_SUFFIXES})
#: Directories never indexed (build output, dependencies, caches); hidden ones are skipped too.
_IGNORED_DIRS = frozenset({"__pycache__", "node_modules", "venv", "site-packages"})
_MAX_PATH_CHARS = 4096
_CODE_ONLY_HINT = (
    "content_type='code' expects a repository path (or a list of them) on this machine; "
    "clone a remote repository first and pass its directory"
)


def treesitter_available() -> bool:
    """Whether the ``code`` extra (tree-sitter and its JS/TS grammars) is installed."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("tree_sitter", "tree_sitter_javascript", "tree_sitter_typescript")
    )


@dataclass(slots=True)
class CodeRoot:
    """One repository to index: files as (repository-relative posix path, absolute path).
    ``complete`` roots are whole directories: a stored file missing from them is removed."""

    root: Path
    repo: str
    files: list[tuple[str, Path]] = field(default_factory=list)
    complete: bool = True
    skipped: list[SkippedFile] = field(default_factory=list)


def split_code_inputs(data: Any) -> tuple[list[CodeRoot], Any]:
    """The code repositories in ``data``, and what is left for the normal loader (None when
    nothing is). Texts, unknown types and paths that do not exist are left to the loader, which
    reports them as it always does."""
    items: Sequence[object]
    single = isinstance(data, str | Path) or not isinstance(data, Sequence)
    items = [data] if single else list(data)
    roots: list[CodeRoot] = []
    rest: list[object] = []
    for item in items:
        path = _as_path(item)
        if path is None:
            rest.append(item)
        elif path.is_dir():
            root, has_other = _directory(path)
            if root.files or root.skipped:
                roots.append(root)
            if has_other or not (root.files or root.skipped):
                rest.append(item)
        elif path.suffix.lower() in CODE_SUFFIXES:
            _require_parser(path)
            parent = path.resolve().parent
            roots.append(
                CodeRoot(parent, parent.name or "repo", [(path.name, path.resolve())], False)
            )
        else:
            rest.append(item)
    if not roots:
        return [], data  # nothing for the code graph: the loader sees the input as given
    if not rest:
        return roots, None
    return roots, (rest[0] if single else rest)


def code_only_roots(data: Any) -> list[CodeRoot]:
    """``remember(..., content_type="code")``: every item must name a directory or a source
    file; other files in the directories are left out. EngramValidationError otherwise."""
    items = [data] if isinstance(data, str | Path) else data
    if not isinstance(items, Sequence) or not items:
        raise EngramValidationError(_CODE_ONLY_HINT)
    for item in items:
        path = _as_path(item)
        if path is None or not (path.is_dir() or path.suffix.lower() in CODE_SUFFIXES):
            shown = repr(item)[:80]
            raise EngramValidationError(
                f"{shown} is not a local directory or source file; " + _CODE_ONLY_HINT
            )
    roots, _rest = split_code_inputs(list(items))
    if not any(root.files for root in roots):
        raise EngramValidationError(
            "no source files found (supported: "
            + ", ".join(sorted(CODE_SUFFIXES))
            + "); "
            + _CODE_ONLY_HINT
        )
    return roots


def _as_path(item: object) -> Path | None:
    if isinstance(item, Path):
        return item if item.exists() else None
    if not isinstance(item, str) or "\n" in item or len(item) >= _MAX_PATH_CHARS or not item:
        return None
    text = item[len("file://") :] if item.startswith("file://") else item
    try:
        path = user_path(text)
        return path if path.exists() else None
    except (OSError, ValueError):
        return None


def _require_parser(path: Path) -> None:
    if path.suffix.lower() in TREE_SITTER_SUFFIXES and not treesitter_available():
        raise FeatureNotAvailableError(
            f"'{path}' is {path.suffix} source; indexing it needs the tree-sitter grammars: "
            f"{INSTALL_HINT} (Python files need no extra)"
        )


def _directory(root: Path) -> tuple[CodeRoot, bool]:
    """The code files under ``root`` (sorted by path components), and whether it also holds
    files the normal loader supports."""
    resolved = root.resolve()
    found = CodeRoot(resolved, resolved.name or "repo")
    has_other = False
    grammars = treesitter_available()
    pending = [resolved]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # the normal loader names unreadable directories
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _IGNORED_DIRS:
                continue
            entry_path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry_path)
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            suffix = entry_path.suffix.lower()
            relative = entry_path.relative_to(resolved).as_posix()
            if suffix not in CODE_SUFFIXES:
                has_other = has_other or suffix in SUPPORTED_SUFFIXES
            elif suffix in TREE_SITTER_SUFFIXES and not grammars:
                found.skipped.append(
                    SkippedFile(
                        path=str(entry_path),
                        reason=f"{suffix} source needs the tree-sitter grammars: {INSTALL_HINT}",
                    )
                )
            else:
                found.files.append((relative, entry_path))
    found.files.sort(key=lambda item: item[0].split("/"))
    found.skipped.sort(key=lambda s: s.path)
    return found, has_other
