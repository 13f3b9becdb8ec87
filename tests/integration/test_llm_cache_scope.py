"""The LLM answer cache is no existence oracle: what one user stored never changes another
user's counts, while a retry in the same dataset still finds what the failed run paid for.
Driven through the public API against the local OpenAI-protocol server."""

from __future__ import annotations

import json
import re

import engramdb
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

ROUTE = "chat/completions"
_CHUNK = re.compile(r'<chunk id="(\d+)">\n(.*?)\n</chunk>', re.S)
#: What the counts may not differ by between another user's text and an unseen one.
_COST = ("llm_calls", "llm_cache_hits", "extraction_fallbacks", "documents", "chunks")


def _answer(server: OpenAIServer, request: RecordedRequest) -> Reply:
    """A model stand-in: every capitalised word of a chunk is an entity."""
    prompt = request.json["messages"][-1]["content"]
    chunks = [
        {
            "id": int(chunk_id),
            "summary": text.split(".")[0] + ".",
            "entities": [
                {"name": name, "type": "CONCEPT", "description": ""}
                for name in dict.fromkeys(re.findall(r"\b[A-Z][a-z]+\b", text))
            ],
            "relations": [],
        }
        for chunk_id, text in _CHUNK.findall(prompt)
    ]
    return Reply.json(server.chat_document(json.dumps({"chunks": chunks})))


def _use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 0)
    engramdb.config.set("llm_timeout", 5)


async def test_another_users_text_costs_what_an_unseen_text_costs(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)
    openai_server.set_default(ROUTE, lambda request: _answer(openai_server, request))
    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    secret = "Alice Moreau earns ninety thousand at Initech in Lyon."
    unseen = "Marcel Dubois earns forty thousand at Globex in Nantes."
    await engramdb.remember(secret, dataset_name="private", user=alice, self_improvement=False)

    probe = await engramdb.remember(secret, dataset_name="probe", user=bob, self_improvement=False)
    control = await engramdb.remember(
        unseen, dataset_name="control", user=bob, self_improvement=False
    )

    assert {k: probe.counts[k] for k in _COST} == {k: control.counts[k] for k in _COST}
    assert (probe.counts["llm_calls"], probe.counts["llm_cache_hits"]) == (1, 0)


async def test_the_same_user_in_another_dataset_pays_again(openai_server: OpenAIServer) -> None:
    _use_llm(openai_server)
    openai_server.set_default(ROUTE, lambda request: _answer(openai_server, request))
    text = "Ada Lovelace wrote the first program for the Analytical Engine."
    await engramdb.remember(text, dataset_name="first", self_improvement=False)
    again = await engramdb.remember(text, dataset_name="second", self_improvement=False)
    assert (again.counts["llm_calls"], again.counts["llm_cache_hits"]) == (1, 0)


async def test_a_retry_in_the_same_dataset_reuses_the_answers_already_paid_for(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)
    # Two extraction batches (over 6,000 characters): the one holding the last paragraph is
    # refused with a 402 the first time, after the other was answered and cached.
    paragraphs = [f"Paragraph {i} tells how Alpha{i} met Beta{i} in Gamma. " * 20 for i in range(9)]
    paragraphs[-1] += "Omega closes the story."
    refused: list[bool] = []

    def scripted(request: RecordedRequest) -> Reply:
        if "Omega" in request.json["messages"][-1]["content"] and not refused:
            refused.append(True)
            return Reply.sleep(0.3, Reply.error(402, "insufficient credit"))
        return _answer(openai_server, request)

    openai_server.set_default(ROUTE, scripted)
    text = "\n\n".join(paragraphs)
    try:
        await engramdb.remember(text, dataset_name="notes", self_improvement=False)
    except engramdb.LLMPaymentRequiredError:
        pass
    else:  # pragma: no cover - the scenario needs the refusal
        raise AssertionError("the first run should have been refused")

    retry = await engramdb.remember(text, dataset_name="notes", self_improvement=False)
    assert retry.counts["documents"] == 1
    assert (retry.counts["llm_calls"], retry.counts["llm_cache_hits"]) == (1, 1)
