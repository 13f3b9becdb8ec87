"""Name identity and the type decision shared by the heuristic and spaCy extractors."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from engramdb.extract.heuristic.gazetteer import (
    EVENT_SUFFIXES,
    FIRST_NAMES,
    HOLIDAYS,
    MONTHS,
    NATIONALITIES,
    ORG_PREFIXES,
    ORG_SUFFIXES,
    ORGANIZATIONS,
    PLACE_PREFIXES,
    PLACE_SUFFIXES,
    PLACES,
    TITLES,
    WEEKDAYS,
)
from engramdb.extract.heuristic.lexicon import RELATIVE_TIME, word_set

__all__ = [
    "WORK_SUFFIXES",
    "best_type",
    "clean_name",
    "is_relative_time",
    "is_small_number",
    "name_key",
    "name_votes",
]

_SPACE = re.compile(r"\s+")
_ROMAN = re.compile(r"(?:i{1,3}|iv|vi{0,3}|ix|x{1,3})")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"(?:['’]s|s['’])$", re.IGNORECASE)
_EDGE_PUNCT = " .,:;!?\"'()[]{}“”‘’«»-–—*_#"
_NUMBER_WORDS = word_set(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred a an dozen couple few several both once twice first second third "
    "fourth fifth half single"
)
#: A first or last token that makes a name a creative work or a document.
WORK_SUFFIXES = word_set(
    "symphony sonata concerto requiem opera treaty act accord declaration constitution "
    "manifesto charter bible"
)


def name_key(name: str) -> str:
    """Identity form of a name: NFKC, case-folded, spaces collapsed, leading article and
    trailing possessive removed ("The Louvre's" → "louvre"). Same rule as the graph builder's."""
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    text = _POSSESSIVE.sub("", _ARTICLE.sub("", text))
    return text.casefold().strip(_EDGE_PUNCT)


def clean_name(name: str) -> str:
    """Display form: spaces collapsed, edge punctuation, leading "the" and a trailing
    possessive removed; case kept ("the Grand Canyon's" → "Grand Canyon")."""
    text = _SPACE.sub(" ", name).strip(_EDGE_PUNCT)
    if text[:4].lower() == "the " and len(text) > 4:
        text = text[4:]
    text = _POSSESSIVE.sub("", text).strip(_EDGE_PUNCT)
    if text.endswith(".") and text.count(".") == 1:
        text = text[:-1]
    return text


def is_relative_time(name: str) -> bool:
    """True for "yesterday", "last week", "two days ago", "the best month": no fixed point in
    time (no digit, month, weekday or holiday to anchor it)."""
    low = name.lower()
    words = re.findall(r"[a-z']+|\d+", low)
    if not words:
        return True
    if all(w in RELATIVE_TIME or (w.isdigit() and len(w) < 3) for w in words):
        return True
    anchored = (
        any(ch.isdigit() for ch in low)
        or any(w in MONTHS or w in WEEKDAYS for w in words)
        or any(h in low for h in HOLIDAYS)
    )
    return not anchored


def is_small_number(name: str) -> bool:
    """True for "3", "two", "a couple": counts too common to be useful graph nodes."""
    words = name.lower().replace(",", "").split()
    if not words:
        return True
    if len(words) == 1 and words[0].isdigit():
        return int(words[0]) < 100
    return all(w in _NUMBER_WORDS for w in words)


def name_votes(words: list[str]) -> dict[str, float]:
    """Type votes from a name alone (lower-case words): gazetteers and suffix/prefix cues."""
    votes: dict[str, float] = {}
    if not words:
        return votes
    full = " ".join(words)
    first = words[0].rstrip(".")
    # Suffix cues look past a regnal or sequence number: "World War II", "Edward III".
    tail = [w for w in words if not _ROMAN.fullmatch(w) and not w.isdigit()] or words
    last = tail[-1].rstrip(".")

    def vote(type_: str, weight: float) -> None:
        votes[type_] = votes.get(type_, 0.0) + weight

    if full in ORGANIZATIONS:
        vote("ORGANIZATION", 6)
    if full in PLACES:
        vote("PLACE", 6)
    if len(words) == 1 and full in NATIONALITIES:
        vote("CONCEPT", 5)
    if len(words) > 1:
        if last in ORG_SUFFIXES:
            vote("ORGANIZATION", 6)
        if first in ORG_PREFIXES and "of" in words:
            vote("ORGANIZATION", 6)
        if last in PLACE_SUFFIXES:
            vote("PLACE", 5)
        if first in PLACE_PREFIXES:
            vote("PLACE", 5)
        if last in EVENT_SUFFIXES:
            vote("EVENT", 5.5)
        if last in WORK_SUFFIXES or first in WORK_SUFFIXES:
            vote("WORK", 5.5)
    if first in FIRST_NAMES and not (len(words) > 1 and votes):
        vote("PERSON", 4 + (1 if len(words) > 1 else 0))
    return votes


def best_type(votes: Mapping[str, float], words: Iterable[str], *, acronym: bool) -> str:
    """The winning type. Without a vote, all-capital acronyms and "X of Y" names are
    organisations, other names people (the most common unlabelled capitalised name in
    conversation). An acronym is a person only on strong evidence (a title, a speaker)."""
    word_list = list(words)
    if votes:
        # Ties break by a fixed order, so the result never depends on dict order.
        order = ("PERSON", "PLACE", "ORGANIZATION", "EVENT", "WORK", "PRODUCT", "CONCEPT")
        best = max(order, key=lambda t: (votes.get(t, 0.0), -order.index(t)))
        if best != "PERSON" or votes["PERSON"] >= 4 or not (acronym or "of" in word_list):
            return best
    return "ORGANIZATION" if acronym or "of" in word_list else "PERSON"


def strip_titles(words: list[str]) -> int:
    """How many leading words of a name are titles ("Dr.", "President", "Grandpa")."""
    n = 0
    while n < len(words) - 1 and words[n].rstrip(".") in TITLES:
        n += 1
    return n
