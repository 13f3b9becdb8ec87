"""cognee's ingestion options on remember() and cognify(): custom_prompt, temporal_cognify,
dataset_id and chunk_size, as cognee's own example programs pass them."""

from __future__ import annotations

import pytest

import engramdb
from engramdb import SearchType
from engramdb.errors import LLMNotConfiguredError
from tests.support.openai_server import OpenAIServer
from tests.support.schema_answers import answer_chat

CUSTOM_PROMPT = "Extract only people and the companies they founded; call every person PERSON."
TEXT = "Ada Lovelace founded Analytical Engines Ltd in London in 1843."


def _use_llm(server: OpenAIServer) -> None:
    server.set_default("chat/completions", answer_chat)
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 1)


def _extraction_prompts(server: OpenAIServer) -> list[str]:
    return [
        r.json["messages"][0]["content"]
        for r in server.requests_to("chat/completions")
        if r.json and "knowledge graph" in r.json["messages"][0]["content"]
    ]


async def test_custom_prompt_reaches_the_llm_extractor(openai_server: OpenAIServer) -> None:
    _use_llm(openai_server)
    result = await engramdb.remember(TEXT, custom_prompt=CUSTOM_PROMPT, self_improvement=False)
    assert result.status == "completed"
    (prompt,) = _extraction_prompts(openai_server)
    assert CUSTOM_PROMPT in prompt
    # the answer format and the data rules stay engramdb's
    assert "Answer with ONE JSON object" in prompt

    openai_server.reset()
    openai_server.set_default("chat/completions", answer_chat)
    await engramdb.remember("Grace Hopper wrote the first compiler.", self_improvement=False)
    (plain,) = _extraction_prompts(openai_server)
    assert CUSTOM_PROMPT not in plain


async def test_cognify_custom_prompt_reaches_the_llm_extractor(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)
    await engramdb.add(TEXT, "founders")
    built = await engramdb.cognify(["founders"], custom_prompt=CUSTOM_PROMPT)
    assert [r.status for r in built.values()] == ["completed"]
    (prompt,) = _extraction_prompts(openai_server)
    assert CUSTOM_PROMPT in prompt


async def test_custom_prompt_without_an_llm_is_refused_and_writes_nothing() -> None:
    with pytest.raises(LLMNotConfiguredError, match="LLM_API_KEY") as info:
        await engramdb.remember(TEXT, "offline", custom_prompt=CUSTOM_PROMPT)
    assert "custom_prompt" in str(info.value)
    assert [d.name for d in await engramdb.list_datasets()] == []

    await engramdb.add(TEXT, "staged")
    with pytest.raises(LLMNotConfiguredError, match="custom_prompt"):
        await engramdb.cognify(["staged"], custom_prompt=CUSTOM_PROMPT)
    found = await engramdb.search("Lovelace", query_type=SearchType.CHUNKS, datasets=["staged"])
    assert found == []  # still only staged


async def test_temporal_cognify_builds_a_dataset_temporal_search_answers() -> None:
    await engramdb.remember(
        ["In 1969 Apollo 11 landed on the Moon.", "In 2004 the Opportunity rover landed on Mars."],
        "space",
        temporal_cognify=True,
        self_improvement=False,
    )
    await engramdb.add("In 1957 Sputnik was launched.", "space")
    await engramdb.cognify(["space"], temporal_cognify=True)
    found = await engramdb.recall(
        "What happened in 1969?", query_type=SearchType.TEMPORAL, only_context=True
    )
    assert "Apollo 11" in str(found[0])


async def test_dataset_id_targets_an_existing_dataset() -> None:
    first = await engramdb.remember("Owls hunt at night.", "birds", self_improvement=False)
    again = await engramdb.remember(
        "Swifts sleep while flying.", dataset_id=first.dataset_id, self_improvement=False
    )
    assert again.dataset_id == first.dataset_id
    assert [d.name for d in await engramdb.list_datasets()] == ["birds"]


async def test_chunk_size_sets_the_chunk_budget() -> None:
    sentences = " ".join(f"Sentence number {i} talks about topic {i}." for i in range(60))
    small = await engramdb.remember(sentences, "small", chunk_size=32, self_improvement=False)
    large = await engramdb.remember(sentences, "large", chunk_size=1024, self_improvement=False)
    assert small.counts["chunks"] > large.counts["chunks"] == 1


async def test_items_processed_counts_what_the_call_handled() -> None:
    first = await engramdb.remember(["Owls hunt.", "Bats fly."], self_improvement=False)
    assert first.items_processed == 2
    again = await engramdb.remember(["Owls hunt.", "Moles dig."], self_improvement=False)
    assert again.items_processed == 2  # one skipped, one new: both handled
    noted = await engramdb.remember(["a note", "another"], session_id="s1")
    assert noted.items_processed == len(noted.entry_ids) > 0
