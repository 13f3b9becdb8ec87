"""Multipart uploads for ``POST /api/v1/remember``: checked file names, a private temp dir.

A file name must be a plain base name (no directory part, no ``..``, no control characters,
at most 255 bytes, a supported suffix); anything else is refused with 422 before a byte is
written. Files go into a fresh temporary directory that is removed when the ingestion ends.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from starlette.datastructures import UploadFile

from engramdb.errors import EngramValidationError
from engramdb.ingest.loaders import SUPPORTED_SUFFIXES
from engramdb.ingest.loaders._sources import FileSource, resolve_item

__all__ = ["UploadDir", "check_file_name", "refuse_server_paths"]

_BAD_NAME = re.compile(r"[\x00-\x1f\x7f/\\:]")


def check_file_name(raw: str | None) -> str:
    """The upload's file name, if it is safe to use as one; EngramValidationError otherwise."""
    name = (raw or "").strip()
    if not name or name in (".", "..") or name.startswith(".") or _BAD_NAME.search(name):
        raise EngramValidationError(
            f"uploaded file name {name[:80]!r} is not a plain file name; send a base name such "
            "as 'notes.md' (no directories, no leading dot, no control characters)"
        )
    if len(name.encode("utf-8")) > 255:
        raise EngramValidationError("uploaded file name is longer than 255 bytes; shorten it")
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise EngramValidationError(
            f"uploaded file {name!r} has an unsupported type; supported suffixes: "
            f"{', '.join(sorted(SUPPORTED_SUFFIXES))}"
        )
    return name


def refuse_server_paths(texts: list[str], max_file_bytes: int) -> None:
    """Refuse JSON texts that would be read as a path on the server (the SDK treats a string
    naming an existing file as that file; over HTTP that would expose the server's disk)."""
    for index, text in enumerate(texts):
        where = f"data[{index}]"
        try:
            sources = resolve_item(text, where, max_file_bytes)
        except EngramValidationError:
            sources = [FileSource(Path(), "")]  # it named a path (a bad one): refuse too
        if any(isinstance(s, FileSource) for s in sources):
            raise EngramValidationError(
                f"{where} names a path on the server; send file contents as a multipart upload "
                "(field 'files') or the text itself"
            )


class UploadDir:
    """A private temporary directory holding one request's uploaded files."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="engramdb-upload-"))

    async def save(self, uploads: list[UploadFile], max_file_bytes: int) -> list[Path]:
        """Write each upload under its checked name; duplicate names are refused."""
        names = [check_file_name(u.filename) for u in uploads]
        if len(set(names)) != len(names):
            raise EngramValidationError("two uploaded files have the same name; rename one")
        paths = []
        for upload, name in zip(uploads, names, strict=True):
            target = self.path / name
            size = 0
            with target.open("wb") as out:
                while chunk := await upload.read(1024 * 1024):
                    size += len(chunk)
                    if size > max_file_bytes:
                        raise EngramValidationError(
                            f"uploaded file {name!r} is larger than {max_file_bytes} bytes "
                            "(MAX_FILE_BYTES)"
                        )
                    out.write(chunk)
            paths.append(target)
        return paths

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
