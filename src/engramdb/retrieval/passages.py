"""Passage-grain relevance shared by the retrievers that show chunk text.

A 256-token chunk holds several paragraphs (in a chat transcript, several turns) and usually
only one of them answers the question. The retrievers that place chunk text in a context
(HYBRID_COMPLETION, TEMPORAL, the graph-completion family) split their best chunks into
passages (paragraphs; long paragraphs into sentence groups) and score every passage: BM25 with
light stemming and the candidate pool's own statistics, plus its chunk's retrieval score, plus a
share of its best neighbour's match. Stored importance (and, with ``feedback_influence`` > 0,
feedback) weights multiply the result exactly as in hybrid ranking.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from engramdb.models.records import Node
from engramdb.retrieval.base import RecallOptions
from engramdb.retrieval.ranking import hybrid_score, rank_by_score
from engramdb.text import sentence_spans

__all__ = [
    "STOPWORDS",
    "WORD",
    "Passage",
    "PassageScoring",
    "bm25",
    "make_passages",
    "score_passages",
    "split_passages",
    "stem",
    "terms",
    "weighted_score",
]

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
WORD = re.compile(r"[^\W_]+")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
#: Function words: they match almost every passage, so they carry no evidence of relevance.
_STOPWORD_LIST = """
    a an the and or but if then else of to in on at by for with from as into onto about over
    under after before up down out off again further once than so too very just also only own
    same such both each few more most other some any all no nor not
    is are was were be been being am do does did doing have has had having
    can could will would shall should may might must
    i me my mine myself we us our ours you your yours he him his she her hers it its they them
    their theirs this that these those there here what which who whom whose when where why how
    s t d m ll re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn haven hasn
"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())

_VOWEL = re.compile(r"[aeiouy]")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light English suffix stripper, so "researching", "researched" and "research" meet.

    Deliberately conservative (plural and -ing/-ed/-ly endings only, stems of at least three
    letters with a vowel): a wrong merge costs precision at the top of the context, which is
    worth more than the odd missed inflection. Memoised (a pure function of one word): it
    runs for every word of every candidate passage, and vocabularies repeat.
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in (
        ("ies", "y"),
        ("ied", "y"),
        ("ing", ""),
        ("ed", ""),
        ("ly", ""),
        ("es", ""),
        ("s", ""),
    ):
        if not word.endswith(suffix) or (suffix == "s" and word.endswith(("ss", "us", "is"))):
            continue
        base = word[: -len(suffix)] + repl
        if len(base) < 3 or not _VOWEL.search(base):
            continue
        if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
            base = word[:-1]  # "notes" -> "note", "boxes" -> "box"
        if (
            suffix in ("ing", "ed")
            and len(base) > 3
            and base[-1] == base[-2]
            and base[-1] not in "lsz"
        ):
            base = base[:-1]  # "running" -> "run", but "falling" -> "fall"
        return _drop_e(base)
    return _drop_e(word)


def _drop_e(word: str) -> str:
    """ "hike", "hiked" and "hiking" all end up as "hik"."""
    return word[:-1] if len(word) > 3 and word.endswith("e") and not word.endswith("ee") else word


def terms(text: str) -> list[str]:
    """Stemmed lower-cased word tokens without function words, in order (with repeats)."""
    return [stem(w) for w in WORD.findall(text.lower()) if w not in STOPWORDS]


# --- passages ---------------------------------------------------------------------------------


def split_passages(text: str, max_words: int = 150) -> list[str]:
    """A chunk's text as passages: its paragraphs, and long paragraphs as groups of sentences
    of at most ``max_words`` words (a sentence longer than that stays whole)."""
    out: list[str] = []
    for raw in _PARAGRAPH_BREAK.split(text):
        paragraph = raw.strip()
        if not paragraph:
            continue
        if len(paragraph.split()) <= max_words:
            out.append(paragraph)
            continue
        group: list[str] = []
        words = 0
        for start, end in sentence_spans(paragraph):
            sentence = paragraph[start:end]
            n = len(sentence.split())
            if group and words + n > max_words:
                out.append(" ".join(group))
                group, words = [], 0
            group.append(sentence)
            words += n
        if group:
            out.append(" ".join(group))
    return out


