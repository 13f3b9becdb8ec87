"""Text spans shared by writing and reading: paragraphs and sentences of a text.

The chunkers (``ingest``) cut documents at these boundaries and retrieval (``passages``) picks
sentences out of chunks with them, so both must agree; the functions live here, below both.
Every span is ``(start, end)`` into the text given, stripped of surrounding whitespace, never
empty.
"""

from __future__ import annotations

import re

__all__ = ["paragraph_spans", "sentence_spans", "sentence_spans_between", "strip_span"]

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_NEXT_CHAR = re.compile(r"\s*(\S)")
#: A sentence end: terminal punctuation, closing quotes/brackets, then whitespace; the word
#: before it (group 1) decides abbreviations. CJK terminators need no following space.
_SENTENCE_END = re.compile(r"""(?<!\S)(\S*?)([.!?…]+)(["'”’»)\]]*)(?=\s)|[。！？]+[」』”’）)]*""")
_OPENERS = "\"'“‘«(["
#: Words ending in "." that almost never end a sentence (lower case, with the final dot).
_ABBREVIATIONS = frozenset(
    [
        "mr.", "mrs.", "ms.", "dr.", "prof.", "sr.", "jr.", "st.", "mt.", "rev.", "hon.",
        "gen.", "col.", "lt.", "sgt.", "capt.", "gov.", "sen.", "rep.", "e.g.", "i.e.", "cf.",
        "vs.", "viz.", "al.", "approx.", "ca.", "dept.", "univ.",
    ]
)  # fmt: skip
#: Abbreviations that do not end a sentence when a number follows ("No. 5", "pp. 10-12").
_NUMBERING = frozenset(
    ["no.", "nos.", "p.", "pp.", "vol.", "vols.", "fig.", "figs.", "ch.", "sec.", "art.", "eq."]
)


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` narrowed past whitespace at both ends (``start == end`` if all blank)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Blocks separated by blank lines, stripped, empty ones dropped."""
    spans: list[tuple[int, int]] = []
    position = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        start, end = strip_span(text, position, match.start())
        if start < end:
            spans.append((start, end))
        position = match.end()
    start, end = strip_span(text, position, len(text))
    if start < end:
        spans.append((start, end))
    return spans


def _ends_sentence(text: str, match: re.Match[str], start: int, end: int) -> bool:
    punct = match.group(2)
    if punct is None:
        return True  # a CJK terminator
    following = _NEXT_CHAR.match(text, match.end(), end)
    next_char = following.group(1) if following is not None else ""
    if next_char.islower():
        return False  # "etc. and", "approx. five", '"Why?" she asked'
    if "!" in punct or "?" in punct:
        return True
    raw_word = match.group(1)
    word = raw_word.lstrip(_OPENERS).lower() + "."
    if len(punct) == 1 and word in _ABBREVIATIONS:
        return False
    if len(punct) == 1 and next_char.isdigit() and word in _NUMBERING:
        return False
    if len(punct) == 1 and len(word) == 2 and raw_word[-1].isupper():
        return False  # an initial: "J. Smith"
    word_start = match.start(1)
    at_line_start = word_start == start or text[word_start - 1] == "\n"
    return not (word[:-1].isdigit() and at_line_start)  # "1. First item" is a list marker


def sentence_spans_between(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences of ``text[start:end]`` (one paragraph), as spans into ``text``."""
    spans: list[tuple[int, int]] = []
    position = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if _ends_sentence(text, match, start, end):
            span = strip_span(text, position, match.end())
            if span[0] < span[1]:
                spans.append(span)
            position = match.end()
    span = strip_span(text, position, end)
    if span[0] < span[1]:
        spans.append(span)
    return spans


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``, stripped of surrounding whitespace.

    Ends at ``.``, ``!``, ``?``, ``…`` (plus closing quotes/brackets) followed by whitespace, and
    at CJK terminators; not after common abbreviations ("Dr.", "e.g."), initials ("J."), list
    numbers at a line start ("1."), before a lower-case word, or inside numbers ("3.5").
    Sentences never span paragraphs.
    """
    spans: list[tuple[int, int]] = []
    for start, end in paragraph_spans(text):
        spans.extend(sentence_spans_between(text, start, end))
    return spans
