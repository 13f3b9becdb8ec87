"""Fuzz recall's query text through the public API (issue 14's recall-query fuzzer): whatever a
user types -- full-text operators (quotes, ``*``, ``NEAR(``, ``AND``/``OR``/``NOT``, ``-``,
column filters), control and zero-width characters, dates in odd shapes, very long words --
every search type that takes free text either answers or raises an EngramValidationError (HTTP
422), never another exception (a 500), and no message holds the data directory's path."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb import SearchType
from engramdb.errors import EngramValidationError

#: The free-text search types; completions are asked for their context (no LLM here).
TYPES = [
    (SearchType.CHUNKS, False),
    (SearchType.CHUNKS_LEXICAL, False),
    (SearchType.SUMMARIES, False),
    (SearchType.RAG_COMPLETION, True),
    (SearchType.HYBRID_COMPLETION, True),
    (SearchType.GRAPH_COMPLETION, True),
    (SearchType.GRAPH_SUMMARY_COMPLETION, True),
    (SearchType.TRIPLET_COMPLETION, True),
    (SearchType.TEMPORAL, True),
    (None, False),  # the router picks
]

SYNTAX = st.sampled_from(
    [
        '"',
        "'",
        "*",
        "NEAR(",
        ")",
        "(",
        " AND ",
        " OR ",
        " NOT ",
        "-",
        "^",
        ":",
        "text:",
        "{",
        "}",
        "\\",
        "%",
        "_",
        "\x00",
        "\u200b",
        "\u202e",
        "\n",
        "\t",
        "in 2019",
        "before July 1969",
        "between 2020 and",
        "on 31/02/2023",
        "MATCH (n)",
        "; DROP TABLE nodes; --",
        "owls",
        "Paris",
    ]
)
QUERIES = st.one_of(
    st.text(min_size=0, max_size=200),
    st.lists(st.one_of(SYNTAX, st.text(max_size=12)), min_size=1, max_size=30).map("".join),
    st.integers(min_value=1, max_value=5000).map(lambda n: "x" * n),
)


async def _remember() -> None:
    await engramdb.remember(
        ["Owls hunt at night in Paris.", "In 2019 the bats of Lisbon moved to caves."],
        dataset_name="fuzz",
        self_improvement=False,
    )


async def _outcome(query: str, type_: SearchType | None, context: bool, data_dir: Path) -> None:
    try:
        await engramdb.recall(query, type_, datasets=["fuzz"], only_context=context)
    except EngramValidationError as exc:
        for path in {str(data_dir), str(data_dir.resolve())}:
            assert path not in str(exc), f"{query!r} leaked the data path: {exc}"


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=QUERIES, kind=st.sampled_from(TYPES))
def test_any_query_text_answers_or_is_a_validation_error(
    query: str,
    kind: tuple[SearchType | None, bool],
    isolated_config: Path,
    fuzz_loop: asyncio.AbstractEventLoop,
) -> None:
    fuzz_loop.run_until_complete(_outcome(query, kind[0], kind[1], isolated_config))


@pytest.fixture
def fuzz_loop() -> asyncio.AbstractEventLoop:
    """One loop for all examples, with the two documents remembered once."""
    loop = asyncio.new_event_loop()
    loop.run_until_complete(_remember())
    return loop