@dataclass(slots=True)
class Passage:
    """A paragraph (or sentence group) of a candidate chunk, with its scores."""

    text: str
    chunk: Node
    #: The chunk's position in the fused ranking and the passage's position in the chunk.
    chunk_rank: int
    position: int
    terms: Counter[str]
    lexical: float = 0.0
    #: Final score, higher is better (importance weight included).
    score: float = 0.0
    date: str | None = None


def make_passages(
    chunks: Sequence[tuple[Node, float]], max_words: int = 150, prose_words: int | None = None
) -> list[Passage]:
    """Every passage of ``chunks`` (ranked ``(chunk, score)`` pairs), in chunk order then text
    order (unscored). With ``prose_words``, a chunk that is one paragraph (prose, not a
    transcript of short turns) is split into sentence groups of at most that many words."""
    passages: list[Passage] = []
    for rank, (chunk, _) in enumerate(chunks):
        limit = max_words
        if prose_words is not None and not _PARAGRAPH_BREAK.search(chunk.text.strip()):
            limit = prose_words
        for position, text in enumerate(split_passages(chunk.text, limit)):
            passages.append(Passage(text, chunk, rank, position, Counter(terms(text))))
    return passages


def bm25(passages: Sequence[Passage], query_terms: Sequence[str], k1: float, b: float) -> None:
    """BM25 of every passage against the query, with the pool's own statistics (the store's
    BM25 ranks whole chunks and does not expose term statistics)."""
    n = len(passages)
    if not n:
        return
    avg = sum(sum(p.terms.values()) for p in passages) / n or 1.0
    unique = list(dict.fromkeys(query_terms))
    df = {t: sum(1 for p in passages if t in p.terms) for t in unique}
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in unique}
    for p in passages:
        length = sum(p.terms.values())
        score = 0.0
        for term in unique:
            tf = p.terms.get(term, 0)
            if tf:
                score += idf[term] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))
        p.lexical = score


@dataclass(frozen=True, slots=True)
class PassageScoring:
    """How a passage's relevance is composed, each part on a 0..1 scale: its own BM25 against
    the question, its chunk's retrieval score (the prior), and its best neighbour's BM25 (an
    answer often follows the turn that asked)."""

    lexical: float = 1.0
    chunk_prior: float = 0.6
    neighbour: float = 0.3
    bm25_k1: float = 1.2
    bm25_b: float = 0.75


def score_passages(
    passages: list[Passage],
    chunks: Sequence[tuple[Node, float]],
    query: str,
    opts: RecallOptions,
    scoring: PassageScoring = PassageScoring(),
) -> list[Passage]:
    """Score ``passages`` of ``chunks`` (``(chunk, retrieval score)``, higher is better) against
    ``query`` and return them best first; the importance weight enters through
    :func:`weighted_score`."""
    if not passages:
        return []
    bm25(passages, terms(query), scoring.bm25_k1, scoring.bm25_b)
    top_lexical = max(p.lexical for p in passages) or 1.0
    top_prior = max((score for _, score in chunks), default=0.0) or 1.0
    prior = {chunk.id: score / top_prior for chunk, score in chunks}
    by_chunk: dict[UUID, list[Passage]] = {}
    for p in passages:
        by_chunk.setdefault(p.chunk.id, []).append(p)
    for group in by_chunk.values():
        for i, p in enumerate(group):
            neighbours = [group[j].lexical for j in (i - 1, i + 1) if 0 <= j < len(group)]
            relevance = (
                scoring.lexical * p.lexical / top_lexical
                + scoring.chunk_prior * prior.get(p.chunk.id, 0.0)
                + scoring.neighbour * max(neighbours, default=0.0) / top_lexical
            )
            p.score = weighted_score(relevance, p.chunk, opts)
    return rank_by_score(passages, lambda p: p.score)


def weighted_score(relevance: float, node: Node, opts: RecallOptions) -> float:
    """``relevance`` times the importance factor of ``node`` (1.0 at weight 0.5, or when
    ``use_importance_weight`` is False) and, when ``feedback_influence`` > 0, its feedback
    factor; with personalization, the user's preference weight for the node (exactly 1.0 when
    the user never rated it)."""
    prefs = opts.preferences
    return hybrid_score(
        relevance,
        importance_weight=node.importance_weight,
        use_importance_weight=opts.use_importance_weight,
        feedback_weight=node.feedback_weight,
        feedback_influence=opts.feedback_influence,
        personal_weight=None if prefs is None else prefs.weight(node.id),
        personal_influence=0.0 if prefs is None else prefs.influence,
    ).final
