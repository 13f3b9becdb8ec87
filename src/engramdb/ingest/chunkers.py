"""The built-in chunkers: ``TextChunker``, ``TextChunkerWithOverlap`` and ``CsvChunker``.

Invariants every built-in chunker keeps (pinned by tests):

* every chunk carries the ``importance_weight`` it was given (the reference once lost it in two
  of its three chunkers, so it is asserted for each);
* chunks are numbered 0..n-1 in document order, never empty, and ``count_tokens(chunk.text) <=
  max_tokens`` (``token_count`` is exactly that count) - only a single character that alone
  exceeds the limit under a pathological counter can break the bound;
* text chunks are exact spans: ``document.text[chunk.start:chunk.end] == chunk.text`` and a
  chunk never starts or ends with whitespace. CSV chunks are the header line, a newline and the
  exact span ``document.text[chunk.start:chunk.end]`` of the rows they carry.

Tokens are counted only through ``count_tokens`` and sparingly: once per paragraph, once per
sentence (then line) of a paragraph that is too big (CSV: once per row), once per finished chunk
made of several pieces, plus a few calls where a run of text without sentence or line
boundaries is cut at words by estimate (a per-word count would cost a call per word).
"""

from __future__ import annotations

import csv
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from engramdb.errors import EngramValidationError
from engramdb.ingest.loaders import sniff_csv_delimiter
from engramdb.ingest.types import ChunkDraft, Chunker, LoadedDocument, TokenCounter
from engramdb.text import paragraph_spans, sentence_spans_between, strip_span

__all__ = [
    "CsvChunker",
    "TextChunker",
    "TextChunkerWithOverlap",
    "resolve_chunker",
]

#: Pieces cut by estimate aim at this share of the limit, so the first guess usually fits.
_FILL = 0.9
_WORD = re.compile(r"\S+")


@dataclass(slots=True)
class _Piece:
    """A stripped span with its token count; ``paragraph`` marks a whole (fitting) paragraph."""

    start: int
    end: int
    tokens: int
    paragraph: bool = False


# -- splitting --------------------------------------------------------------------------------
def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    position = start
    while position < end:
        newline = text.find("\n", position, end)
        line_end = end if newline < 0 else newline
        span = strip_span(text, position, line_end)
        if span[0] < span[1]:
            spans.append(span)
        position = line_end + 1
    return spans


def _split_hard(
    text: str, start: int, end: int, tokens: int, limit: int, count: TokenCounter
) -> list[_Piece]:
    """Cut a run without whitespace into pieces of at most ``limit`` tokens, by estimate."""
    pieces: list[_Piece] = []
    chars_per_token = (end - start) / max(tokens, 1)
    position = start
    while position < end:
        size = max(1, int(chars_per_token * limit * _FILL))
        while True:
            piece_end = min(end, position + size)
            n = count(text[position:piece_end])
            if n <= limit or size == 1:
                break
            size = max(1, min(size - 1, int((piece_end - position) * limit / n * _FILL)))
        pieces.append(_Piece(position, piece_end, n))
        position = piece_end
    return pieces


def _split_words(
    text: str, start: int, end: int, tokens: int, limit: int, count: TokenCounter
) -> list[_Piece]:
    """Cut a span at word boundaries into pieces of at most ``limit`` tokens.

    Each piece's length is estimated from the span's characters per token and checked with one
    count (shrunk and re-counted if over), instead of counting every word.
    """
    words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    if len(words) <= 1:
        return _split_hard(text, start, end, tokens, limit, count)
    ends = [word_end for _, word_end in words]
    chars_per_token = (end - start) / max(tokens, 1)
    pieces: list[_Piece] = []
    i = 0
    while i < len(words):
        piece_start = words[i][0]
        reach = piece_start + int(chars_per_token * limit * _FILL)
        j = max(i, bisect_right(ends, reach, lo=i) - 1)
        while True:
            n = count(text[piece_start : ends[j]])
            if n <= limit or j == i:
                break
            reach = piece_start + int((ends[j] - piece_start) * limit / n * _FILL)
            j = max(i, min(j - 1, bisect_right(ends, reach, lo=i) - 1))
        if n > limit:  # a single word longer than the limit
            pieces.extend(_split_hard(text, piece_start, ends[j], n, limit, count))
        else:
            pieces.append(_Piece(piece_start, ends[j], n))
        i = j + 1
    return pieces


