"""Tokens, sentences and chat speakers: the shared front end of the offline extractors.

A single regular expression tokenises; abbreviations ("Dr.", "St.", "U.S.") stay one token so
a full stop token always ends a sentence (except after a lone initial, "J. K. Rowling").
Lines shaped ``Name: text`` (chat transcripts, the LoCoMo format) yield a speaker, to whom the
first-person pronouns of that line are resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engramdb.extract.heuristic.lexicon import COMMON_WORDS

__all__ = ["Sentence", "Token", "clean_input", "speaker_prefix", "split_sentences", "tokenize"]

_ABBREVIATIONS = (
    "Dr|Mr|Mrs|Ms|Mx|Prof|St|Mt|Ft|Jr|Sr|Inc|Ltd|Corp|Co|Gen|Sen|Rep|Gov|Capt|Lt|Col|Sgt|Rev|"
    "Hon|Ave|Blvd|Rd|vs|etc|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|No|Nos|Vol|"
    "Fig|Dept|Univ|Bros|Messrs|Mme|Mlle|e\\.g|i\\.e|a\\.m|p\\.m|A\\.M|P\\.M"
)
_TOKEN = re.compile(
    r"(?:[A-Za-z]\.){2,}(?![A-Za-z])"  # U.S., e.g.
    rf"|(?:{_ABBREVIATIONS})\.(?!\w)"  # Dr. St. Inc.
    r"|\d+(?:[.,:]\d+)*(?:st|nd|rd|th|s)?(?![\w])"  # 1,200 3.5 1:56 1990s 8th
    r"|[^\W_](?:[\w&\u0300-\u036f]|['’\-](?=[^\W_]))*"  # O'Brien Caroline's AT&T Серге́й
    r"|\S"
)
#: Abbreviations that may also end a sentence ("... bought Acme Corp. The deal ...").
_ENDING_ABBREVIATIONS = frozenset({"inc.", "ltd.", "corp.", "co.", "etc.", "jr.", "sr.", "bros."})
_SENTENCE_END = frozenset({".", "!", "?", "…"})
_CLOSERS = frozenset({'"', "'", "”", "’", ")", "]", "»"})
_SPEAKER = re.compile(r"[ \t]*([A-Z][\w'’.\-]*(?:[ \t][A-Z][\w'’.\-]*){0,2})[ \t]*:[ \t]+(?=\S)")


@dataclass(slots=True)
class Token:
    """One token: its text, lower-cased text (curly apostrophes made straight) and offsets
    into the chunk."""

    text: str
    lower: str
    start: int
    end: int

    @property
    def is_cap(self) -> bool:
        """Starts like a name: "Paris", "LGBTQ", "iPhone", "St." (not "I")."""
        t = self.text
        if t[0].isupper():
            return t != "I" and not self.lower.startswith(("i'", "i’"))
        return len(t) > 1 and t[0].islower() and t[1].isupper()

    @property
    def is_word(self) -> bool:
        return self.text[0].isalpha()

    @property
    def is_upper(self) -> bool:
        """An all-capital word of two letters or more ("NASA", "THE")."""
        return len(self.text) > 1 and self.text.isupper()


@dataclass(slots=True)
class Sentence:
    """Tokens of one sentence plus the chat speaker of its line (None outside chat)."""

    tokens: list[Token]
    start: int
    end: int
    speaker: str | None


def clean_input(text: object, max_chars: int) -> str:
    """Any input as extractable text: bytes decoded, at most ``max_chars`` characters, line
    endings normalised, NUL removed, lone surrogates replaced (same length) so names can
    always be encoded as UTF-8 downstream."""
    if not isinstance(text, str):
        text = str(text, "utf-8", "replace") if isinstance(text, bytes) else str(text)
    text = text[:max_chars].replace("\r\n", "\n").replace("\r", "\n").replace("\0", "")
    return text.encode("utf-8", "replace").decode("utf-8")


def tokenize(text: str, offset: int = 0) -> list[Token]:
    """Split ``text`` into tokens whose offsets are relative to the chunk (``offset`` added)."""
    return [
        Token(m.group(), m.group().lower().replace("’", "'"), m.start() + offset, m.end() + offset)
        for m in _TOKEN.finditer(text)
    ]


def speaker_prefix(line: str) -> tuple[str | None, int]:
    """The ``Name:`` prefix of a chat line and where the message starts (0 when none)."""
    m = _SPEAKER.match(line)
    if m is None:
        return None, 0
    name = m.group(1).rstrip(".")
    first = name.split()[0].lower()
    if first in COMMON_WORDS or any(ch.isdigit() for ch in name):
        return None, 0
    return name, m.end()


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of ``text``, line by line (a line break always ends a sentence)."""
    sentences: list[Sentence] = []
    pos = 0
    for line in text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        if not line.strip():
            continue
        speaker, body = speaker_prefix(line)
        tokens = tokenize(line[body:], line_start + body)
        current: list[Token] = []
        n = len(tokens)
        for i, tok in enumerate(tokens):
            current.append(tok)
            if not _ends_sentence(tokens, i, n):
                continue
            # Keep closing quotes/brackets with the sentence they close.
            if i + 1 < n and tokens[i + 1].text in _CLOSERS and tokens[i + 1].start == tok.end:
                continue
            sentences.append(Sentence(current, current[0].start, current[-1].end, speaker))
            current = []
        if current:
            sentences.append(Sentence(current, current[0].start, current[-1].end, speaker))
    return sentences


def _ends_sentence(tokens: list[Token], i: int, n: int) -> bool:
    tok = tokens[i]
    if i + 1 >= n:
        return False
    nxt = tokens[i + 1]
    if tok.text in _CLOSERS:
        prev = tokens[i - 1].text if i else ""
        return prev in _SENTENCE_END and nxt.text not in _SENTENCE_END
    if tok.text in _SENTENCE_END:
        if nxt.text in _SENTENCE_END or nxt.text in _CLOSERS:
            return False
        # Not after an initial: "J. K. Rowling".
        return not (
            tok.text == "." and i and len(tokens[i - 1].text) == 1 and tokens[i - 1].text.isupper()
        )
    if tok.lower in _ENDING_ABBREVIATIONS:
        return nxt.is_cap and nxt.lower in COMMON_WORDS
    return False
