"""Chunkers: token bounds, exact offsets, coverage, overlap, CSV rows, weight, resolution."""

from __future__ import annotations

import csv
import io
import itertools
import random
import re
from collections.abc import Callable

import pytest

from engramdb.errors import EngramValidationError
from engramdb.ingest.chunkers import (
    CsvChunker,
    TextChunker,
    TextChunkerWithOverlap,
    resolve_chunker,
)
from engramdb.ingest.types import ChunkDraft, Chunker, LoadedDocument, TokenCounter
from engramdb.text import sentence_spans


def words(text: str) -> int:
    """The cheap counter of the brief: whitespace-separated words."""
    return len(text.split())


def quarter_chars(text: str) -> int:
    """A counter where long words cost many tokens (like a subword tokenizer)."""
    return (len(text) + 3) // 4


class CountingCounter:
    """Wraps a counter and records how often it is called."""

    def __init__(self, inner: TokenCounter) -> None:
        self.inner = inner
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.calls += 1
        return self.inner(text)


def doc(text: str, **metadata: object) -> LoadedDocument:
    return LoadedDocument(
        name="d", text=text, mime_type="text/plain", content_hash="0" * 64, size_bytes=len(text),
        metadata=dict(metadata),
    )  # fmt: skip


_VOCAB_TEXT = (
    "the memory graph stores facts about people places and dates Alice Bob Paris Berlin "
    "quickly never always moved lived born raised Dr. e.g. i.e. 3.5 2010 U.S. (maybe) "
    '"quoted" it\'s well-known approx. x-ray café naïve'
)
VOCAB = _VOCAB_TEXT.split()


def random_text(rng: random.Random, paragraphs: int) -> str:
    """Prose with varied whitespace, abbreviations, decimals, the odd giant sentence or word."""
    blocks = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(rng.randint(1, 10)):
            length = rng.choice([3, 8, 15, 25]) if rng.random() > 0.05 else 120
            sentence = " ".join(rng.choice(VOCAB) for _ in range(length))
            if rng.random() < 0.03:
                sentence += " " + "z" * rng.randint(50, 400)
            sentences.append(sentence[0].upper() + sentence[1:] + rng.choice([".", "!", "?", '."']))
        separators = [" ", "  ", "\n", " \t "]
        blocks.append("".join(s + rng.choice(separators) for s in sentences).rstrip())
    return "".join(b + rng.choice(["\n\n", "\n \n\n", "\n\n\n"]) for b in blocks)


def squash(text: str) -> str:
    return "".join(text.split())


def assert_common(chunks: list[ChunkDraft], counter: TokenCounter, max_tokens: int) -> None:
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert chunk.text.strip(), "chunks are never empty"
        assert chunk.token_count == counter(chunk.text)
        assert chunk.token_count <= max_tokens


def assert_exact_spans(chunks: list[ChunkDraft], text: str) -> None:
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text == chunk.text.strip()


# -- sentence splitting -----------------------------------------------------------------------
def test_sentence_splitter_handles_abbreviations_decimals_and_quotes() -> None:
    text = (
        'Dr. Smith paid 3.5 million, e.g. for land. "Was it worth it?" she asked. Yes! '
        "J. Doe agreed. See No. 5 on p. 12 today. Apples, etc. and pears. The answer is no. "
        "Done…  Next one.\n\n1. First item\n2. Second item."
    )
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Dr. Smith paid 3.5 million, e.g. for land.",
        '"Was it worth it?" she asked.',
        "Yes!",
        "J. Doe agreed.",
        "See No. 5 on p. 12 today.",
        "Apples, etc. and pears.",
        "The answer is no.",
        "Done…",
        "Next one.",
        "1. First item\n2. Second item.",
    ]


def test_sentence_splitter_cjk() -> None:
    text = "你好。我是学生！你呢？"
    assert [text[a:b] for a, b in sentence_spans(text)] == ["你好。", "我是学生！", "你呢？"]


