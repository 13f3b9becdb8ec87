"""Auto-routing (R-REC-2): one rule table, first match wins, HYBRID_COMPLETION otherwise."""

from __future__ import annotations

import pytest

from engramdb.models.search_type import SearchType
from engramdb.retrieval.router import (
    DEFAULT_SEARCH_TYPE,
    RULE_AUTO_ROUTE_OFF,
    RULE_NO_LLM,
    RULE_PINNED,
    RULES,
    RouteDecision,
    resolve_search_type,
    route,
    should_retry_as_hybrid,
)

LEXICAL = RouteDecision(SearchType.CHUNKS_LEXICAL, "quoted")
CODING = RouteDecision(SearchType.CODING_RULES, "coding_rules")
TEMPORAL = RouteDecision(SearchType.TEMPORAL, "temporal")
HYBRID = RouteDecision(SearchType.HYBRID_COMPLETION, None)


def test_table_shape() -> None:
    assert [(r.name, r.search_type) for r in RULES] == [
        ("quoted", SearchType.CHUNKS_LEXICAL),
        ("coding_rules", SearchType.CODING_RULES),
        ("temporal", SearchType.TEMPORAL),
    ]
    assert all(r.description for r in RULES)
    assert DEFAULT_SEARCH_TYPE is SearchType.HYBRID_COMPLETION


# --- row 1: fully quoted → CHUNKS_LEXICAL ---------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        '"vector database"',
        '  "vector database"  \n',
        "“vector database”",
        "'vector database'",
        "‘vector database’",
        "'don't panic'",  # a word-internal apostrophe is not a closing quote
        "‘don’t panic’",
        '"x"',
        "“部署步骤”",
        '"in 2019"',  # first match wins: quoted beats temporal
        '"code review"',  # … and beats coding rules
    ],
)
def test_quoted_routes_lexical(query: str) -> None:
    assert route(query) == LEXICAL


@pytest.mark.parametrize(
    "query",
    [
        'what is a "vector database"?',  # merely contains a quote
        '"vector database" performance',
        'find "a" and "b"',
        '"a" and "b"',  # two quoted phrases, not one
        "\"vector database'",  # mismatched pair
        "”vector database“",  # typographic quotes the wrong way round
        '""',
        '"   "',
        '"',
        "it's the user's data",
        "'rock 'n' roll'",
    ],
)
def test_not_fully_quoted_does_not_route_lexical(query: str) -> None:
    assert route(query).search_type is not SearchType.CHUNKS_LEXICAL


# --- row 2: coding rules / code review → CODING_RULES ---------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "What are our coding rules for Python?",
        "coding guidelines",
        "Which CODING STANDARDS apply to the API layer?",
        "team coding conventions for naming",
        "coding style guide",
        "Code review checklist for pull requests",
        "what did the code-review say",
        "who are the code reviewers",
        "Please review this code",
        "review my code",
        "style guide for code in this repo",
        "linting rules for TypeScript",
        "lint rules",
        # The router ignores negation: the phrase is still explicit.
        "don't use coding rules",
        "no code review needed",
    ],
)
def test_coding_phrase_routes_coding_rules(query: str) -> None:
    assert route(query) == CODING


@pytest.mark.parametrize(
    "query",
    [
        "What does this code do?",
        "review the contract terms",
        "the coding of medical records",  # "coding" without rules/guidelines/...
        "source code of the parser",
        "the rules of chess",
        "encoding rules",  # word-bounded: not "coding rules"
        "decoding guidelines",
        "peer review of the paper",
    ],
)
def test_not_coding_phrase(query: str) -> None:
    assert route(query).search_type is not SearchType.CODING_RULES


# --- row 3: time preposition + absolute date → TEMPORAL -------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "What happened in 2019?",
        "in 2019",
        "Who led the team before July 1969?",
        "before Jul. 1969",
        "What did we ship on 8 May 2023?",
        "on May 8, 2023",
        "on the 8th of May 2023",
        "Changes since 2020-03-01",
        "since 2020-03",
        "on 01/03/2020",
        "after 2001",
        "until December 2024",
        "during 1995",
        "by 2030",
        "from 2010 to 2015",
        "around 1850",
        "in early 2019",
        "in mid-2019",
        "in the summer of 2019",
        "in the year 2019",
        "in Q3 2021",
        "in the 1990s",
        "between 2019 and 2020",
        "as of 2021",
        "prior to March 2020",
        "In 2019 people moved to Berlin",
        "in 1066 AD",
    ],
)
def test_time_preposition_and_absolute_date_routes_temporal(query: str) -> None:
    assert route(query) == TEMPORAL


@pytest.mark.parametrize(
    "query",
    [
        "2019 revenue by region",  # bare year, no preposition
        "What did we decide last week?",  # relative
        "What happened yesterday?",
        "in 3 days",
        "in May",  # month without a year
        "on May 8",
        "turn left in 300 meters",  # a number, not a year
        "in 2000 meters",
        "in 2,000 steps",
        "in 1024 bytes",
        "in 2019.5 hours",
        "in 20190 ways",
        "within 2019",  # "in" only as a whole word
        "what happened in 300 BC",  # decision: BC / 1-3 digit years are not routed
        "what happened in 1500 BC",
        "in 1500 B.C.",
        "in 44 BCE",
    ],
)
def test_not_temporal(query: str) -> None:
    assert route(query).search_type is not SearchType.TEMPORAL


