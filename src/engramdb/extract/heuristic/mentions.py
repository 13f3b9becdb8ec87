"""Mentions in one sentence: dates, times, money and numbers (regular expressions), names
(runs of capitalised tokens) and candidate concepts (determiner-led noun phrases).

Each mention carries type votes from its own words (gazetteers, suffixes) and from its
context (titles, "in"/"from" before a place, "my son" before a person...); the extractor sums
the votes of every mention of the same name in the chunk before deciding its type, so one
strong cue types every mention.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from engramdb.extract.heuristic.gazetteer import (
    FIRST_NAMES,
    HOLIDAYS,
    MONTHS,
    ORG_CUE_NOUNS,
    ORGANIZATIONS,
    PERSON_CUE_NOUNS,
    PLACE_CUE_NOUNS,
    PLACES,
    PLACES_REGIONS,
    TITLES,
    WEEKDAYS,
    WORK_CUE_NOUNS,
    WORK_VERBS,
)
from engramdb.extract.heuristic.lexicon import (
    ADJ_SKIP,
    COMMON_WORDS,
    DETERMINERS,
    GENERIC_NOUNS,
    INTERJECTIONS,
    NATIONALITIES_LOWER,
    PRONOUNS,
    RELATIVE_TIME,
    STOPWORDS,
    VERB_LEMMAS,
    word_set,
)
from engramdb.extract.heuristic.names import clean_name, name_key, name_votes, strip_titles
from engramdb.extract.heuristic.text import Sentence, Token

__all__ = ["Mention", "find_mentions"]

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept\.?|Sep\.?|Oct\.?|Nov\.?|Dec\.?)"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_SCALE = r"(?:million|billion|trillion|thousand|bn|mn|m|k)"
_CURRENCY_WORD = r"(?:dollars?|euros?|pounds?|yen|won|rupees?|francs?|pesos?|yuan|USD|EUR|GBP)"
_TEMPORAL = re.compile(
    rf"(?P<DATE>\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}"
    rf"|{_DAY}(?:\s+of)?\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+{_DAY},?\s+\d{{4}}"
    rf"|{_DAY}(?:\s+of)?\s+{_MONTH}(?![a-z])|{_MONTH}\s+{_DAY}(?![\d:,.%]\d|\s*%)(?!\w)"
    rf"|{_MONTH},?\s+\d{{4}})(?!\w)"
    r"|(?P<TIME>\d{1,2}:\d{2}(?:\s*(?:[aApP]\.[mM]\.|[aApP][mM]))?"
    r"|\d{1,2}\s*(?:[aApP]\.[mM]\.|[aApP][mM]))(?![\w])"
    rf"|(?P<MONEY>[$€£¥₹]\s?\d[\d,]*(?:\.\d+)?(?:\s?{_SCALE}(?![a-z]))?"
    rf"|\d[\d,]*(?:\.\d+)?(?:\s(?:million|billion|trillion|thousand))?\s{_CURRENCY_WORD}(?!\w))"
    r"|(?P<NUMBER>\d+(?:\.\d+)?\s?(?:%|percent(?!\w)|per cent(?!\w))"
    r"|\d+(?:\.\d+)?\s(?:million|billion|trillion)(?!\w)|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)"
    r"|(?P<YEAR>(?<![\d,.$€£/:])(?:1[0-9]|20)\d{2}s?(?![\d%]|[.,:]\d))",
    re.UNICODE,
)
_CONTRACTIONS = ("n't", "'m", "'re", "'ve", "'ll", "'d")
_DIGIT = re.compile(r"\d")
#: Lower-case words allowed inside a name between capitalised words.
_JOINERS = word_set("of de da di del della van von der den du la le y al bin ibn dos das")
_NAME_SUFFIX_WORDS = frozenset({"hospital", "fair", "day", "eve", "parade", "corporation"})
#: Words before a name that make it a place, with the weight of the vote.
_PLACE_PREPS = {
    **dict.fromkeys(word_set("in from across toward towards via"), 2.0),
    **dict.fromkeys(word_set("visit visited visiting visits"), 2.0),
    **dict.fromkeys(word_set("into around through outside"), 1.5),
    **dict.fromkeys(word_set("at to between"), 1.0),
    "near": 2.5,
}
_ORG_PREVS = {"for": 1.5, "joined": 2.0, "join": 2.0, "joining": 2.0}
_GREETINGS = word_set("hey hi hello dear thanks thank congrats congratulations bye yo")
_SPEECH_VERBS = word_set(
    "said says told tells asked asks replied thinks thought feels felt loves loved wants "
    "wanted believes knows knew added explained married met smiled laughed cried texted "
    "called wrote lives lived works worked was is has had"
)
_ORG_VERBS = word_set(
    "announced announces reported reports acquired acquires launched launches formed hired "
    "employs employed posted raised cut fired sued merged"
)
_PRODUCT_PREVS = word_set("released launched unveiled bought ordered upgraded")
_NOT_CONCEPTS = GENERIC_NOUNS | RELATIVE_TIME
_FULL_MONTHS = word_set(
    "january february march april may june july august september october november december"
)
_PLACE_VERBS = word_set("flows flowed lies borders bordered stretches rises")
_QUOTES = frozenset({'"', "“", "”", "'", "«", "»"})


@dataclass(slots=True)
class Mention:
    """A mention: token range ``[start, end)`` in its sentence, display name, identity key."""

    start: int
    end: int
    name: str
    key: str
    #: "entity" (name, date, number...) or "concept" (a determiner-led noun phrase, emitted
    #: only when it is a relation's object or repeated in the chunk).
    kind: str
    #: A type fixed by the pattern (DATE, TIME, MONEY, NUMBER); None when decided by votes.
    fixed_type: str | None = None
    votes: dict[str, float] = field(default_factory=dict)
    possessive: bool = False
    acronym: bool = False


def find_mentions(sentence: Sentence, text: str, lower_seen: set[str]) -> list[Mention]:
    """Mentions of one sentence, sorted by position; entity mentions never overlap each
    other, concept mentions may contain one leading entity ("the LGBTQ support group")."""
    toks = sentence.tokens
    n = len(toks)
    taken: list[bool] = [False] * n
    out: list[Mention] = []
    _temporal(sentence, text, taken, out)
    first = next((i for i, t in enumerate(toks) if t.is_word or t.text[0].isdigit()), n)
    i = 0
    while i < n:
        if taken[i] or not _can_start(toks[i]):
            i += 1
            continue
        end = _run_end(toks, taken, i)
        for m in _names(sentence, text, i, end, first, lower_seen):
            out.append(m)
            for k in range(m.start, m.end):
                taken[k] = True
        i = end
    for i, tok in enumerate(toks):
        if not taken[i] and tok.text.isdigit() and len(tok.text) >= 3:
            out.append(Mention(i, i + 1, tok.text, tok.text, "entity", "NUMBER"))
            taken[i] = True
    out.sort(key=lambda m: m.start)
    out.extend(_concepts(toks, out))
    out.sort(key=lambda m: (m.start, m.kind != "concept"))
    return out


def _temporal(sentence: Sentence, text: str, taken: list[bool], out: list[Mention]) -> None:
    chunk = text[sentence.start : sentence.end]
    if _DIGIT.search(chunk) is None:
        return  # every temporal/numeric pattern contains a digit
    starts = [t.start for t in sentence.tokens]
    for m in _TEMPORAL.finditer(chunk):
        kind = m.lastgroup or "NUMBER"
        a = bisect.bisect_left(starts, sentence.start + m.start())
        b = bisect.bisect_left(starts, sentence.start + m.end())
        if a >= b or any(taken[a:b]):
            continue
        if kind == "YEAR":
            kind = "DATE"
        surface = " ".join(m.group().split())
        for k in range(a, b):
            taken[k] = True
        out.append(Mention(a, b, surface, name_key(surface), "entity", kind))


def _can_start(tok: Token) -> bool:
    low = tok.lower
    if "'" in low and (low in PRONOUNS or low.endswith(_CONTRACTIONS)):
        return False  # "Let's", "Don't", "I'll" (a possessive "Caroline's" is a name)
    return tok.is_cap and not (tok.is_upper and low in COMMON_WORDS)


def _is_name_token(tok: Token) -> bool:
    return _can_start(tok) or (tok.text[0].isdigit() and len(tok.text) <= 4)


def _run_end(toks: list[Token], taken: list[bool], i: int) -> int:
    """End (exclusive) of the capitalised run starting at ``i``."""
    n = len(toks)
    j = i + 1
    end = j
    while j < n and not taken[j]:
        tok, prev = toks[j], toks[j - 1]
        if prev.lower.endswith(("'s", "s'")) and not (
            _can_start(tok) and tok.lower.rstrip(".") in _NAME_SUFFIX_WORDS
        ):
            break  # "Caroline's Mel" is two names; "St. Mary's Hospital" is one
        if _can_start(tok):
            j += 1
            end = j
            continue
        if tok.text[0].isdigit() and len(tok.text) <= 4 and prev.is_cap and end == j:
            j += 1  # "Route 66", "iPhone 15"
            end = j
            continue
        if tok.lower in _JOINERS or tok.text == "&":
            k = j + 1
            if tok.lower == "of" and k < n and toks[k].lower == "the":
                k += 1
            if k < n and not taken[k] and _can_start(toks[k]):
                j = k
                continue
        initial = tok.text == "." and len(prev.text) == 1 and prev.text.isupper()
        if initial and j + 1 < n and _can_start(toks[j + 1]):
            j += 1  # initials: "J. K. Rowling"
            continue
        break
    return end


def _names(
    sentence: Sentence, text: str, i: int, end: int, first: int, lower_seen: set[str]
) -> list[Mention]:
    """Mentions made from the capitalised run ``[i, end)``, after trimming ordinary words
    at a sentence start, a leading "The", titles, and splitting "<person> of <org>"."""
    toks = sentence.tokens
    start = i
    # A sentence-initial ordinary word ("However", "Yesterday", "Hey", "Every"), unless it is
    # a month opening a longer name ("May Johnson").
    month_name = toks[start].lower in MONTHS and end - start > 1
    if start == first and _ordinary_initial(toks[start]) and not month_name:
        start += 1
    had_article = start < end and toks[start].lower in ("the", "a", "an")
    while start < end and toks[start].lower in ("the", "a", "an"):
        start += 1
    while start < end and toks[start].lower in _JOINERS:
        start += 1
    if start >= end:
        return []
    words = [t.lower for t in toks[start:end]]
    whole = " ".join(words)
    plain = whole[:-2] if whole.endswith("'s") else whole
    if len(words) == 1 or whole in HOLIDAYS:
        date = _date_word(toks, start, end, whole, plain)
        if date is not None:
            return [date]
    # Split "Ibrahim Said of Cairo University" / "President of South Africa" at "of".
    if "of" in words:
        at = words.index("of")
        left = words[:at]
        titles_only = bool(left) and all(w.rstrip(".") in TITLES for w in left)
        if left and (titles_only or left[strip_titles(left)] in FIRST_NAMES):
            right = start + at + 1
            if right < end and toks[right].lower == "the":
                right += 1
            out = (
                [] if titles_only else _names(sentence, text, start, start + at, first, lower_seen)
            )
            out.extend(_names(sentence, text, right, end, first, lower_seen))
            return out
    titled = strip_titles(words)
    if titled and start + titled < end:
        start += titled
        words = words[titled:]
    # A lone unknown word opening a sentence, or one followed only by a number ("Session 1",
    # "Chapter 3"), is a name only with evidence.
    lone = all(w.isdigit() for w in words[1:])
    if start == first and lone and not _initial_evidence(toks, start, lower_seen):
        return []
    if start > first and len(words) == 1 and toks[start].lower in INTERJECTIONS:
        return []
    last = toks[end - 1]
    surface = text[toks[start].start : last.end]
    possessive = last.lower.endswith(("'s", "s'"))
    name = clean_name(surface)
    if not name or not any(ch.isalpha() for ch in name):
        return []
    key_words = name_key(name).split()
    mention = Mention(
        start,
        end,
        name,
        " ".join(key_words),
        "entity",
        votes=name_votes(key_words),
        possessive=possessive,
        acronym=len(words) == 1 and toks[start].is_upper,
    )
    if titled:
        mention.votes["PERSON"] = mention.votes.get("PERSON", 0.0) + 8
    if had_article or (start > 0 and toks[start - 1].lower in ("the", "a", "an")):
        # "The Rolling Stones", "the Danube": people's names take no article.
        if len(words) > 1:
            mention.votes["ORGANIZATION"] = mention.votes.get("ORGANIZATION", 0.0) + 1
        elif not words[0].endswith("s"):  # "the Nazis", "the Smiths" are groups
            mention.votes["PLACE"] = mention.votes.get("PLACE", 0.0) + 1
    first_text = toks[start].text
    if first_text[0].islower() or (len(words) > 1 and words[-1].isdigit()):
        mention.votes["PRODUCT"] = mention.votes.get("PRODUCT", 0.0) + 2  # "iPhone 15"
    _context_votes(toks, start, end, mention.votes)
    return [mention]


def _ordinary_initial(tok: Token) -> bool:
    low = tok.lower[:-2] if tok.lower.endswith("'s") else tok.lower
    if low in FIRST_NAMES or low in PLACES or low in ORGANIZATIONS:
        return False
    if low in COMMON_WORDS or low in INTERJECTIONS or "'" in low:
        return True  # ordinary words and contractions ("Haven't", "Can't")
    return low.endswith(("ly", "ing", "ed", "ness", "ment", "tion", "ful", "less", "ity"))


def _initial_evidence(toks: list[Token], i: int, lower_seen: set[str]) -> bool:
    """Whether a lone capitalised word at a sentence start is a name: known, not seen in
    lower case in the chunk, and followed by a verb, a possessive or a comma + name."""
    tok = toks[i]
    low = tok.lower[:-2] if tok.lower.endswith("'s") else tok.lower
    if low in FIRST_NAMES or low in PLACES or low in ORGANIZATIONS or low in NATIONALITIES_LOWER:
        return True
    if low in lower_seen:
        return False
    if i + 1 < len(toks):
        nxt = toks[i + 1].lower
        if nxt in ("was", "is", "has", "had") and i + 2 < len(toks):
            nxt = toks[i + 2].lower  # "Andreas was born"; not "Progress is slow"
        lemma = VERB_LEMMAS.get(nxt)
        return lemma is not None and lemma != nxt  # an inflected verb: "Andreas settled"
    return False


def _date_word(toks: list[Token], start: int, end: int, whole: str, plain: str) -> Mention | None:
    """A lone month, weekday or holiday as a DATE (not "May I...", not "May Johnson")."""
    tok = toks[start]
    if whole in HOLIDAYS:
        name = " ".join(t.text for t in toks[start:end])
        return Mention(start, end, name, name_key(name), "entity", "DATE")
    if end - start != 1:
        return None
    if plain in WEEKDAYS:
        return Mention(start, end, clean_name(tok.text), plain, "entity", "DATE")
    if whole in _FULL_MONTHS:
        if whole == "may" and (
            end >= len(toks) or toks[end].lower in ("i", "we", "you", "he", "she", "they", "it")
        ):
            return None
        if end < len(toks) and _can_start(toks[end]):
            return None
        return Mention(start, end, tok.text, whole, "entity", "DATE")
    return None


def _context_votes(toks: list[Token], start: int, end: int, votes: dict[str, float]) -> None:
    def vote(type_: str, weight: float) -> None:
        votes[type_] = votes.get(type_, 0.0) + weight

    prev = toks[start - 1].lower if start > 0 else ""
    back = start - 1
    if prev in ("the", "a", "an") and start > 1:  # look through an article
        back -= 1
        prev = toks[back].lower
    prev2 = toks[back - 1].lower if back > 0 else ""
    nxt = toks[end].lower if end < len(toks) else ""
    if prev in _GREETINGS:
        vote("PERSON", 4)
    if prev == "," and nxt in ("?", "!", ".", "") and start > 1:
        vote("PERSON", 3)  # vocative: "..., Grace?"
    if prev in _PLACE_PREPS:
        vote("PLACE", _PLACE_PREPS[prev])
        if prev2 in ("work", "works", "worked", "working"):
            vote("ORGANIZATION", 2.5)
    if prev in _ORG_PREVS:
        vote("ORGANIZATION", _ORG_PREVS[prev])
        if prev == "for" and prev2 in ("work", "works", "worked", "working"):
            vote("ORGANIZATION", 3)
    if prev in ("called", "named") and prev2:
        prev = prev2
    if prev in PERSON_CUE_NOUNS:
        vote("PERSON", 4)
    elif prev in ORG_CUE_NOUNS:
        vote("ORGANIZATION", 4)
    elif prev in PLACE_CUE_NOUNS or (prev == "of" and prev2 in PLACE_CUE_NOUNS):
        vote("PLACE", 4)
    elif prev in WORK_CUE_NOUNS or prev in WORK_VERBS:
        vote("WORK", 3)
    quoted = start > 0 and toks[start - 1].text in _QUOTES
    if quoted and end < len(toks) and toks[end].text in _QUOTES:
        vote("WORK", 5)
    if toks[end - 1].lower.endswith("'s"):
        vote("PERSON", 1)
    if prev in ("during", "throughout"):
        vote("EVENT", 1.5)
    if prev in _PRODUCT_PREVS:
        vote("PRODUCT", 1.5)
    if nxt == "," and end + 1 < len(toks) and toks[end + 1].lower in PLACES_REGIONS:
        vote("PLACE", 4)  # "Stanford, California"
    if nxt in _PLACE_VERBS:
        vote("PLACE", 2)
    if nxt in _ORG_VERBS:
        vote("ORGANIZATION", 1.5)
    elif nxt in _SPEECH_VERBS:
        vote("PERSON", 1.5)
        if nxt == "was" and end + 1 < len(toks) and toks[end + 1].lower == "born":
            vote("PERSON", 2)


def _concepts(toks: list[Token], entities: list[Mention]) -> list[Mention]:
    """Determiner-led noun phrases ("the homeless shelter", "a LGBTQ support group")."""
    by_start = {m.start: m for m in entities}
    covered = {k for m in entities for k in range(m.start, m.end)}
    out: list[Mention] = []
    n = len(toks)
    for i, tok in enumerate(toks):
        if tok.lower not in DETERMINERS or tok.lower == "that" or i in covered:
            continue  # "that" is more often "manuscripts that date to" than a determiner
        j = i + 1
        while j < n and toks[j].lower in ADJ_SKIP and toks[j].text.islower():
            j += 1
        start = j
        lead = by_start.get(j)
        if lead is not None:
            if lead.fixed_type is not None or lead.possessive:
                continue
            j = lead.end
        words: list[str] = []
        while j < n and len(words) < 3:
            t = toks[j]
            low = t.lower
            if j in covered or not t.text.isalpha() or not t.text.islower():
                break
            if low in STOPWORDS or low.endswith("ly") or low in RELATIVE_TIME - GENERIC_NOUNS:
                break
            lemma = VERB_LEMMAS.get(low)
            if lemma is not None and lemma != low:
                first_word = not words and lead is None
                if low.endswith("s"):
                    if not first_word:
                        break  # "the Danube flows", "the river rises": a verb
                elif not (low.endswith("ing") and first_word):
                    break
            words.append(low)
            j += 1
        if not words:
            continue
        head = words[-1]
        if len(head) < 3 or (len(words) == 1 and lead is None and head in _NOT_CONCEPTS):
            continue  # "the time", "a lot"; but "support group", "LGBTQ group" are specific
        if j < n and j in covered and by_start.get(j) is not None:
            continue  # an appositive cue: "my son Luke", "my band Midnight Riders"
        name = " ".join([lead.name, *words] if lead is not None else words)
        out.append(Mention(start, j, name, name_key(name), "concept", "CONCEPT"))
    return out
