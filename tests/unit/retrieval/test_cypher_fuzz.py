"""Fuzz CYPHER through the public API: whatever text a user sends as a CYPHER query, recall
either answers or raises an EngramValidationError (HTTP 422) -- never another exception (a 500),
and never a message holding the data directory's path.

Queries come from three generators: random expression trees over the whole subset, one wrapper
(NOT, '-', parentheses, lists, calls, comparisons) repeated up to 200 times around such a tree,
and long AND/OR chains; plus token soup and arbitrary text after ``MATCH (n) WHERE``. The
boundary tests below pin each limit exactly (one level under it runs, at it is refused).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb.errors import EngramValidationError
from engramdb.retrieval.cypher.lexer import MAX_TOKENS
from engramdb.retrieval.cypher.parse_expr import MAX_NESTING
from engramdb.retrieval.cypher.parser import MAX_SQL_DEPTH, MAX_SQL_NESTING, MAX_SQL_TERMS

CONFIG = {"parameters": {"p": "Paris", "lst": ["Paris", "Lisbon"], "n": 3}}

LEAVES = st.sampled_from(
    [
        "true",
        "false",
        "null",
        "1",
        "2.5",
        "-3",
        "'Paris'",
        '"Lis\\\'bon"',
        "n.name",
        "n.type",
        "n.node_set",
        "n.`odd key`",
        "m.name",
        "r.relation",
        "r.weight",
        "$p",
        "$lst",
        "$missing",
        "id(n)",
        "type(r)",
        "labels(n)",
        "count(*)",
        "n",
        "r",
        "zz",
    ]
)
UNARY = [
    "NOT {}",
    "-{}",
    "({})",
    "[{}]",
    "toLower({})",
    "toUpper({})",
    "{} IS NULL",
    "{} IS NOT NULL",
    "count(DISTINCT {})",
    "max({})",
]
BINARY = [
    "=",
    "<>",
    "!=",
    "<",
    ">=",
    "AND",
    "OR",
    "XOR",
    "IN",
    "CONTAINS",
    "STARTS WITH",
    "ENDS WITH",
    "+",
]


def _binary(parts: tuple[str, str, str]) -> str:
    left, op, right = parts
    return f"{left} {op} {right}"


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    unary = st.tuples(st.sampled_from(UNARY), inner).map(lambda t: t[0].format(t[1]))
    binary = st.tuples(inner, st.sampled_from(BINARY), inner).map(_binary)
    listed = st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")
    return st.one_of(unary, binary, listed)


#: Odd text inside literals and names: other scripts, non-ASCII digits, lone surrogates.
ODD_TEXT = st.text(st.characters(categories=["L", "Nd", "No", "Cs", "Zs", "P"]), max_size=6)
ODD_LEAVES = st.one_of(
    ODD_TEXT.map(lambda s: f"'{s}'"),
    ODD_TEXT.map(lambda s: f"n.`{s}`"),
    ODD_TEXT.map(lambda s: f"n.x{s}"),
    st.sampled_from(["'\\ud800'", "'\\u12'", "'\\uZZZZ'", "'\\q'", "1e999", "²", "0x1F"]),
    st.integers(-(2**70), 2**70).map(str),
)
EXPRS = st.recursive(LEAVES | ODD_LEAVES, _extend, max_leaves=40)


def _nested(parts: tuple[str, int, str]) -> str:
    wrapper, times, core = parts
    for _ in range(times):
        core = wrapper.format(core)
    return core


WRAPPERS = [
    *UNARY,
    "n.name = ({})",
    "({} = 1)",
    "n.name IN [{}]",
    "({} IN n.node_set)",
    "n.name ENDS WITH ({})",
    "({} ENDS WITH n.name)",
    "n.name STARTS WITH ({})",
    "n.name CONTAINS ({})",
    "true AND ({})",
    "NOT (true OR {})",
]
DEEP = st.tuples(st.sampled_from(WRAPPERS), st.integers(1, 200), EXPRS).map(_nested)
CHAINS = st.tuples(EXPRS, st.sampled_from([" AND ", " OR "]), st.integers(2, 1500)).map(
    lambda t: t[1].join([t[0]] * t[2])
)
PATTERNS = st.sampled_from(
    [
        "(n)",
        "(n:Entity)",
        "(n {name: 'Paris'})",
        "(n)-[r]->(m)",
        "(n)<-[r:contains]-(m)",
        "(n)-[r:is_a|contains]-(m)",
        "(n)-[r]->(m)-[q]->(o)",
        "(n {name: $p})-[r]-(m)",
    ]
)
SOUP_TOKENS = st.sampled_from(
    [
        *("MATCH", "WHERE", "RETURN", "ORDER", "BY", "SKIP", "LIMIT", "DISTINCT", "AS"),
        *("CREATE", "DELETE", "WITH", "UNWIND", "OPTIONAL", "CALL", "NOT", "AND", "OR", "IN"),
        *("(", ")", "[", "]", "{", "}", ",", ":", ".", "..", "-", "->", "<-", "*", "|", ";"),
        *("=", "<>", "<", "'x'", "'open", "`q`", "$p", "1", "1e5", "1.", "n", "n.name", "//"),
        *("/*", "*/", "count(", "id(", "\n"),
    ]
)
SOUP = st.lists(SOUP_TOKENS, max_size=60).map(" ".join)
WHERE = st.one_of(EXPRS, DEEP, CHAINS)


def _query(parts: tuple[str, str | None, str, str | None, str | None]) -> str:
    pattern, where, returned, order, limit = parts
    text = f"MATCH {pattern}"
    if where is not None:
        text += f" WHERE {where}"
    text += f" RETURN {returned}"
    if order is not None:
        text += f" ORDER BY {order}"
    if limit is not None:
        text += f" LIMIT {limit}"
    return text


QUERIES = st.one_of(
    st.tuples(
        PATTERNS,
        st.none() | WHERE,
        st.one_of(st.sampled_from(["n", "*", "n.name AS name", "count(*)"]), EXPRS, DEEP),
        st.none() | st.one_of(EXPRS, DEEP),
        st.none() | st.sampled_from(["5", "$n", "-1", "0", "100000", "'x'"]) | DEEP,
    ).map(_query),
    SOUP.map(lambda s: "MATCH (n) WHERE " + s),
    SOUP,
    st.text(max_size=200).map(lambda s: "MATCH (n) WHERE " + s + " RETURN n"),
)


async def _remember() -> None:
    await engramdb.remember(
        [
            "Alice moved to Paris in 2010, while Bob has always lived in New York.",
            "Andreas was born in Venice, but later settled in Lisbon.",
        ],
        dataset_name="people",
        node_set=["hr"],
        self_improvement=False,
    )


async def _outcome(query: str, data_dir: Path) -> str:
    """ "ok" or the error class name; fails the test on anything else."""
    try:
        await engramdb.recall(
            query,
            engramdb.SearchType.CYPHER,
            datasets=["people"],
            retriever_specific_config=CONFIG,
        )
    except EngramValidationError as exc:
        for path in {str(data_dir), str(data_dir.resolve())}:
            assert path not in str(exc), f"{query!r} leaked the data path: {exc}"
        return type(exc).__name__
    return "ok"


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=QUERIES)
def test_any_query_answers_or_is_a_validation_error(
    query: str, isolated_config: Path, fuzz_loop: asyncio.AbstractEventLoop
) -> None:
    fuzz_loop.run_until_complete(_outcome(query, isolated_config))


@pytest.fixture
def fuzz_loop() -> asyncio.AbstractEventLoop:
    """One loop for all examples, with the graph remembered once (read-only afterwards)."""
    loop = asyncio.new_event_loop()
    loop.run_until_complete(_remember())
    return loop


# --- each limit, exactly at its boundary -------------------------------------------------------


def _nots(k: int) -> str:
    return "MATCH (n) WHERE " + "NOT " * k + "true RETURN n LIMIT 1"


def _parens(k: int) -> str:
    return "MATCH (n) WHERE " + "(" * k + "true" + ")" * k + " RETURN n LIMIT 1"


def _ands(k: int) -> str:
    return "MATCH (n) WHERE " + " AND ".join(["true"] * k) + " RETURN n LIMIT 1"


def _ends_over_a_long_list() -> str:
    core = "n.name IN [" + ", ".join(["1"] * 1500) + "]"
    return "MATCH (n) WHERE " + "n.name ENDS WITH (" * 3 + core + ")" * 3 + " RETURN n"


@pytest.mark.parametrize(
    ("query", "limit_named"),
    [
        (_nots(46), f"more than {MAX_NESTING} levels"),  # SQLite: "parser stack overflow"
        (_nots(37), f"the limit is {MAX_SQL_NESTING}"),
        (_nots(1000), f"more than {MAX_NESTING} levels"),  # RecursionError before
        (_parens(160), f"more than {MAX_NESTING} levels"),
        ("MATCH (n) RETURN " + "-" * 1000 + "1 LIMIT 1", f"more than {MAX_NESTING} levels"),
        ("MATCH (n) RETURN " + "[" * 150 + "1" + "]" * 150, f"more than {MAX_NESTING} levels"),
        (_ands(MAX_SQL_DEPTH), f"the limit is {MAX_SQL_DEPTH}"),  # SQLite: tree too large
        ("MATCH (n) WHERE " + "n.name ENDS WITH (" * 6 + "'a'" + ")" * 6 + " RETURN n", "limit"),
        ("MATCH (n) WHERE n.x = 9223372036854775808 RETURN n", "out of range"),  # OverflowError
        ("MATCH (n) WHERE n.x = " + "9" * 5000 + " RETURN n", "out of range"),  # ValueError
        ("MATCH (n) WHERE n.x = ² RETURN n", "unexpected character"),  # ValueError
        ("MATCH (n) WHERE n.x = '\ud800' RETURN n", "surrogate"),  # UnicodeEncodeError
        ("MATCH (n) WHERE n.x = '\\udc00' RETURN n", "surrogate"),
        (_ends_over_a_long_list(), f"the limit is {MAX_SQL_TERMS}"),  # 3 x 3 x 3 x 1,500 terms
        ("MATCH (n) WHERE n IN [" + ", ".join(["1"] * MAX_TOKENS) + "] RETURN n", "tokens"),
    ],
)
async def test_a_query_over_a_limit_is_a_syntax_error_naming_it(
    query: str, limit_named: str, isolated_config: Path
) -> None:
    await _remember()
    with pytest.raises(engramdb.EngramValidationError, match="Cypher syntax error") as caught:
        await engramdb.recall(query, engramdb.SearchType.CYPHER, datasets=["people"])
    assert limit_named in str(caught.value)
    assert str(isolated_config) not in str(caught.value)


async def test_just_under_each_limit_the_query_runs(isolated_config: Path) -> None:
    await _remember()
    outcomes = Counter(
        [
            await _outcome(_nots((MAX_SQL_NESTING - 1) // 2), isolated_config),
            await _outcome(_parens(MAX_NESTING - 1), isolated_config),
            await _outcome(_ands(MAX_SQL_DEPTH - 1), isolated_config),
            await _outcome("MATCH (n) WHERE n.x = 9223372036854775807 RETURN n", isolated_config),
            await _outcome(
                "MATCH (n) WHERE n.x = -0009223372036854775807 RETURN n", isolated_config
            ),
        ]
    )
    assert outcomes == Counter({"ok": 5})


@pytest.mark.parametrize("wrapper", WRAPPERS)
async def test_every_construct_nested_to_the_limit_is_refused_or_runs(
    wrapper: str, isolated_config: Path
) -> None:
    await _remember()
    for times in range(1, MAX_NESTING + 2):
        await _outcome(
            f"MATCH (n) WHERE {_nested((wrapper, times, 'n.name'))} RETURN n LIMIT 1",
            isolated_config,
        )