# --- row 4: everything else → HYBRID_COMPLETION ---------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "Where was Einstein born?",
        "In which cities did Andreas live?",
        "How do I deploy the service?",  # procedure questions are for the skill gate
        "",
        "   ",
        "Tell me about the code",
    ],
)
def test_everything_else_routes_hybrid(query: str) -> None:
    assert route(query) == HYBRID


def test_non_str_query_falls_back_without_raising() -> None:
    assert route(None) == HYBRID  # type: ignore[arg-type]


def test_first_match_wins_coding_before_temporal() -> None:
    assert route("code review in 2019") == CODING


# --- resolve_search_type -------------------------------------------------------------------------


@pytest.mark.parametrize("auto_route", [True, False])
@pytest.mark.parametrize("llm_available", [True, False])
@pytest.mark.parametrize("query", ['"quoted"', "What happened in 2019?", "plain question"])
def test_pinned_query_type_always_wins(auto_route: bool, llm_available: bool, query: str) -> None:
    for pinned in SearchType:
        decision = resolve_search_type(
            query, query_type=pinned, auto_route=auto_route, llm_available=llm_available
        )
        assert decision == RouteDecision(pinned, RULE_PINNED)
        assert not decision.routed


@pytest.mark.parametrize("auto_route", [True, False])
@pytest.mark.parametrize("query", ['"quoted"', "coding rules", "in 2019", "plain question"])
def test_no_llm_and_no_query_type_is_chunks(auto_route: bool, query: str) -> None:
    decision = resolve_search_type(
        query, query_type=None, auto_route=auto_route, llm_available=False
    )
    assert decision == RouteDecision(SearchType.CHUNKS, RULE_NO_LLM)


@pytest.mark.parametrize("query", ['"quoted"', "coding rules", "in 2019", "plain question"])
def test_auto_route_off_is_hybrid(query: str) -> None:
    decision = resolve_search_type(query, query_type=None, auto_route=False, llm_available=True)
    assert decision == RouteDecision(SearchType.HYBRID_COMPLETION, RULE_AUTO_ROUTE_OFF)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"quoted"', LEXICAL),
        ("coding rules", CODING),
        ("in 2019", TEMPORAL),
        ("plain question", HYBRID),
    ],
)
def test_auto_route_on_uses_the_table(query: str, expected: RouteDecision) -> None:
    decision = resolve_search_type(query, query_type=None, auto_route=True, llm_available=True)
    assert decision == expected


# --- retry as HYBRID_COMPLETION -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decision", "rejected", "result_count", "retry"),
    [
        # Routed lexical / coding rules: retry when rejected or empty.
        (LEXICAL, False, 0, True),
        (LEXICAL, True, 0, True),
        (LEXICAL, True, 3, True),
        (LEXICAL, False, 3, False),
        (CODING, False, 0, True),
        (CODING, True, 5, True),
        (CODING, False, 5, False),
        # Routed temporal: only a rejection retries; empty is an answer.
        (TEMPORAL, True, 0, True),
        (TEMPORAL, False, 0, False),
        (TEMPORAL, False, 2, False),
        # HYBRID itself never retries, routed fallback or not.
        (HYBRID, True, 0, False),
        (HYBRID, False, 0, False),
        (RouteDecision(SearchType.HYBRID_COMPLETION, RULE_AUTO_ROUTE_OFF), True, 0, False),
        # Pinned types never retry, whatever they are.
        (RouteDecision(SearchType.CHUNKS_LEXICAL, RULE_PINNED), False, 0, False),
        (RouteDecision(SearchType.CODING_RULES, RULE_PINNED), True, 0, False),
        (RouteDecision(SearchType.TEMPORAL, RULE_PINNED), True, 0, False),
        (RouteDecision(SearchType.GRAPH_COMPLETION, RULE_PINNED), True, 0, False),
        # The no-LLM CHUNKS default is not routed either.
        (RouteDecision(SearchType.CHUNKS, RULE_NO_LLM), True, 0, False),
        (RouteDecision(SearchType.CHUNKS, RULE_NO_LLM), False, 0, False),
    ],
)
def test_retry_rule(
    decision: RouteDecision, rejected: bool, result_count: int, retry: bool
) -> None:
    assert should_retry_as_hybrid(decision, rejected=rejected, result_count=result_count) is retry


def test_routed_property() -> None:
    assert LEXICAL.routed and CODING.routed and TEMPORAL.routed
    assert not HYBRID.routed
    for rule in (RULE_PINNED, RULE_NO_LLM, RULE_AUTO_ROUTE_OFF):
        assert not RouteDecision(SearchType.CHUNKS, rule).routed
