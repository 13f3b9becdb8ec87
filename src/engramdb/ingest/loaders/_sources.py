"""Deciding what each input item is (a text, a file, a directory) and finding the files.

Everything here is cheap (``stat`` and directory listings, no file contents), so a bad item
anywhere in a call is reported before a single byte of any file is read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePath
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from engramdb.errors import EngramValidationError
from engramdb.ingest.loaders._common import SUPPORTED_SUFFIXES, supported_list
from engramdb.ingest.text import Text
from engramdb.models.results import SkippedFile
from engramdb.paths import user_path

__all__ = [
    "FileSource",
    "Source",
    "TextSource",
    "looks_like_path",
    "resolve_item",
    "resolve_item_with_skips",
]

#: Strings at least this long are always text, never paths.
MAX_PATH_CHARS = 4096
#: How many skipped file names an "empty directory" error lists.
_SKIPPED_SHOWN = 5
#: A string ending in one of these (and without whitespace) is taken for a file name.
KNOWN_FILE_SUFFIXES = SUPPORTED_SUFFIXES | {
    ".doc",
    ".docx",
    ".odt",
    ".rtf",
    ".epub",
    ".ppt",
    ".pptx",
    ".xls",
    ".xlsx",
    ".tsv",
    ".xml",
    ".yaml",
    ".yml",
    ".log",
}
_PATH_PREFIXES = ("./", "../", "/", "~", ".\\", "..\\")


@dataclass(frozen=True, slots=True)
class TextSource:
    """A ``str`` item that is content, not a path."""

    text: str
    where: str


@dataclass(frozen=True, slots=True)
class FileSource:
    """A file to load; ``relative`` is its path inside the directory it was found in."""

    path: Path
    suffix: str
    relative: str | None = None


#: What one input item resolves to; a folder's left-out files come back as SkippedFile.
Source = TextSource | FileSource | SkippedFile


def looks_like_path(item: str) -> bool:
    """True for a string meant as a path: no whitespace, and starting with ``./``, ``../``,
    ``/`` or ``~``, or ending with a known file extension (``.md``, ``.pdf``, ``.docx``...)."""
    if not item or any(ch.isspace() for ch in item):
        return False
    return item.startswith(_PATH_PREFIXES) or PurePath(item).suffix.lower() in KNOWN_FILE_SUFFIXES


def resolve_item(item: object, where: str, max_file_bytes: int) -> list[TextSource | FileSource]:
    """The texts and files of one input item (see :func:`resolve_item_with_skips`)."""
    return [
        s
        for s in resolve_item_with_skips(item, where, max_file_bytes)
        if not isinstance(s, SkippedFile)
    ]


def resolve_item_with_skips(item: object, where: str, max_file_bytes: int) -> list[Source]:
    """Classify one input item; directories expand to their ingestible files in sorted order,
    followed by the files they leave out (:class:`SkippedFile`).

    A :class:`~engramdb.ingest.text.Text` is always text. A ``str`` is a path when
    :func:`_path_from_str` says so; a ``Path`` (or any ``os.PathLike``) must exist, because the
    caller clearly meant a file.
    """
    if isinstance(item, Text):
        return [TextSource(str(item), where)]
    if isinstance(item, str):
        path = _path_from_str(item, where)
        if path is None:
            return [TextSource(item, where)]
    elif isinstance(item, PurePath | os.PathLike):
        fspath = os.fspath(item)
        if not isinstance(fspath, str):
            raise EngramValidationError(
                f"{where}: bytes paths are not supported; pass a str or pathlib.Path instead"
            )
        path = Path(fspath)
        if not _exists(path):
            raise EngramValidationError(
                f"{where}: path '{path}' does not exist (relative paths are resolved against "
                f"'{Path.cwd()}'); check the path, or pass the content as a str to ingest it "
                "as text"
            )
    else:
        hint = " (decode bytes first, e.g. data.decode('utf-8'))" if isinstance(item, bytes) else ""
        raise EngramValidationError(
            f"{where} has unsupported type '{type(item).__name__}'{hint}; pass a str (text or a "
            "path), a pathlib.Path, or a list of those"
        )
    return _resolve_path(path, max_file_bytes)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # e.g. name too long, embedded NUL: not an existing path
        return False


def _path_from_str(item: str, where: str) -> Path | None:
    """The path a ``str`` item names, or ``None`` when it is text.

    A str is a path only if it is one line, shorter than 4096 characters and either names an
    existing file or directory or starts with ``file://`` (then it must exist). A string that
    :func:`looks_like_path` but names nothing is refused (a typo must not be stored as a
    memory); anything else is text.
    """
    if not item or len(item) >= MAX_PATH_CHARS or "\n" in item or "\r" in item:
        return None
    if item.startswith("file://"):
        url = urlparse(item)
        if url.netloc not in ("", "localhost"):
            raise EngramValidationError(
                f"{where}: file URL '{item}' names host '{url.netloc}'; only local files are "
                "supported - use file:///absolute/path"
            )
        path = Path(url2pathname(unquote(url.path)))
        if not _exists(path):
            raise EngramValidationError(
                f"{where}: file URL '{item}' points to '{path}', which does not exist; check the "
                "path (file:///absolute/path)"
            )
        return path
    path = Path(item)
    if _exists(path):
        return path
    if looks_like_path(item):
        expanded = user_path(item) if item.startswith("~") else None
        if expanded is not None and _exists(expanded):
            return expanded
        raise EngramValidationError(
            f"{where}: {item!r} looks like a path, but no such file or directory exists "
            f"(relative paths are resolved against '{Path.cwd()}'); check the path, or, to "
            f"store this string as text on purpose, wrap it: engramdb.Text({item!r})"
        )
    return None


def _resolve_path(path: Path, max_file_bytes: int) -> list[Source]:
    if path.is_dir():
        return _directory_files(path, max_file_bytes)
    if not path.is_file():
        raise EngramValidationError(
            f"'{path}' is neither a regular file nor a directory; pass a regular file or copy "
            "the content into one"
        )
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        what = f"an unsupported type '{path.suffix}'" if path.suffix else "no file extension"
        raise EngramValidationError(
            f"file '{path}' has {what}; supported: {supported_list()}; convert it to text or "
            "PDF first (or rename it, e.g. to .txt, if it already is plain UTF-8 text)"
        )
    check_size(path, _stat_size(path), max_file_bytes)
    return [FileSource(path, suffix)]


def _stat_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError as exc:
        raise EngramValidationError(
            f"cannot access file '{path}': {exc.strerror}; check that it exists and is readable"
        ) from exc


def check_size(path: Path, size: int, max_file_bytes: int) -> None:
    """Reject files over the configured limit (before reading them, and again after)."""
    if size > max_file_bytes:
        raise EngramValidationError(
            f"file '{path}' is {size:,} bytes, larger than the limit of {max_file_bytes:,} bytes "
            "(max_file_bytes); split it into smaller files or raise max_file_bytes"
        )


def _directory_files(root: Path, max_file_bytes: int) -> list[Source]:
    """Ingestible files under ``root``, recursively, sorted by their relative path components,
    then a :class:`SkippedFile` for each file left out.

    Hidden files and directories (name starting with ``.``) are ignored, symlinked directories
    are not followed (no cycles) and skipped, files of unsupported types are skipped; skipped
    files are named in the error when nothing is left.
    """
    found: list[Path] = []
    skipped: list[Path] = []
    reasons: dict[Path, str] = {}
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            raise EngramValidationError(
                f"cannot list directory '{directory}': {exc.strerror}; make it readable "
                "(e.g. chmod u+rx) or move the files you want ingested elsewhere"
            ) from exc
        for entry in entries:
            if entry.name.startswith("."):
                continue
            entry_path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry_path)
            elif entry.is_dir():
                skipped.append(entry_path)
                reasons[entry_path] = "symbolic link to a directory (not followed)"
            elif entry.is_file():
                suffix = entry_path.suffix.lower()
                if suffix in SUPPORTED_SUFFIXES:
                    found.append(entry_path)
                else:
                    skipped.append(entry_path)
                    what = (
                        f"unsupported file type '{entry_path.suffix}'"
                        if suffix
                        else ("no file extension")
                    )
                    reasons[entry_path] = f"{what} (supported: {supported_list()})"
            else:
                skipped.append(entry_path)
                reasons[entry_path] = "not a regular file"
    if not found:
        shown = sorted(str(p.relative_to(root)) for p in skipped)
        more = ", ..." if len(shown) > _SKIPPED_SHOWN else ""
        listed = ", ".join(shown[:_SKIPPED_SHOWN]) + more
        skipped_note = f" (skipped {len(shown)} unsupported file(s): {listed})" if shown else ""
        raise EngramValidationError(
            f"directory '{root}' contains nothing ingestible{skipped_note}; supported types: "
            f"{supported_list()} (hidden files and directories are ignored); add such files or "
            "convert the skipped ones"
        )
    found.sort(key=lambda p: p.relative_to(root).parts)
    skipped.sort(key=lambda p: p.relative_to(root).parts)
    sources: list[Source] = []
    for path in found:
        check_size(path, _stat_size(path), max_file_bytes)
        sources.append(FileSource(path, path.suffix.lower(), path.relative_to(root).as_posix()))
    sources += [SkippedFile(path=str(p), reason=reasons[p]) for p in skipped]
    return sources
