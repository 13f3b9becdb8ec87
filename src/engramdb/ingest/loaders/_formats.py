"""Turning the bytes of one supported file into normalised text plus loader metadata.

Each extractor raises :class:`EngramValidationError` with a message naming the file, the
problem and the fix; the caller wraps nothing, so the message reaches the user as written.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from engramdb.errors import EngramValidationError
from engramdb.ingest.loaders._common import normalize_text, sniff_csv_delimiter
from engramdb.ingest.loaders._html import html_to_text

__all__ = ["extract"]

#: How many keys of a JSON document are recorded in its metadata.
_MAX_JSON_KEYS = 50

Metadata = dict[str, Any]


def decode_utf8(raw: bytes, label: str) -> str:
    """Decode strictly as UTF-8 (a leading BOM is dropped), naming the first bad byte offset."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        raise EngramValidationError(
            f"{label} is not valid UTF-8: invalid byte 0x{bad} at byte offset {exc.start}; "
            "re-encode it as UTF-8 (e.g. `iconv -f latin1 -t utf-8 in > out`) and ingest it again"
        ) from exc


# -- plain text, markdown ---------------------------------------------------------------------
def _plain(raw: bytes, label: str) -> tuple[str, Metadata]:
    return normalize_text(decode_utf8(raw, label)), {}


# -- CSV --------------------------------------------------------------------------------------
def _csv(raw: bytes, label: str) -> tuple[str, Metadata]:
    """Keep the CSV text as is; record header, delimiter and data row count for the chunker."""
    text = normalize_text(decode_utf8(raw, label))
    delimiter = sniff_csv_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    rows = 0
    try:
        for row in reader:
            if not any(field.strip() for field in row):
                continue
            if header is None:
                header = row
            else:
                rows += 1
    except csv.Error as exc:
        raise EngramValidationError(
            f"{label} could not be parsed as CSV near line {reader.line_num}: {exc}; fix the "
            "row (check unbalanced quotes) or rename the file to .txt to ingest it as plain text"
        ) from exc
    meta: Metadata = {"csv_header": header or [], "csv_delimiter": delimiter, "csv_rows": rows}
    return text, meta


