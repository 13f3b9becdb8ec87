"""Rule-based auto-routing for recall(): which search type runs when none was pinned.

No LLM call, no I/O. The rules live in ONE table, :data:`RULES`, evaluated top to bottom;
the first match wins and a query no rule matches runs HYBRID_COMPLETION (recall.md,
"auto_route"; SPEC R-REC-2):

1. ``quoted``       — the whole query, trimmed, is one quoted string → CHUNKS_LEXICAL
2. ``coding_rules`` — an explicit coding-rules / code-review phrase → CODING_RULES
3. ``temporal``     — a time preposition followed by an absolute date → TEMPORAL
4. (no rule)        — everything else → HYBRID_COMPLETION

The router deliberately applies no negation rule: "don't use coding rules" still names coding
rules. Negation suppression belongs to the skill gate alone (recall.md, "Skill gate").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engramdb.models.search_type import SearchType

__all__ = [
    "DEFAULT_SEARCH_TYPE",
    "RULES",
    "RULE_AUTO_ROUTE_OFF",
    "RULE_NO_LLM",
    "RULE_PINNED",
    "RouteDecision",
    "Rule",
    "is_coding_rules_query",
    "is_fully_quoted",
    "is_temporal_query",
    "resolve_search_type",
    "route",
    "should_retry_as_hybrid",
]

DEFAULT_SEARCH_TYPE = SearchType.HYBRID_COMPLETION
"""What a query runs when no routing rule matches, and what a failed routed type retries as."""

RULE_PINNED = "pinned"
"""Decision label: the caller passed ``query_type``; the router was bypassed."""

RULE_NO_LLM = "no_llm"
"""Decision label: no usable LLM and no ``query_type``, so plain CHUNKS."""

RULE_AUTO_ROUTE_OFF = "auto_route_off"
"""Decision label: ``auto_route=False``, so HYBRID_COMPLETION without consulting the table."""


# --- rule 1: fully quoted -------------------------------------------------------------------

# opening quote → closing quote. Straight quotes close themselves; typographic ones pair up.
_QUOTE_PAIRS: dict[str, str] = {'"': '"', "“": "”", "'": "'", "‘": "’"}
# Quote characters that double as an apostrophe: allowed inside the quoted text only between
# two letters/digits ("'don't panic'"), never elsewhere.
_APOSTROPHES = frozenset({"'", "’"})


def is_fully_quoted(query: str) -> bool:
    """True iff the trimmed query is ONE string wrapped in a matching pair of quotes.

    Accepted pairs: ``"…"``, ``“…”``, ``'…'``, ``‘…’``. The quoted text must contain a
    non-blank character and must not contain the closing quote again (so ``"a" and "b"`` is
    two quoted phrases, not one), except that an apostrophe-like closing quote is allowed
    between two word characters (``'don't panic'``). A query merely containing quotes is not
    fully quoted.
    """
    text = query.strip()
    if len(text) < 3:
        return False
    closing = _QUOTE_PAIRS.get(text[0])
    if closing is None or text[-1] != closing:
        return False
    inner = text[1:-1]
    if not inner.strip():
        return False
    for i, ch in enumerate(inner):
        if ch != closing:
            continue
        word_internal = (
            ch in _APOSTROPHES
            and 0 < i < len(inner) - 1
            and inner[i - 1].isalnum()
            and inner[i + 1].isalnum()
        )
        if not word_internal:
            return False
    return True


# --- rule 2: coding rules / code review -----------------------------------------------------

_SEP = r"[\s\-]+"  # "code review", "code-review", "coding  rules"
_CODING_RULES_RE = re.compile(
    rf"""\b(?:
        coding{_SEP}(?:rules?|guidelines?|standards?|conventions?|style{_SEP}guides?)
      | code{_SEP}(?:reviews?|reviewing|reviewers?|style{_SEP}guides?)
      | review{_SEP}(?:this|my|the|our|your){_SEP}code
      | style{_SEP}guides?{_SEP}for{_SEP}(?:code|coding)
      | lint(?:ing|er)?{_SEP}rules?
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)


def is_coding_rules_query(query: str) -> bool:
    """True iff the query contains an explicit coding-rules or code-review phrase.

    Case-insensitive, word-bounded, spaces or hyphens between words. Recognised phrases:
    "coding rule(s) / guideline(s) / standard(s) / convention(s) / style guide",
    "code review(s) / reviewing / reviewer(s) / style guide", "review this/my/the/our/your
    code", "style guide for code/coding", "lint / linting / linter rule(s)". Mentions of code
    or review on their own ("review the contract", "source code of X") do not count.
    """
    return _CODING_RULES_RE.search(query) is not None


# --- rule 3: time preposition + absolute date ------------------------------------------------

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# A year of the Common Era calendar: 1000-2999, not part of a longer number, not a decimal or
# a thousands group ("2,000"), and not a quantity ("2000 meters") or a BC year ("1500 BC").
_UNIT = (
    r"(?:%|percent|m|km|cm|mm|meters?|metres?|kilometers?|kilometres?|miles?|feet|foot|ft"
    r"|inch(?:es)?|yards?|kg|g|grams?|kilograms?|lbs?|pounds?|tons?|tonnes?|ml|l|liters?|litres?"
    r"|dollars?|euros?|usd|eur|gbp|yen|bytes?|kb|mb|gb|tb|tokens?|words?|lines?|rows?|items?"
    r"|steps?|calories|kcal|rpm|hz|mph|kph|ms"
    r"|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|units?|pieces?)"
)
_ERA_BC = r"(?:b\.?\s?c\.?|bce)(?![a-z])"
_YEAR = rf"(?:1\d{{3}}|2\d{{3}})(?!\d)(?![.,]\d)(?!\s*{_UNIT}\b)(?!\s*%)(?!\s*{_ERA_BC})"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_ABSOLUTE_DATE = rf"""
    (?:
        \d{{4}}-\d{{1,2}}(?:-\d{{1,2}})?\b                     # ISO: 2020-03-01, 2020-03
      | \d{{1,2}}[./-]\d{{1,2}}[./-]\d{{4}}\b                   # numeric: 01/03/2020, 1.3.2020
      | (?:the{_SEP})?{_DAY}(?:{_SEP}of)?{_SEP}{_MONTH},?{_SEP}{_YEAR}   # 8 May 2023
      | {_MONTH}{_SEP}{_DAY},?{_SEP}{_YEAR}                     # May 8, 2023
      | {_MONTH},?{_SEP}{_YEAR}                                 # July 1969
      | (?:the{_SEP})?(?:(?:early|mid|late|spring|summer|autumn|fall|winter|year|q[1-4])
            (?:{_SEP}of)?[\s\-]+)?{_YEAR}                       # 2019, early 2019, mid-2019
    )
"""
_TIME_PREPOSITION = (
    r"(?:in|on|before|after|since|until|till|during|by|from|around|between|as\s+of|prior\s+to)"
)
_TEMPORAL_RE = re.compile(
    rf"\b{_TIME_PREPOSITION}\s+{_ABSOLUTE_DATE}",
    re.IGNORECASE | re.VERBOSE,
)


def is_temporal_query(query: str) -> bool:
    """True iff a time preposition is directly followed by an absolute date.

    Prepositions: in, on, before, after, since, until, till, during, by, from, around,
    between, as of, prior to. Absolute dates: a year 1000-2999 (optionally "the year",
    "early/mid/late", a season or a quarter before it: "in early 2019", "in mid-2019"),
    month + year ("before July 1969"), a full date ("on 8 May 2023", "on May 8, 2023",
    "on the 8th of May 2023"), an ISO date ("since 2020-03-01") or a numeric date
    ("on 01/03/2020").

    Not temporal: a bare year without a preposition ("2019 revenue"), relative times
    ("last week", "yesterday", "in 3 days"), a month without a year ("in May"), numbers that
    are not years ("in 300 meters", "in 2000 meters", "in 2,000 steps"), and BC/BCE years or
    years of fewer than four digits ("in 300 BC", "in 1500 BC") — those fall through to
    HYBRID_COMPLETION; pin ``query_type=TEMPORAL`` for them.
    """
    return _TEMPORAL_RE.search(query) is not None


# --- the table --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rule:
    """One routing rule: when ``predicate(query)`` holds, the query runs ``search_type``."""

    name: str
    search_type: SearchType
    predicate: Callable[[str], bool]
    description: str


RULES: tuple[Rule, ...] = (
    Rule(
        "quoted",
        SearchType.CHUNKS_LEXICAL,
        is_fully_quoted,
        "The whole query is one quoted string (\"…\", “…”, '…', ‘…’): exact-phrase lexical search.",
    ),
    Rule(
        "coding_rules",
        SearchType.CODING_RULES,
        is_coding_rules_query,
        "An explicit coding-rules or code-review phrase (coding rules, code review, …).",
    ),
    Rule(
        "temporal",
        SearchType.TEMPORAL,
        is_temporal_query,
        "A time preposition followed by an absolute date (in 2019, before July 1969).",
    ),
)
"""The routing table, evaluated in order; first match wins."""

_RULE_NAMES = frozenset(rule.name for rule in RULES)


@dataclass(frozen=True, slots=True)
class RouteDecision:
    """The search type a recall runs and why.

    ``rule`` is the matching table rule's name, :data:`RULE_PINNED`, :data:`RULE_NO_LLM`,
    :data:`RULE_AUTO_ROUTE_OFF`, or None when auto-routing matched no rule (the
    HYBRID_COMPLETION fallback).
    """

    search_type: SearchType
    rule: str | None

    @property
    def routed(self) -> bool:
        """True iff a routing-table rule chose the type (not pinned, not a fallback)."""
        return self.rule in _RULE_NAMES


def route(query: str) -> RouteDecision:
    """Apply :data:`RULES` to ``query``: the first matching rule wins, else HYBRID_COMPLETION.

    Invariants: never raises and never calls an LLM; a non-str query gets the fallback;
    ``rule`` is None exactly when ``search_type`` is the fallback HYBRID_COMPLETION.
    """
    if isinstance(query, str):
        for rule in RULES:
            if rule.predicate(query):
                return RouteDecision(rule.search_type, rule.name)
    return RouteDecision(DEFAULT_SEARCH_TYPE, None)


def resolve_search_type(
    query: str,
    *,
    query_type: SearchType | None,
    auto_route: bool,
    llm_available: bool,
) -> RouteDecision:
    """The search type a recall runs, in precedence order (recall.md, query_type/auto_route).

    1. A pinned ``query_type`` always wins, LLM or not (rule ``"pinned"``).
    2. No usable LLM and no ``query_type`` → CHUNKS under either ``auto_route`` value
       (rule ``"no_llm"``); nothing could write a completion.
    3. ``auto_route=False`` → HYBRID_COMPLETION (rule ``"auto_route_off"``).
    4. Otherwise :func:`route`.
    """
    if query_type is not None:
        return RouteDecision(query_type, RULE_PINNED)
    if not llm_available:
        return RouteDecision(SearchType.CHUNKS, RULE_NO_LLM)
    if not auto_route:
        return RouteDecision(DEFAULT_SEARCH_TYPE, RULE_AUTO_ROUTE_OFF)
    return route(query)


_RETRY_WHEN_EMPTY = frozenset({SearchType.CHUNKS_LEXICAL, SearchType.CODING_RULES})


def should_retry_as_hybrid(decision: RouteDecision, *, rejected: bool, result_count: int) -> bool:
    """Whether recall retries (once) as HYBRID_COMPLETION after running ``decision``.

    True only when a routing-table rule chose the type (never for a pinned type, the no-LLM
    CHUNKS default, ``auto_route=False`` or the no-rule fallback) and the type is not
    HYBRID_COMPLETION itself, and either the backend rejected it (any routed type) or it was a
    routed CHUNKS_LEXICAL / CODING_RULES that returned nothing (``result_count <= 0``). A
    routed TEMPORAL that merely comes back empty is not retried.
    """
    if not decision.routed or decision.search_type == DEFAULT_SEARCH_TYPE:
        return False
    if rejected:
        return True
    return decision.search_type in _RETRY_WHEN_EMPTY and result_count <= 0
