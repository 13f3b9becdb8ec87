"""Extractive summaries: the most central sentences of a chunk, in their original order.

Used when no LLM is configured. "Central" means a sentence whose content words are frequent
in the whole chunk, normalised by the square root of its length so one long sentence does
not win by size alone. Deterministic: ties go to the earlier sentence.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from engramdb.extract.heuristic.lexicon import STOPWORDS

__all__ = ["extractive_summary"]

#: Text beyond this is not read: a summary of a chunk never needs more, and it bounds the
#: cost of a pathological input.
_MAX_INPUT_CHARS = 200_000
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_SPACE = re.compile(r"\s+")
_SPEAKER = re.compile(r"^[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}: ")


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = _SPACE.sub(" ", line).strip()
        if line:
            out.extend(s.strip() for s in _SENTENCE_BREAK.split(line) if s.strip())
    return out


def _content_words(sentence: str) -> list[str]:
    # A chat speaker prefix ("Caroline: ...") repeats on every line: not content.
    sentence = _SPEAKER.sub("", sentence, count=1)
    words = (w.lower().replace("’", "'") for w in _WORD.findall(sentence))
    return [w for w in words if len(w) > 2 and w not in STOPWORDS]


def _truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    if max_chars <= 1:
        return text[:max_chars]
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def extractive_summary(text: str, *, max_sentences: int = 2, max_chars: int = 400) -> str:
    """Up to ``max_sentences`` of the most central sentences of ``text``, in text order,
    at most ``max_chars`` characters (the last sentence cut at a word with "…" if needed).

    Returns "" only for blank text; any other text yields a non-empty summary (limits below 1
    are treated as 1).
    """
    if not isinstance(text, str) or not text.strip():
        return ""
    max_sentences = max(1, max_sentences)
    max_chars = max(1, max_chars)
    sentences = _sentences(text[:_MAX_INPUT_CHARS])
    if not sentences:
        return _truncate(_SPACE.sub(" ", text).strip(), max_chars) or text.strip()[:max_chars]
    words = [_content_words(s) for s in sentences]
    freq = Counter(w for ws in words for w in set(ws))
    scored: list[tuple[float, int]] = []
    for i, ws in enumerate(words):
        unique = set(ws)
        score = sum(freq[w] for w in unique) / math.sqrt(len(ws) + 1)
        if len(unique) < 4:
            score *= 0.5  # "Hey Mel!", "Thanks!": greetings say nothing about the chunk
        scored.append((score, i))
    ranked = sorted(scored, key=lambda p: (-p[0], p[1]))
    chosen = sorted(i for _, i in ranked[:max_sentences])
    while len(chosen) > 1 and len(" ".join(sentences[i] for i in chosen)) > max_chars:
        # Drop the weakest chosen sentence until the rest fits.
        weakest = min(chosen, key=lambda i: (scored[i][0], -i))
        chosen.remove(weakest)
    summary = _truncate(" ".join(sentences[i] for i in chosen), max_chars)
    return summary or _truncate(sentences[0], max_chars)