# -- TextChunker ------------------------------------------------------------------------------
@pytest.mark.parametrize("counter", [words, quarter_chars])
@pytest.mark.parametrize("max_tokens", [8, 20, 64])
def test_text_chunker_properties_on_random_texts(counter: TokenCounter, max_tokens: int) -> None:
    rng = random.Random(1234 + max_tokens)
    chunker = TextChunker(max_tokens=max_tokens)
    for _ in range(15):
        text = random_text(rng, rng.randint(1, 12))
        chunks = chunker.chunk(doc(text), importance_weight=0.7, count_tokens=counter)
        assert_common(chunks, counter, max_tokens)
        assert_exact_spans(chunks, text)
        # In order, no overlap, only whitespace between chunks, everything covered.
        position = 0
        for chunk in chunks:
            assert chunk.start >= position
            assert not text[position : chunk.start].strip()
            position = chunk.end
        assert not text[position:].strip()
        assert squash("".join(c.text for c in chunks)) == squash(text)
        assert all(c.importance_weight == 0.7 for c in chunks)


def test_text_chunker_whitespace_normalised_concatenation_equals_text() -> None:
    rng = random.Random(7)
    for _ in range(10):
        text = random_text(rng, 6).replace("z", "")  # no hard-split words here
        chunks = TextChunker(max_tokens=16).chunk(
            doc(text), importance_weight=0.5, count_tokens=words
        )
        assert " ".join(" ".join(c.text for c in chunks).split()) == " ".join(text.split())


def test_text_chunker_keeps_fitting_paragraphs_whole() -> None:
    rng = random.Random(99)
    for _ in range(10):
        text = random_text(rng, 10)
        chunks = TextChunker(max_tokens=40).chunk(
            doc(text), importance_weight=0.5, count_tokens=words
        )
        for paragraph in re.split(r"\n[^\S\n]*\n", text):
            paragraph = paragraph.strip()
            if paragraph and words(paragraph) <= 40:
                assert any(paragraph in c.text for c in chunks), paragraph


def test_text_chunker_packs_paragraphs_greedily() -> None:
    text = "One two three.\n\nFour five six.\n\nSeven eight nine."
    chunks = TextChunker(max_tokens=8).chunk(doc(text), importance_weight=0.5, count_tokens=words)
    assert [c.text for c in chunks] == ["One two three.\n\nFour five six.", "Seven eight nine."]
    assert (chunks[1].start, chunks[1].end) == (text.index("Seven"), len(text))


def test_text_chunker_splits_big_paragraph_at_sentences_then_words_then_hard() -> None:
    sentences = "Alpha beta gamma delta. Epsilon zeta eta theta. Iota kappa lambda mu."
    chunks = TextChunker(max_tokens=8).chunk(
        doc(sentences), importance_weight=0.5, count_tokens=words
    )
    assert [c.text for c in chunks] == [
        "Alpha beta gamma delta. Epsilon zeta eta theta.",
        "Iota kappa lambda mu.",
    ]
    run_on = " ".join(f"w{i}" for i in range(30))
    chunks = TextChunker(max_tokens=8).chunk(doc(run_on), importance_weight=0.5, count_tokens=words)
    assert all(c.token_count <= 8 for c in chunks)
    assert " ".join(c.text for c in chunks) == run_on
    giant = "x" * 1000
    chunks = TextChunker(max_tokens=8).chunk(
        doc(giant), importance_weight=0.5, count_tokens=quarter_chars
    )
    assert "".join(c.text for c in chunks) == giant
    assert all(c.token_count <= 8 for c in chunks)


def test_text_chunker_prefers_line_breaks_in_unpunctuated_blocks() -> None:
    lines = [f"- item number {i} has four" for i in range(12)]
    text = "\n".join(lines)
    chunks = TextChunker(max_tokens=20).chunk(doc(text), importance_weight=0.5, count_tokens=words)
    for chunk in chunks:  # every chunk is a run of whole lines
        assert all(line in lines for line in chunk.text.split("\n"))