def _split_span(
    text: str, start: int, end: int, tokens: int, limit: int, count: TokenCounter, level: int = 0
) -> list[_Piece]:
    """Split an over-limit span: sentences (level 0), then lines (1), then words and characters."""
    if level >= 2:
        return _split_words(text, start, end, tokens, limit, count)
    spans = (
        sentence_spans_between(text, start, end) if level == 0 else _line_spans(text, start, end)
    )
    if len(spans) <= 1:
        return _split_span(text, start, end, tokens, limit, count, level + 1)
    pieces: list[_Piece] = []
    for span_start, span_end in spans:
        n = count(text[span_start:span_end])
        if n <= limit:
            pieces.append(_Piece(span_start, span_end, n))
        else:
            pieces.extend(_split_span(text, span_start, span_end, n, limit, count, level + 1))
    return pieces


# -- text chunkers ----------------------------------------------------------------------------
class _TextPacker(Chunker):
    """Paragraph-, then sentence-aware greedy packing, with optional sentence overlap."""

    overlap_tokens: int = 0

    def chunk(
        self,
        document: LoadedDocument,
        *,
        importance_weight: float,
        count_tokens: TokenCounter,
    ) -> list[ChunkDraft]:
        text = document.text
        limit = self.max_tokens
        pieces: list[_Piece] = []
        for start, end in paragraph_spans(text):
            n = count_tokens(text[start:end])
            if n <= limit:
                pieces.append(_Piece(start, end, n, paragraph=True))
            else:
                pieces.extend(_split_span(text, start, end, n, limit, count_tokens))
        chunks: list[ChunkDraft] = []
        previous: list[_Piece] = []
        i = 0
        while i < len(pieces):
            first = pieces[i]
            overlap = self._tail(text, previous, limit - first.tokens, count_tokens)
            used = sum(p.tokens for p in overlap) + first.tokens
            j = i + 1
            while j < len(pieces) and used + pieces[j].tokens <= limit:
                used += pieces[j].tokens
                j += 1
            # The sum of parts only estimates the whole (separators may cost tokens): re-count,
            # unless the chunk is one piece, whose count is already exact.
            while True:
                start = overlap[0].start if overlap else first.start
                if j == i + 1 and not overlap:
                    n = first.tokens
                    break
                n = count_tokens(text[start : pieces[j - 1].end])
                if n <= limit:
                    break
                if j > i + 1:
                    j -= 1
                else:
                    overlap = overlap[1:]
            end = pieces[j - 1].end
            properties = {"overlap_chars": first.start - start} if self.overlap_tokens else {}
            chunks.append(
                ChunkDraft(
                    text=text[start:end],
                    index=len(chunks),
                    token_count=n,
                    importance_weight=importance_weight,
                    start=start,
                    end=end,
                    properties=properties,
                )
            )
            previous = overlap + pieces[i:j]
            i = j
        return chunks

    def _tail(
        self, text: str, previous: list[_Piece], room: int, count: TokenCounter
    ) -> list[_Piece]:
        """Trailing sentences of the previous chunk worth at most the overlap budget."""
        budget = min(self.overlap_tokens, room)
        if budget <= 0 or not previous:
            return []
        taken: list[_Piece] = []
        used = 0
        for piece in reversed(previous):
            if used + piece.tokens <= budget:
                taken.append(piece)
                used += piece.tokens
                continue
            if piece.paragraph:  # take the paragraph's trailing sentences that fit
                for start, end in reversed(sentence_spans_between(text, piece.start, piece.end)):
                    whole = (start, end) == (piece.start, piece.end)
                    n = piece.tokens if whole else count(text[start:end])
                    if used + n > budget:
                        break
                    taken.append(_Piece(start, end, n))
                    used += n
            break
        if not taken:  # even the last sentence is too long: take its trailing words
            taken = _tail_words(text, previous[-1], budget, count)
        taken.reverse()
        return taken


