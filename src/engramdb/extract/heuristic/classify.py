"""Token categories for the clause walker, verb detection, and relation names.

Without a part-of-speech tagger a token's role comes from word lists and position: "the
visit" is a noun (after a determiner), "Shares of ..." a plural noun (a sentence-initial -s
form), "Painting looks ..." a gerund subject, "after the company won" a clause opener but
"after Lomonosov" a preposition.
"""

from __future__ import annotations

from dataclasses import dataclass

from engramdb.extract.heuristic.lexicon import (
    ADJ_SKIP,
    AUX,
    CLAUSE_BREAKERS,
    DETERMINERS,
    INTERJECTIONS,
    NEGATIONS,
    NOT_VERBS,
    PREPOSITIONS,
    PRONOUNS,
    QUANTIFIERS,
    STOPWORDS,
    VERB_LEMMAS,
    word_set,
)
from engramdb.extract.heuristic.mentions import Mention
from engramdb.extract.heuristic.text import Token

__all__ = [
    "PARTICLES",
    "SPEAKER_PRONOUNS",
    "THIRD_PERSON",
    "Item",
    "Verb",
    "guess_lemma",
    "is_verb",
    "items",
    "relation_name",
]

PARTICLES = frozenset({"back", "up", "down", "out", "off", "away", "over", "along", "around"})
_COORD = frozenset({"and", "or", "&", "nor", "plus"})
_CONDITIONAL_BREAKERS = frozenset({"after", "before", "since", "until", "till"})
SPEAKER_PRONOUNS = word_set("i me we us i'm i've i'd i'll we're we've we'd we'll myself ourselves")
THIRD_PERSON = word_set("he she him her he's she's he'd she'd he'll she'll")
_COMPARATIVES = frozenset({"more", "less", "fewer", "greater", "better", "other", "rather"})
_WH_WORDS = frozenset({"how", "what", "why", "whose"})


@dataclass(slots=True)
class Item:
    """A mention ("M") or a classified token ("verb", "prep", "det", "word", "break"...)."""

    kind: str
    token: Token | None = None
    mention: Mention | None = None


@dataclass(slots=True)
class Verb:
    """A verb of a clause: its surface form, lemma, and whether it is a passive participle."""

    surface: str
    lemma: str
    passive: bool


def items(tokens: list[Token], mentions: list[Mention]) -> list[Item]:
    by_start: dict[int, Mention] = {}
    for m in mentions:
        cur = by_start.get(m.start)
        if cur is None or m.end > cur.end:
            by_start[m.start] = m
    out: list[Item] = []
    i, n = 0, len(tokens)
    while i < n:
        found = by_start.get(i)
        if found is not None:
            out.append(Item("M", mention=found))
            i = found.end
            continue
        out.append(Item(_category(tokens, i, by_start), tokens[i]))
        i += 1
    return out


def _category(tokens: list[Token], i: int, by_start: dict[int, Mention]) -> str:
    tok = tokens[i]
    prev = tokens[i - 1] if i else None
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    low = tok.lower
    if tok.text in (",",):
        return "comma"
    if low in _COORD:
        return "coord"
    if low == "than":
        return "det" if prev is not None and prev.lower in _COMPARATIVES else "break"
    if tok.text in ("(", "["):
        return "open"
    if tok.text in (")", "]"):
        return "close"
    if tok.text in (";", ":", "—", "–", "?", "!", ".", "…") or low in _WH_WORDS:
        return "break"
    if low in _CONDITIONAL_BREAKERS:
        return "break" if _starts_clause(tokens, i + 1, by_start) else "prep"
    if low == "that":
        return "det" if i + 1 in by_start else "break"
    if low in CLAUSE_BREAKERS:
        return "break"
    if low in NEGATIONS or low.endswith("n't"):
        return "neg"
    if low in SPEAKER_PRONOUNS or low in THIRD_PERSON or low in PRONOUNS:
        return "pron"
    if low == "to":
        if nxt is not None and is_verb(nxt, tok):
            return "aux"
        return "prep"
    if low in AUX:
        return "aux"
    if low in PREPOSITIONS:
        return "prep"
    if low in DETERMINERS or low in QUANTIFIERS or (low in ADJ_SKIP and tok.text.islower()):
        return "det"  # determiners, quantities and generic adjectives ("the best ...")
    if is_verb(tok, prev):
        if prev is None and low.endswith("ing") and nxt is not None and _finite(nxt):
            return "word"  # a gerund subject: "Painting looks like ..."
        return "verb"
    if low in PARTICLES:
        return "particle"
    if low in STOPWORDS or low in INTERJECTIONS or low.endswith("ly") or not tok.is_word:
        return "adv"
    return "word"