def test_text_chunker_recounts_when_parts_underestimate_the_whole() -> None:
    def newline_costs(text: str) -> int:  # a tokenizer where "\n\n" is a token of its own
        return len(text.split()) + 2 * text.count("\n\n")

    text = "\n\n".join(["a b c d"] * 6)
    chunks = TextChunker(max_tokens=10).chunk(
        doc(text), importance_weight=0.5, count_tokens=newline_costs
    )
    assert_common(chunks, newline_costs, 10)
    assert squash("".join(c.text for c in chunks)) == squash(text)


def test_text_chunker_counts_sparingly() -> None:
    text = "\n\n".join("Short sentence here. Another one follows." for _ in range(200))
    counter = CountingCounter(words)
    chunks = TextChunker(max_tokens=64).chunk(
        doc(text), importance_weight=0.5, count_tokens=counter
    )
    assert counter.calls <= 200 + len(chunks) + 5  # once per paragraph, once per chunk


def test_empty_document_gives_no_chunks() -> None:
    for chunker in (TextChunker(), TextChunkerWithOverlap(), CsvChunker()):
        assert chunker.chunk(doc(" \n\n "), importance_weight=0.5, count_tokens=words) == []


def test_text_chunker_counts_a_megabyte_in_linear_work() -> None:
    """Token counting is the chunker's cost: over a megabyte it counts each character about
    twice (1.8 measured), never once per boundary candidate. Its time is bench/ingest.py's."""
    text = random_text(random.Random(5), 4000)
    while len(text) < 1_000_000:
        text += text
    text = text[:1_000_000]
    counted = 0

    def counting(piece: str) -> int:
        nonlocal counted
        counted += len(piece)
        return words(piece)

    chunks = TextChunker(max_tokens=256).chunk(
        doc(text), importance_weight=0.5, count_tokens=counting
    )
    assert chunks and " ".join(c.text for c in chunks).split() == text.split()
    assert counted <= 3 * len(text), f"{counted / len(text):.1f} characters counted per character"


# -- TextChunkerWithOverlap -------------------------------------------------------------------
@pytest.mark.parametrize("counter", [words, quarter_chars])
def test_overlap_chunker_properties(counter: TokenCounter) -> None:
    rng = random.Random(2024)
    max_tokens, overlap_tokens = 40, 12
    chunker = TextChunkerWithOverlap(max_tokens=max_tokens, overlap_tokens=overlap_tokens)
    overlapping = 0
    for _ in range(15):
        text = random_text(rng, rng.randint(2, 10))
        chunks = chunker.chunk(doc(text), importance_weight=0.7, count_tokens=counter)
        assert_common(chunks, counter, max_tokens)
        assert_exact_spans(chunks, text)
        assert all(c.importance_weight == 0.7 for c in chunks)
        assert chunks[0].properties["overlap_chars"] == 0
        covered = 0
        for previous, chunk in itertools.pairwise(chunks):
            overlap_chars = chunk.properties["overlap_chars"]
            new_start = chunk.start + overlap_chars
            assert chunk.start >= previous.start and chunk.end > previous.end
            assert not text[previous.end : new_start].strip(), "new content follows seamlessly"
            if overlap_chars:
                overlapping += 1
                repeated = text[chunk.start : min(previous.end, new_start)]
                assert previous.text.endswith(repeated)
                assert counter(repeated) <= overlap_tokens
            covered = chunk.end
        assert not text[max(covered, chunks[-1].end) :].strip()
    assert overlapping > 20


def test_overlap_chunker_starts_with_trailing_sentences() -> None:
    text = "A b c. D e f. G h i.\n\nJ k l. M n o."
    chunks = TextChunkerWithOverlap(max_tokens=9, overlap_tokens=3).chunk(
        doc(text), importance_weight=0.5, count_tokens=words
    )
    assert [c.text for c in chunks] == ["A b c. D e f. G h i.", "G h i.\n\nJ k l. M n o."]
    assert chunks[1].properties["overlap_chars"] == len("G h i.\n\n")