def _tail_words(text: str, piece: _Piece, budget: int, count: TokenCounter) -> list[_Piece]:
    """The longest word-aligned proper suffix of ``piece`` within ``budget``, found by estimate
    (one or two counts), or nothing."""
    starts = [m.start() for m in _WORD.finditer(text, piece.start, piece.end)]
    chars = int((piece.end - piece.start) / max(piece.tokens, 1) * budget * _FILL)
    w = max(1, bisect_left(starts, piece.end - chars))
    while w < len(starts):
        n = count(text[starts[w] : piece.end])
        if n <= budget:
            return [_Piece(starts[w], piece.end, n)]
        chars = int((piece.end - starts[w]) * budget / n * _FILL)
        w = max(w + 1, bisect_left(starts, piece.end - chars))
    return []


class TextChunker(_TextPacker):
    """The default chunker: paragraph- and sentence-aware, bounded by ``max_tokens``.

    Whole paragraphs are packed greedily while they fit; a paragraph too big is split into
    sentences, a sentence too big into lines, then at word boundaries, and a single word longer
    than the limit is cut hard. Chunks are exact, stripped spans of the document text, in order
    and without overlap: between two chunks there is only whitespace.
    """


class TextChunkerWithOverlap(_TextPacker):
    """Like :class:`TextChunker`, but each chunk after the first starts with the trailing
    sentences (at most ``overlap_tokens`` tokens) of the previous chunk, so a fact cut at a
    chunk boundary still appears whole in one chunk. When even the last sentence is too long,
    its trailing words are used; the overlap shrinks when the next paragraph needs the room.

    ``properties["overlap_chars"]`` says how many leading characters repeat earlier text.
    """

    def __init__(self, max_tokens: int = 256, overlap_tokens: int = 32) -> None:
        super().__init__(max_tokens)
        if not 0 <= overlap_tokens < max_tokens:
            raise EngramValidationError(
                f"overlap_tokens must be at least 0 and below max_tokens ({max_tokens}), got "
                f"{overlap_tokens}; lower chunk_overlap_tokens (e.g. to max_tokens // 8)"
            )
        self.overlap_tokens = overlap_tokens


# -- CSV --------------------------------------------------------------------------------------
def _csv_rows(text: str, delimiter: str) -> list[tuple[int, int]]:
    """Stripped spans of the non-blank records; quoted newlines stay inside their record."""
    consumed = 0

    def lines() -> Iterator[str]:
        nonlocal consumed
        while consumed < len(text):
            start = consumed
            newline = text.find("\n", start)
            consumed = len(text) if newline < 0 else newline + 1
            yield text[start:consumed]

    rows: list[tuple[int, int]] = []
    row_start = 0
    try:
        # The reader pulls lines only until a record is complete, so ``consumed`` is its end.
        for _ in csv.reader(lines(), delimiter=delimiter):
            span = strip_span(text, row_start, consumed)
            if span[0] < span[1]:
                rows.append(span)
            row_start = consumed
    except csv.Error:  # e.g. a field over the csv module's size limit: fall back to lines
        return _line_spans(text, 0, len(text))
    return rows


