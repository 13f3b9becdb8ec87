"""Loading ``remember()`` input into :class:`LoadedDocument` objects.

``load_inputs`` accepts a text, a list of texts, file paths, directories, exports of other memory
systems (:class:`engramdb.migration.MemorySource`) or a mix, and either
returns every document or raises :class:`EngramValidationError` - never a partial result - so a
bad item means nothing of the call gets written.

Supported files (by suffix): .txt, .md/.markdown, .csv, .json, .jsonl, .html/.htm, .pdf.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from engramdb.errors import EngramValidationError
from engramdb.ingest.loaders._common import (
    MIME_TYPES,
    SUPPORTED_SUFFIXES,
    normalize_text,
    sniff_csv_delimiter,
)
from engramdb.ingest.loaders._formats import extract
from engramdb.ingest.loaders._sources import (
    FileSource,
    Source,
    TextSource,
    check_size,
    looks_like_path,
    resolve_item_with_skips,
)
from engramdb.ingest.tables import (
    TableLoad,
    TableOptions,
    csv_table_documents,
    dlt_documents,
    is_dlt_item,
)
from engramdb.ingest.text import Text
from engramdb.ingest.types import LoadedDocument
from engramdb.migration.base import MemorySource
from engramdb.models.results import SkippedFile

__all__ = [
    "MIME_TYPES",
    "SUPPORTED_SUFFIXES",
    "LoadedInputs",
    "Text",
    "load_inputs",
    "looks_like_path",
    "normalize_text",
    "sniff_csv_delimiter",
]

#: How many hex digits of the content hash name a text input (``text_<hex>``).
_TEXT_NAME_HEX = 12


class LoadedInputs(list[LoadedDocument]):
    """The documents of one ``remember()`` call, plus ``skipped``: the files of its folders
    that were left out, with the reason (they reach ``RememberResult.skipped``), and
    ``tables``: the loads of its tables (:mod:`engramdb.ingest.tables`)."""

    def __init__(
        self,
        docs: Sequence[LoadedDocument],
        skipped: Sequence[SkippedFile] = (),
        tables: Sequence[TableLoad] = (),
    ):
        super().__init__(docs)
        self.skipped = list(skipped)
        self.tables = list(tables)


def load_inputs(
    data: str | Path | Sequence[str | Path],
    *,
    max_file_bytes: int,
    tables: TableOptions | None = None,
) -> LoadedInputs:
    """Load every input item, in order; directories expand to their files, sorted, a
    :class:`~engramdb.migration.MemorySource` to one document per record of its export, and a
    dlt resource or source to one document per row (:mod:`engramdb.ingest.tables`; so does a
    CSV file when ``tables`` names a primary key or a write disposition).

    A :class:`Text` is always text. A ``str`` is a path if it is a single line shorter than
    4096 characters that names an existing file or directory (or starts with ``file://``). A
    ``str`` that only looks like a path (no whitespace, and starting with ``./``, ``../``,
    ``/`` or ``~``, or ending with a file extension such as ``.md``) but names nothing is an
    error whose message shows how to store it as text (``Text(...)``); any other ``str`` is
    text. A ``Path`` must exist. Texts and extracted file text are normalised (NFC,
    CRLF -> LF, NUL removed).
    ``content_hash`` is the sha256 of the raw bytes (file bytes, or the UTF-8 of a text).

    Raises EngramValidationError - before anything is returned - for an empty or
    whitespace-only text, an empty list, an item of another type, a missing ``Path`` or
    path-like ``str``, an
    unreadable, oversized or unsupported file, a directory with nothing ingestible, invalid
    UTF-8, a PDF without extractable text, or a file whose extracted text is empty.
    """
    if max_file_bytes <= 0:
        raise EngramValidationError(
            f"max_file_bytes must be positive, got {max_file_bytes}; set it to the largest file "
            "size in bytes you want to accept"
        )
    items = _as_items(data)
    options = tables or TableOptions()
    options.disposition()  # an unknown write_disposition is refused before anything is read
    sources: list[Source | MemorySource | tuple[str, object]] = []
    for where, item in items:
        if isinstance(item, MemorySource):
            sources.append(item)
        elif is_dlt_item(item):
            sources.append((where, item))
        else:
            sources.extend(resolve_item_with_skips(item, where, max_file_bytes))
    # Resolution (stat only) is complete for every item before any file is read.
    docs: list[LoadedDocument] = []
    loads: list[TableLoad] = []
    for s in sources:
        if isinstance(s, MemorySource):
            docs.extend(s.documents(max_file_bytes=max_file_bytes))
        elif isinstance(s, tuple):
            rows, load = dlt_documents(s[1], s[0], options)
            docs.extend(rows)
            loads.append(load)
        elif isinstance(s, TextSource):
            docs.append(_load_text(s))
        elif isinstance(s, FileSource):
            doc = _load_file(s, max_file_bytes)
            if options.given and s.suffix == ".csv":
                rows, load = csv_table_documents(doc, options)
                docs.extend(rows)
                loads.append(load)
            else:
                docs.append(doc)
    _check_tables(loads, options)
    return LoadedInputs(docs, [s for s in sources if isinstance(s, SkippedFile)], loads)


def _check_tables(loads: list[TableLoad], options: TableOptions) -> None:
    names = [load.source for load in loads]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise EngramValidationError(
            f"two tables of this call are both named {twice[0]!r}: a later load of one would "
            "replace the other's rows; give each dlt resource (or CSV file) its own name"
        )
    if options.given and not loads:
        raise EngramValidationError(
            "primary_key and write_disposition apply to dlt resources and sources and to CSV "
            "files, and the input holds none; drop them, or pass the table to load"
        )


def _as_items(data: object) -> list[tuple[str, object]]:
    """``(where, item)`` pairs; ``where`` names the item in error messages."""
    if isinstance(data, str | Path | MemorySource) or is_dlt_item(data):
        return [("input", data)]
    if isinstance(data, Sequence) and not isinstance(data, bytes | bytearray):
        if not data:
            raise EngramValidationError(
                "no input given: the list is empty; pass at least one text, file path or directory"
            )
        return [(f"data[{index}]", item) for index, item in enumerate(data)]
    hint = " (decode bytes first, e.g. data.decode('utf-8'))" if isinstance(data, bytes) else ""
    raise EngramValidationError(
        f"input has unsupported type '{type(data).__name__}'{hint}; pass a str (text or a path), "
        "a pathlib.Path, an export of another memory system (engramdb.migration), a dlt "
        "resource or source, or a list of those"
    )


def _visible(text: str) -> bool:
    """Whether ``text`` holds a character a reader would see (not only whitespace, control
    characters or zero-width format characters)."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def _load_text(source: TextSource) -> LoadedDocument:
    try:
        raw = source.text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EngramValidationError(
            f"{source.where}: text contains an unpaired surrogate at character {exc.start}, "
            "which is not valid Unicode; fix how the text was decoded (e.g. "
            "bytes.decode('utf-8', errors='replace'))"
        ) from exc
    nul = source.text.find("\x00")
    if nul >= 0:  # refused, never silently dropped: a search for what follows must find it
        raise EngramValidationError(
            f"{source.where}: text contains a NUL character at position {nul}; remove it (or "
            "replace it with a space) before remembering the text"
        )
    text = normalize_text(source.text)
    if not _visible(text):
        raise EngramValidationError(
            f"{source.where}: text is empty or whitespace-only (or holds only control or "
            "invisible zero-width characters); pass some text, or drop the empty item from the "
            "input"
        )
    digest = hashlib.sha256(raw).hexdigest()
    return LoadedDocument(
        name=f"text_{digest[:_TEXT_NAME_HEX]}",
        text=text,
        mime_type="text/plain",
        content_hash=digest,
        size_bytes=len(raw),
    )


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except PermissionError as exc:
        raise EngramValidationError(
            f"cannot read file '{path}': permission denied; make it readable (e.g. chmod u+r) "
            "or ingest a copy you can read"
        ) from exc
    except OSError as exc:
        raise EngramValidationError(
            f"cannot read file '{path}': {exc.strerror}; check that it exists and is readable"
        ) from exc


def _load_file(source: FileSource, max_file_bytes: int) -> LoadedDocument:
    raw = _read_bytes(source.path)
    check_size(source.path, len(raw), max_file_bytes)  # it may have grown since stat()
    label = f"file '{source.path}'"
    text, metadata = extract(raw, source.suffix, label)
    if not text.strip():
        raise EngramValidationError(
            f"{label} contains no text after extraction; add content to it or remove it from "
            "the input"
        )
    if source.relative is not None:
        metadata["relative_path"] = source.relative
    return LoadedDocument(
        name=source.path.name,
        text=text,
        mime_type=MIME_TYPES[source.suffix],
        content_hash=hashlib.sha256(raw).hexdigest(),
        size_bytes=len(raw),
        source_path=str(source.path.absolute()),
        metadata=metadata,
    )
