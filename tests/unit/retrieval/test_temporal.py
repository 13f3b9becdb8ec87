"""TEMPORAL: candidates from the hybrid lanes, kept, dropped or boosted by the question's date."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import engramdb
from engramdb.errors import LLMNotConfiguredError
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions
from engramdb.retrieval.completion import DEFAULT_SYSTEM_PROMPTS
from engramdb.retrieval.retrievers.hybrid import ContextItem, hybrid_context_items
from engramdb.retrieval.retrievers.temporal import (
    DEFAULT_TEMPORAL_CONFIG,
    TemporalRetriever,
    temporal_context_items,
)
from tests.support.openai_server import OpenAIServer
from tests.unit.retrieval.test_hybrid import context_for, use_llm


def options(query: str, **kwargs: Any) -> RecallOptions:
    return RecallOptions(query=query, search_type=SearchType.TEMPORAL, **kwargs)


DOCS = [
    # (text, external_metadata)
    ("The team shipped the aurora release to customers.", {"date": "2019-03-04"}),
    ("The team shipped the borealis release to customers.", {"effective_date": "June 2018"}),
    ("In 2021 the team shipped the comet release to customers.", {}),
    ("The team shipped the delta release to customers.", {"timestamp": 1609459200}),  # 2021-01-01
]


async def remember_docs(dataset: str = "releases") -> None:
    for text, meta in DOCS:
        await engramdb.remember(
            text, dataset_name=dataset, external_metadata=meta, self_improvement=False
        )


def passages(items: list[ContextItem]) -> list[str]:
    return [i.text for i in items if i.kind == "passage"]


DROP = replace(DEFAULT_TEMPORAL_CONFIG, contradict_factor=0.0)


async def test_in_a_year_returns_that_years_document_first() -> None:
    await remember_docs()
    ctx = await context_for("releases")
    question = options("What did the team ship in 2019?")
    items = await temporal_context_items(ctx, question)
    texts = passages(items)
    assert texts[0] == DOCS[0][0]
    assert items[0].date == "4 March 2019"
    # The 2021 document may look back at 2019: kept at its hybrid score. 2018 was written
    # before 2019 and "In 2021" states another year: both contradict, so they are demoted ...
    assert texts.index(DOCS[3][0]) < min(texts.index(DOCS[1][0]), texts.index(DOCS[2][0]))
    # ... and with contradict_factor=0 dropped.
    assert passages(await temporal_context_items(ctx, question, DROP)) == [
        DOCS[0][0],
        DOCS[3][0],
    ]


async def test_date_in_the_text_matches() -> None:
    await remember_docs()
    ctx = await context_for("releases")
    question = options("Which release shipped in 2021?")
    texts = passages(await temporal_context_items(ctx, question))
    assert set(texts[:2]) == {DOCS[2][0], DOCS[3][0]}  # stated 2021, and dated 2021-01-01
    dropped = passages(await temporal_context_items(ctx, question, DROP))
    assert set(dropped) == {DOCS[2][0], DOCS[3][0]}  # the others were written before 2021


@pytest.mark.parametrize(
    ("question", "first", "contradicted"),
    [
        ("What shipped before 2019?", DOCS[1][0], [DOCS[2][0]]),  # later docs may look back
        ("What shipped before July 2018?", DOCS[1][0], [DOCS[2][0]]),
        ("What shipped after 2020?", DOCS[2][0], [DOCS[0][0], DOCS[1][0]]),
        ("What shipped between 2018 and 2019?", DOCS[0][0], [DOCS[2][0]]),
        ("What shipped on 4 March 2019?", DOCS[0][0], [DOCS[1][0], DOCS[2][0]]),
    ],
)
async def test_operators(question: str, first: str, contradicted: list[str]) -> None:
    await remember_docs()
    ctx = await context_for("releases")
    texts = passages(await temporal_context_items(ctx, options(question)))
    assert first in texts[:2]
    kept = [t for t in texts if t not in contradicted]
    assert texts == kept + [t for t in texts if t in contradicted]  # demoted below the rest
    dropped = passages(await temporal_context_items(ctx, options(question), DROP))
    assert dropped == kept


async def test_a_question_without_a_date_behaves_like_hybrid() -> None:
    await remember_docs()
    ctx = await context_for("releases")
    question = "Which releases did the team ship?"
    temporal = await temporal_context_items(ctx, options(question))
    hybrid = await hybrid_context_items(ctx, options(question), DEFAULT_TEMPORAL_CONFIG.hybrid)
    assert [(i.text, i.score) for i in temporal] == [(i.text, i.score) for i in hybrid]
    assert len(passages(temporal)) == 4


async def test_importance_weight_still_applies() -> None:
    for text, weight in [
        ("The harbour froze over in 2019.", 0.3),
        ("The harbour flooded over in 2019.", 0.7),
    ]:
        await engramdb.remember(
            text, dataset_name="harbour", importance_weight=weight, self_improvement=False
        )
    ctx = await context_for("harbour")
    items = await temporal_context_items(ctx, options("What happened to the harbour in 2019?"))
    assert "flooded" in items[0].text
    plain = await temporal_context_items(
        ctx,
        options(
            "What happened to the harbour in 2019?",
            retriever_specific_config={"use_importance_weight": False},
        ),
    )
    assert plain[0].score < items[0].score


async def test_only_context_labels_passages_with_their_dates() -> None:
    await remember_docs()
    ctx = await context_for("releases")
    results = await TemporalRetriever().retrieve(
        ctx, options("What did the team ship in 2019?", only_context=True)
    )
    assert len(results) == 1
    prompt = results[0]
    assert prompt.kind == "prompt" and prompt.search_type == "TEMPORAL"
    assert f"[4 March 2019] {DOCS[0][0]}" in prompt.text
    assert prompt.system_prompt == DEFAULT_SYSTEM_PROMPTS[SearchType.TEMPORAL]
    assert prompt.metadata == {}


async def test_without_llm_an_answer_raises() -> None:
    await remember_docs()
    ctx = await context_for("releases")
    with pytest.raises(LLMNotConfiguredError):
        await TemporalRetriever().retrieve(ctx, options("What did the team ship in 2019?"))


async def test_answer_with_references_has_evidence_block_and_empty_metadata(
    openai_server: OpenAIServer,
) -> None:
    await remember_docs()
    use_llm(openai_server)
    ctx = await context_for("releases")
    results = await TemporalRetriever().retrieve(
        ctx, options("What did the team ship in 2019?", include_references=True)
    )
    answer = results[0]
    assert answer.text.startswith(openai_server.chat_text)
    block = answer.text.split("\n\nEvidence:\n", 1)[1]
    assert block.startswith("- chunk 0 of document ")
    lines = block.splitlines()
    assert "aurora" in lines[0]  # the 2019 document is cited first
    assert all("borealis" not in line for line in lines[:2])  # the 2018 one comes last
    assert answer.metadata == {}