# -- JSON / JSON Lines ------------------------------------------------------------------------
def _scalar(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _flatten(value: object, path: str, out: list[str]) -> None:
    """Append ``path: value`` lines; objects extend the path with ``.key``, arrays with ``[i]``."""
    if isinstance(value, dict):
        if not value:
            out.append(f"{path}: {{}}")
        for key, item in value.items():
            _flatten(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list):
        if not value:
            out.append(f"{path}: []")
        for index, item in enumerate(value):
            _flatten(item, f"{path}[{index}]", out)
    else:
        out.append(f"{path}: {_scalar(value)}" if path else _scalar(value))


def _render_records(entries: list[tuple[str, object]]) -> str:
    """Render top-level entries as blocks: a blank line between blocks when any spans lines.

    The blank lines make each record a paragraph, which the text chunker keeps whole.
    """
    blocks: list[str] = []
    for path, value in entries:
        lines: list[str] = []
        _flatten(value, path, lines)
        blocks.append("\n".join(lines))
    separator = "\n\n" if any("\n" in block for block in blocks) else "\n"
    return separator.join(blocks)


def _render_json(value: object) -> tuple[str, Metadata]:
    if isinstance(value, dict):
        meta: Metadata = {"json_keys": [str(k) for k in list(value)[:_MAX_JSON_KEYS]]}
        return _render_records([(str(k), v) for k, v in value.items()]), meta
    if isinstance(value, list):
        keys: dict[str, None] = {}
        for item in value:
            if isinstance(item, dict):
                keys.update(dict.fromkeys(str(k) for k in item))
            if len(keys) >= _MAX_JSON_KEYS:
                break
        meta = {"json_keys": list(keys)[:_MAX_JSON_KEYS], "json_records": len(value)}
        return _render_records([(f"[{i}]", v) for i, v in enumerate(value)]), meta
    return _scalar(value), {}


def _json(raw: bytes, label: str) -> tuple[str, Metadata]:
    text = decode_utf8(raw, label)
    try:
        value = json.loads(text)
        rendered, meta = _render_json(value)
    except json.JSONDecodeError as exc:
        raise EngramValidationError(
            f"{label} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}; "
            "fix the syntax, or rename the file to .txt to ingest it as plain text"
        ) from exc
    except RecursionError as exc:
        raise EngramValidationError(
            f"{label} is nested too deeply to render; flatten the JSON or ingest it as .txt"
        ) from exc
    return normalize_text(rendered), meta


def _jsonl(raw: bytes, label: str) -> tuple[str, Metadata]:
    text = decode_utf8(raw, label)
    records: list[object] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise EngramValidationError(
                f"{label} line {lineno} is not valid JSON: {exc.msg} at column {exc.colno}; "
                "each line of a .jsonl file must be one complete JSON value - fix that line"
            ) from exc
        except RecursionError as exc:
            raise EngramValidationError(
                f"{label} line {lineno} is nested too deeply; flatten it or ingest as .txt"
            ) from exc
    try:
        rendered, meta = _render_json(records)
    except RecursionError as exc:
        raise EngramValidationError(
            f"{label} is nested too deeply to render; flatten the JSON or ingest it as .txt"
        ) from exc
    return normalize_text(rendered), meta


# -- HTML -------------------------------------------------------------------------------------
def _html(raw: bytes, label: str) -> tuple[str, Metadata]:
    text, title = html_to_text(normalize_text(decode_utf8(raw, label)))
    return text, ({"html_title": title} if title else {})


# -- PDF --------------------------------------------------------------------------------------
def _pdf(raw: bytes, label: str) -> tuple[str, Metadata]:
    """Text of every page, pages joined with a blank line.

    ``pdf_page_offsets[i]`` is where page ``i``'s text starts in the returned text (a page without
    text gets the offset where the following text starts), so a chunk can be traced to its page.
    """
    import pypdf  # lazy: parsing PDFs is rare and pypdf is slow to import

    try:
        reader = pypdf.PdfReader(io.BytesIO(raw))
        if reader.is_encrypted and not reader.decrypt(""):
            raise EngramValidationError(
                f"{label} is password-protected; decrypt it first (e.g. `qpdf --decrypt "
                "--password=... in.pdf out.pdf`) and ingest the decrypted copy"
            )
        page_texts = [normalize_text(page.extract_text() or "").strip() for page in reader.pages]
    except EngramValidationError:
        raise
    except Exception as exc:  # boundary: pypdf raises many unrelated types on damaged files
        raise EngramValidationError(
            f"{label} could not be read as a PDF ({type(exc).__name__}: {exc}); check that it "
            "opens in a PDF viewer, or re-export/print it to a new PDF and ingest that"
        ) from exc
    offsets: list[int] = []
    pieces: list[str] = []
    position = 0
    for page_text in page_texts:
        start = position + 2 if pieces else 0  # after the "\n\n" joining it to the last page
        offsets.append(start)
        if page_text:
            pieces.append(page_text)
            position = start + len(page_text)
    if not pieces:
        raise EngramValidationError(
            f"{label} ({len(page_texts)} page(s)) has no extractable text; it may be a scanned "
            "image - run OCR on it first (e.g. `ocrmypdf in.pdf out.pdf`) and ingest the result"
        )
    meta: Metadata = {
        "pdf_pages": len(page_texts),
        "pdf_page_offsets": [min(offset, position) for offset in offsets],
    }
    return "\n\n".join(pieces), meta


_EXTRACTORS: dict[str, Callable[[bytes, str], tuple[str, Metadata]]] = {
    ".txt": _plain,
    ".md": _plain,
    ".markdown": _plain,
    ".csv": _csv,
    ".json": _json,
    ".jsonl": _jsonl,
    ".html": _html,
    ".htm": _html,
    ".pdf": _pdf,
}


def extract(raw: bytes, suffix: str, label: str) -> tuple[str, Metadata]:
    """Extract normalised text and metadata from ``raw`` according to ``suffix`` (lower case).

    ``label`` names the file in error messages (e.g. ``file 'notes.txt'``).
    """
    return _EXTRACTORS[suffix](raw, label)