def _field_spans(text: str, start: int, end: int, delimiter: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    quoted = False
    field_start = start
    for position in range(start, end):
        char = text[position]
        if char == '"':
            quoted = not quoted
        elif char == delimiter and not quoted:
            spans.append((field_start, position))
            field_start = position + 1
    spans.append((field_start, end))
    return spans


class CsvChunker(Chunker):
    """Groups of whole CSV rows, each chunk starting with the header line.

    Rows are found with the ``csv`` module, so a quoted field containing newlines never breaks
    its row. A row is split only when it alone (with the header) exceeds ``max_tokens``: at
    field boundaries, then hard. A header longer than half the limit is not repeated (it is
    packed as the first row instead) so rows keep room.

    ``chunk.text`` is ``header + "\\n" + document.text[chunk.start:chunk.end]`` when
    ``properties["csv_header_repeated"]``, else exactly the span; ``row_start``/``row_end``
    index the file's non-blank records (the header is record 0); a split row has ``row_part``.
    """

    def chunk(
        self,
        document: LoadedDocument,
        *,
        importance_weight: float,
        count_tokens: TokenCounter,
    ) -> list[ChunkDraft]:
        text = document.text
        limit = self.max_tokens
        delimiter = document.metadata.get("csv_delimiter")
        if not (isinstance(delimiter, str) and len(delimiter) == 1):
            delimiter = sniff_csv_delimiter(text)
        rows = _csv_rows(text, delimiter)
        if not rows:
            return []
        header_tokens = count_tokens(text[rows[0][0] : rows[0][1]])
        repeat = len(rows) > 1 and header_tokens <= limit // 2
        prefix = text[rows[0][0] : rows[0][1]] + "\n" if repeat else ""
        first_row = 1 if repeat else 0
        budget = limit - header_tokens if repeat else limit
        tokens = [header_tokens] + [count_tokens(text[s:e]) for s, e in rows[1:]]
        chunks: list[ChunkDraft] = []

        def emit(
            start: int, end: int, n: int, row_start: int, row_end: int, part: int | None
        ) -> None:
            properties: dict[str, object] = {
                "csv_header_repeated": repeat,
                "row_start": row_start,
                "row_end": row_end,
            }
            if part is not None:
                properties["row_part"] = part
            chunks.append(
                ChunkDraft(
                    text=prefix + text[start:end],
                    index=len(chunks),
                    token_count=n,
                    importance_weight=importance_weight,
                    start=start,
                    end=end,
                    properties=properties,
                )
            )

        r = first_row
        while r < len(rows):
            used = tokens[r]
            k = r + 1
            while k < len(rows) and used + tokens[k] <= budget:
                used += tokens[k]
                k += 1
            while True:
                n = count_tokens(prefix + text[rows[r][0] : rows[k - 1][1]])
                if n <= limit or k == r + 1:
                    break
                k -= 1
            if n <= limit:
                emit(rows[r][0], rows[k - 1][1], n, r, k, None)
            else:  # one row that does not fit even alone
                for part, (start, end, n) in enumerate(
                    self._split_row(text, rows[r], prefix, budget, delimiter, count_tokens)
                ):
                    emit(start, end, n, r, r + 1, part)
            r = k
        return chunks

    def _split_row(
        self,
        text: str,
        row: tuple[int, int],
        prefix: str,
        budget: int,
        delimiter: str,
        count: TokenCounter,
    ) -> list[tuple[int, int, int]]:
        """``(start, end, tokens)`` of the pieces of one oversized row, header included."""
        units: list[_Piece] = []
        for start, end in _field_spans(text, row[0], row[1], delimiter):
            if start == end:
                continue
            n = count(text[start:end])
            if n <= budget:
                units.append(_Piece(start, end, n))
            else:
                units.extend(_split_hard(text, start, end, n, budget, count))
        pieces: list[tuple[int, int, int]] = []
        i = 0
        while i < len(units):
            used = units[i].tokens
            j = i + 1
            while j < len(units) and used + units[j].tokens <= budget:
                used += units[j].tokens
                j += 1
            while True:
                n = count(prefix + text[units[i].start : units[j - 1].end])
                if n <= self.max_tokens or j == i + 1:
                    break
                j -= 1
            pieces.append((units[i].start, units[j - 1].end, n))
            i = j
        return pieces


# -- resolution -------------------------------------------------------------------------------
def resolve_chunker(
    chunker: type[Chunker] | Chunker | None, *, max_tokens: int, overlap_tokens: int
) -> Chunker:
    """The chunker ``remember(chunker=...)`` asked for.

    ``None`` gives a :class:`TextChunker`; a class is instantiated with ``max_tokens`` (and
    ``overlap_tokens`` for :class:`TextChunkerWithOverlap` and its subclasses); an instance is
    used as is. Anything else, or a class that cannot be built that way, is a validation error.
    """
    if chunker is None:
        chunker = TextChunker
    if isinstance(chunker, Chunker):
        return chunker
    if not (isinstance(chunker, type) and issubclass(chunker, Chunker)):
        raise EngramValidationError(
            f"chunker must be None, a Chunker subclass (e.g. TextChunker, "
            f"TextChunkerWithOverlap, CsvChunker) or a Chunker instance, got "
            f"{type(chunker).__name__} {chunker!r}; pass one of those"
        )
    try:
        if issubclass(chunker, TextChunkerWithOverlap):
            return chunker(max_tokens=max_tokens, overlap_tokens=overlap_tokens)
        return chunker(max_tokens=max_tokens)
    except EngramValidationError:
        raise
    except (TypeError, ValueError) as exc:
        raise EngramValidationError(
            f"could not create chunker {chunker.__name__}(max_tokens={max_tokens}): {exc}; "
            "pass a ready-made instance instead, e.g. chunker=MyChunker(...)"
        ) from exc