def _starts_clause(tokens: list[Token], i: int, by_start: dict[int, Mention]) -> bool:
    """Whether "after"/"before"/"since"/"until" at ``i - 1`` opens a clause ("after the
    company won ...", "before reaching ...") rather than a phrase ("after Lomonosov",
    "since 2008"): a verb follows within a few words, before any preposition or comma."""
    j = i
    while j < len(tokens) and j < i + 6:
        m = by_start.get(j)
        if m is not None:
            j = m.end
            continue
        tok = tokens[j]
        low = tok.lower
        if tok.text in (",", ".", ";", ":", "!", "?") or (low in PREPOSITIONS and j > i):
            return False
        if low in PRONOUNS and j == i:
            return True
        if is_verb(tok, tokens[j - 1] if j else None) or low in AUX:
            return True
        j += 1
    return False


def _finite(tok: Token) -> bool:
    low = tok.lower
    lemma = VERB_LEMMAS.get(low)
    return low in AUX or (lemma is not None and lemma != low and not low.endswith("ing"))


def is_verb(tok: Token, prev: Token | None) -> bool:
    low = tok.lower
    if not tok.is_word or low in NOT_VERBS:
        return False
    if prev is not None and prev.lower in DETERMINERS:
        return False  # "the visit", "my work"
    lemma = VERB_LEMMAS.get(low)
    if lemma is not None:
        # A sentence-initial -s form is a plural noun ("Shares of ..."), not a verb.
        return not (prev is None and low.endswith("s") and lemma != low)
    after_be = prev is not None and (prev.lower in AUX or prev.lower.endswith(("'m", "'re", "'s")))
    if after_be and low.endswith("ing") and len(low) > 5:
        return True  # "am carving", "I'm knitting": verbs missing from the word list
    return len(low) > 4 and low.endswith("ed") and tok.text.islower()


def relation_name(verb: Verb, extras: list[str], prep: str | None, concept: bool) -> str:
    base = verb.surface if verb.passive else verb.lemma
    parts: list[str] = []
    if base in ("be", "is"):
        if extras:
            parts = list(extras)
        elif prep:
            parts = ["is"]
        else:
            parts = ["is_a"] if concept else ["is"]
    else:
        parts = [base, *extras]
    if prep:
        parts.append(prep)
    words = [_clean(p) for p in parts]
    return "_".join(w for w in words if w)[:60]


def _clean(word: str) -> str:
    return "".join(ch for ch in word.lower() if ch.isalnum() or ch == "_")


#: Stem endings after which "-ed" dropped a silent "e" ("located", "settled", "continued").
_E_RESTORING = tuple(
    sorted(word_set("at iz is ur uc ag id ir iv ov ut bl tl dl pl gl kl nc rg ng rs us ud am"))
)


def guess_lemma(low: str) -> str:
    """Suffix rules for verbs missing from the word list ("relocated" → "relocate")."""
    if low.endswith("ied") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith("ed") and len(low) > 4:
        stem = low[:-2]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            return stem[:-1]
        if stem.endswith(_E_RESTORING):
            return stem + "e"
        return stem
    if low.endswith("ing") and len(low) > 5:
        return low[:-3]
    return low
