"""Coding rules drawn from conversations (``cognee.tasks.codingagents``) in the shape of cognee's
memify_coding_agent_rule_extraction example: remember two chats, memify them with
``extract_subgraph_chunks`` + ``add_rule_associations``, list the rules with CODING_RULES. The
LLM is the local OpenAI-protocol server; it states one rule per sentence of the chat it gets.
Re-run on PostgreSQL by tests/postgres/test_api.py."""

from __future__ import annotations

import json
import re
import warnings

import pytest

import engramdb
from engramdb import SearchType
from engramdb.compat.cognee.modules.pipelines.tasks.task import Task
from engramdb.compat.cognee.tasks.codingagents.coding_rule_associations import (
    Rule,
    add_rule_associations,
    get_existing_rules,
)
from engramdb.compat.cognee.tasks.memify.extract_subgraph_chunks import extract_subgraph_chunks
from engramdb.errors import CogneeValidationError, LLMNotConfiguredError
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.support.schema_answers import answer_chat

ENGINEER = """
We want code to be formatted by PEP8 standards.
Susan should always review new code changes before merging to main.
"""
MANAGER = """
Susan should always review new code changes before merging to main.
New releases should not happen on Friday.
"""
SET = "coding_agent_rules"


def _rules_or_schema(request: RecordedRequest) -> Reply:
    """A rule per sentence of the conversation for the rule prompt; schema answers otherwise."""
    body = request.json or {}
    user = body["messages"][-1]["content"]
    if "Conversation context:" not in user:
        return answer_chat(request)
    chat = user.split("Conversation context:", 1)[1]
    sentences = [s.strip() for s in re.split(r"(?<=\.)\s+", chat) if s.strip()]
    content = json.dumps({"rules": [{"text": s} for s in sentences]})
    return Reply.json(
        {
            "id": "chatcmpl-rules",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}}
                | {"finish_reason": "stop"}
            ],
        }
    )


def _configure(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 0)
    server.set_default("chat/completions", _rules_or_schema)


async def _memify_rules() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # memify() is deprecated, as in cognee
        await engramdb.memify(
            extraction_tasks=[Task(extract_subgraph_chunks)],
            enrichment_tasks=[
                Task(add_rule_associations, rules_nodeset_name=SET, task_config={"batch_size": 1})
            ],
        )


def _rule_prompts(server: OpenAIServer) -> list[str]:
    texts = [r.json["messages"][-1]["content"] for r in server.requests_to("chat/completions")]
    return [t for t in texts if "Conversation context:" in t]


async def test_memify_stores_each_rule_once_and_coding_rules_lists_them(
    openai_server: OpenAIServer,
) -> None:
    _configure(openai_server)
    await engramdb.remember([ENGINEER, MANAGER], self_improvement=False)

    await _memify_rules()

    found = await engramdb.recall(
        "List me the coding rules", query_type=SearchType.CODING_RULES, node_name=[SET]
    )
    texts = sorted(r.text for r in found)
    assert texts == [
        "New releases should not happen on Friday.",
        "Susan should always review new code changes before merging to main.",
        "We want code to be formatted by PEP8 standards.",
    ]  # the Susan rule both chats state is stored once
    assert {r.kind for r in found} == {"coding_rule"}
    # the second chat's prompt listed the rules the first one produced as known
    first, second = _rule_prompts(openai_server)
    assert "(none yet)" in first and "- Susan should always review" in second
    assert sorted(await get_existing_rules(SET)) == texts

    # a rule is a node like any other: found by CHUNKS, gone with its dataset
    hits = await engramdb.recall("PEP8 formatting", query_type=SearchType.CHUNKS)
    assert any(h.text == "We want code to be formatted by PEP8 standards." for h in hits)
    await engramdb.forget(dataset="main_dataset")
    assert await get_existing_rules(SET) == []


async def test_memify_again_adds_nothing_new(openai_server: OpenAIServer) -> None:
    _configure(openai_server)
    await engramdb.remember(ENGINEER, self_improvement=False)
    await _memify_rules()
    await _memify_rules()
    rules = await get_existing_rules(SET)
    assert sorted(rules) == [
        "Susan should always review new code changes before merging to main.",
        "We want code to be formatted by PEP8 standards.",
    ]
    other = await engramdb.recall(
        "rules", query_type=SearchType.CODING_RULES, node_name=["another_set"]
    )
    assert other == []


async def test_a_direct_call_returns_the_new_rules(openai_server: OpenAIServer) -> None:
    _configure(openai_server)
    stored = await add_rule_associations(["Tests must pass.", "Tests must pass."], "team")
    assert [type(r) for r in stored] == [Rule]
    assert stored[0].text == "Tests must pass." and stored[0].belongs_to_set == ["team"]
    assert await add_rule_associations("Tests must pass.", "team") == []  # already known


async def test_without_an_llm_or_with_custom_prompts_it_says_why() -> None:
    with pytest.raises(LLMNotConfiguredError, match="LLM_API_KEY"):
        await add_rule_associations("Tests must pass.", SET)
    with pytest.raises(CogneeValidationError, match="prompt"):
        await add_rule_associations("Tests must pass.", SET, user_prompt_location="mine.txt")