def test_overlap_uses_trailing_words_when_a_sentence_is_too_long() -> None:
    text = " ".join(f"w{i}" for i in range(40)) + "."
    chunks = TextChunkerWithOverlap(max_tokens=10, overlap_tokens=3).chunk(
        doc(text), importance_weight=0.5, count_tokens=words
    )
    for previous, chunk in itertools.pairwise(chunks):
        assert chunk.start < previous.end
        assert words(text[chunk.start : previous.end]) <= 3


@pytest.mark.parametrize("overlap", [-1, 64, 100])
def test_overlap_must_be_below_max_tokens(overlap: int) -> None:
    with pytest.raises(EngramValidationError, match="overlap_tokens"):
        TextChunkerWithOverlap(max_tokens=64, overlap_tokens=overlap)


# -- CsvChunker -------------------------------------------------------------------------------
def random_csv(rng: random.Random, rows: int) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "name", "notes"])
    for i in range(rows):
        notes = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 12)))
        if rng.random() < 0.3:
            notes += "\nsecond line, with comma"
        if rng.random() < 0.1:
            notes += ' and "quotes"'
        writer.writerow([i, rng.choice(VOCAB), notes])
    return out.getvalue()


def parse(text: str) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(text)) if row]


@pytest.mark.parametrize("max_tokens", [16, 40, 128])
def test_csv_chunker_repeats_header_and_keeps_rows_whole(max_tokens: int) -> None:
    rng = random.Random(max_tokens)
    for _ in range(10):
        text = random_csv(rng, rng.randint(1, 60))
        header, *rows = parse(text)
        chunks = CsvChunker(max_tokens=max_tokens).chunk(
            doc(text, csv_delimiter=","), importance_weight=0.7, count_tokens=words
        )
        assert_common(chunks, words, max_tokens)
        seen: list[list[str]] = []
        for chunk in chunks:
            assert chunk.importance_weight == 0.7
            first, *chunk_rows = parse(chunk.text)
            assert first == header, "every chunk starts with the header"
            assert chunk.text == text.split("\n")[0] + "\n" + text[chunk.start : chunk.end]
            if "row_part" not in chunk.properties:
                assert (
                    chunk_rows
                    == rows[chunk.properties["row_start"] - 1 : chunk.properties["row_end"] - 1]
                )
                seen.extend(chunk_rows)
        if not any("row_part" in c.properties for c in chunks):
            assert seen == rows, "all rows, whole, in order"


def test_csv_quoted_newlines_do_not_split_rows() -> None:
    text = 'k,v\n1,"a\nb\nc"\n2,"d\n\ne"\n3,f\n'
    chunks = CsvChunker(max_tokens=15).chunk(doc(text), importance_weight=0.5, count_tokens=len)
    assert_common(chunks, len, 15)  # rows 2+3 fit by the sum of parts, not by the re-count
    assert [parse(c.text)[1:] for c in chunks] == [
        [["1", "a\nb\nc"]],
        [["2", "d\n\ne"]],
        [["3", "f"]],
    ]


def test_csv_oversized_row_is_split_on_fields_with_header() -> None:
    text = "a,b,c,d\n" + ",".join(" ".join(["word"] * 6) for _ in range(4)) + "\nx,y,z,w\n"
    chunks = CsvChunker(max_tokens=14).chunk(doc(text), importance_weight=0.3, count_tokens=words)
    assert_common(chunks, words, 14)
    parts = [c for c in chunks if "row_part" in c.properties]
    assert len(parts) >= 2
    for chunk in parts:
        assert chunk.text.startswith("a,b,c,d\n")
        body = chunk.text.removeprefix("a,b,c,d\n")
        assert all(field.strip() == " ".join(["word"] * 6) for field in body.split(","))
    assert chunks[-1].text == "a,b,c,d\nx,y,z,w"
    assert all(c.importance_weight == 0.3 for c in chunks)


def test_csv_field_longer_than_limit_is_split_hard() -> None:
    text = "h\n" + "y" * 500 + "\n"
    chunks = CsvChunker(max_tokens=10).chunk(
        doc(text), importance_weight=0.5, count_tokens=quarter_chars
    )
    assert_common(chunks, quarter_chars, 10)
    assert "".join(c.text.removeprefix("h\n") for c in chunks) == "y" * 500


