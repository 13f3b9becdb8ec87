"""The automatic improve's conflict review is debounced across separate remember() calls
(IMPROVE_REVIEW_BATCH_REMEMBERS): queued facts are reviewed by the next review, never dropped,
and an explicit improve() always reviews. Through the real LLM client against the local
OpenAI-protocol server."""

from __future__ import annotations

import engramdb
from tests.integration.test_conflicts import BERLIN, PARIS, _is_review, _reviews, _user
from tests.support.openai_server import OpenAIServer
from tests.support.schema_answers import answer_chat

__all__ = ["_is_review"]


async def test_reviews_batch_across_separate_remembers(openai_server: OpenAIServer) -> None:
    """improve.md: "later runs send only what gained a fact since the last review" — so a
    review held back loses nothing: the next one sends every group changed since."""
    # two disagreeing facts, extracted without an LLM and never reviewed yet
    await engramdb.remember(PARIS, self_improvement=False)
    await engramdb.remember(BERLIN, self_improvement=False)
    openai_server.set_default("chat/completions", answer_chat)
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    engramdb.config.set("improve_review_batch_remembers", 4)
    engramdb.config.set("improve_review_batch_seconds", 0)

    for i in range(3):
        result = await engramdb.remember(f"Note {i}: Bob Jones visited Rome on day {i}.")
        assert result.improve == "completed"
    assert _reviews(openai_server) == []  # queued, not sent
    await engramdb.remember("Note 3: Carol King visited Oslo.")
    (review,) = _reviews(openai_server)  # the fourth remember sends the batch
    assert "Alice Smith" in _user(review)  # the facts queued before it are in it

    await engramdb.remember("Note 4: Dan Brown visited Lima.")
    assert len(_reviews(openai_server)) == 1
    result = await engramdb.improve()  # an explicit improve reviews what is queued
    stage = result.stage("review_conflicts")
    assert stage is not None and stage.reason != "debounced", result.stage_summary()
