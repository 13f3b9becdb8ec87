"""Shared pieces of the loaders: supported types, text normalisation, CSV dialect sniffing."""

from __future__ import annotations

import csv
import unicodedata

__all__ = [
    "MIME_TYPES",
    "SUPPORTED_SUFFIXES",
    "TEXT_SUFFIXES",
    "normalize_text",
    "sniff_csv_delimiter",
    "supported_list",
]

#: File suffix (lower case) -> MIME type recorded on the loaded document.
MIME_TYPES: dict[str, str] = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}

SUPPORTED_SUFFIXES: frozenset[str] = frozenset(MIME_TYPES)

#: Suffixes whose bytes must be UTF-8 (everything except PDF).
TEXT_SUFFIXES: frozenset[str] = SUPPORTED_SUFFIXES - {".pdf"}

_CSV_DELIMITERS = ",;\t|"
_SNIFF_BYTES = 16 * 1024


def supported_list() -> str:
    """The supported suffixes as one readable string, for error messages."""
    return ", ".join(sorted(SUPPORTED_SUFFIXES))


def normalize_text(text: str) -> str:
    """Normalise extracted text: strip NUL bytes, CRLF -> LF, Unicode NFC.

    NUL bytes break SQLite FTS and most tokenizers; CRLF would make identical content chunk
    differently depending on the platform it was written on; NFC makes visually identical strings
    compare equal. Nothing else is touched, so chunk offsets stay meaningful to the user.
    """
    if "\x00" in text:
        text = text.replace("\x00", "")
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def sniff_csv_delimiter(text: str) -> str:
    """Guess the delimiter of a CSV text among ``, ; TAB |``; ``,`` when unsure.

    Only a prefix cut at a line boundary is sniffed (the sniffer is slow on big samples and a
    cut-off last line would mislead it). One-column files cannot be sniffed and get ``,``.
    """
    sample = text[:_SNIFF_BYTES]
    if len(text) > _SNIFF_BYTES and "\n" in sample:
        sample = sample[: sample.rfind("\n")]
    try:
        return csv.Sniffer().sniff(sample, delimiters=_CSV_DELIMITERS).delimiter
    except csv.Error:
        return ","