def test_csv_header_only_and_semicolon_sniffing() -> None:
    chunks = CsvChunker().chunk(doc("just,a,header\n"), importance_weight=0.5, count_tokens=words)
    assert [c.text for c in chunks] == ["just,a,header"]
    text = "a;b\n1;2\n3;4\n"
    chunks = CsvChunker(max_tokens=8).chunk(doc(text), importance_weight=0.5, count_tokens=words)
    assert [c.text for c in chunks] == ["a;b\n1;2\n3;4"]


# -- weight and resolution --------------------------------------------------------------------
@pytest.mark.parametrize(
    "chunker",
    [
        TextChunker(max_tokens=8),
        TextChunkerWithOverlap(max_tokens=8, overlap_tokens=2),
        CsvChunker(max_tokens=8),
    ],
)
@pytest.mark.parametrize("weight", [0.0, 0.3, 0.7, 1.0])
def test_every_builtin_chunker_propagates_importance_weight(
    chunker: Chunker, weight: float
) -> None:
    text = "h1,h2\n" + "\n".join(f"v{i} a b,c d e" for i in range(20))
    chunks = chunker.chunk(doc(text), importance_weight=weight, count_tokens=words)
    assert len(chunks) > 1
    assert {c.importance_weight for c in chunks} == {weight}


def test_resolve_chunker() -> None:
    default = resolve_chunker(None, max_tokens=100, overlap_tokens=10)
    assert type(default) is TextChunker and default.max_tokens == 100
    overlap = resolve_chunker(TextChunkerWithOverlap, max_tokens=100, overlap_tokens=10)
    assert isinstance(overlap, TextChunkerWithOverlap)
    assert (overlap.max_tokens, overlap.overlap_tokens) == (100, 10)
    csv_chunker = resolve_chunker(CsvChunker, max_tokens=50, overlap_tokens=10)
    assert isinstance(csv_chunker, CsvChunker) and csv_chunker.max_tokens == 50
    instance = TextChunker(max_tokens=30)
    assert resolve_chunker(instance, max_tokens=100, overlap_tokens=10) is instance


@pytest.mark.parametrize("bad", ["TextChunker", 5, object(), str, TextChunker.chunk])
def test_resolve_chunker_rejects_other_values(bad: object) -> None:
    with pytest.raises(EngramValidationError) as info:
        resolve_chunker(bad, max_tokens=100, overlap_tokens=10)  # type: ignore[arg-type]
    assert "Chunker subclass" in str(info.value) and "instance" in str(info.value)


def test_resolve_chunker_reports_unbuildable_classes() -> None:
    class NeedsMore(Chunker):
        def __init__(self, max_tokens: int, extra: str) -> None:
            super().__init__(max_tokens)

        def chunk(
            self,
            document: LoadedDocument,
            *,
            importance_weight: float,
            count_tokens: Callable[[str], int],
        ) -> list[ChunkDraft]:
            return []

    with pytest.raises(EngramValidationError, match="pass a ready-made instance"):
        resolve_chunker(NeedsMore, max_tokens=100, overlap_tokens=10)
    with pytest.raises(EngramValidationError, match="max_tokens"):
        resolve_chunker(TextChunker, max_tokens=4, overlap_tokens=0)
    with pytest.raises(EngramValidationError, match="overlap_tokens"):
        resolve_chunker(TextChunkerWithOverlap, max_tokens=64, overlap_tokens=64)


def test_csv_chunker_falls_back_to_lines_when_csv_cannot_parse() -> None:
    text = "a,b\n1,x\ry\n2,z\n"  # a lone CR in an unquoted field makes the csv module give up
    chunks = CsvChunker(max_tokens=8).chunk(doc(text), importance_weight=0.4, count_tokens=words)
    assert chunks and all(c.importance_weight == 0.4 for c in chunks)
    assert squash("".join(c.text.removeprefix("a,b\n") for c in chunks)) == squash(text[4:])
