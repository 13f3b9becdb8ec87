"""``LLMGateway.acreate_structured_output`` (cognee.infrastructure.llm) over engramdb's LLM client,
against the local OpenAI-protocol test server, in the shape of cognee's low_level_llm.py."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import BaseModel

import engramdb
from engramdb.compat.cognee.infrastructure.engine import DataPoint, Dedup, Embeddable
from engramdb.compat.cognee.infrastructure.llm import LLMGateway, get_llm_config
from engramdb.compat.cognee.tasks.storage import add_data_points
from engramdb.errors import FeatureNotAvailableError, LLMNotConfiguredError, LLMOutputError
from tests.support.openai_server import OpenAIServer, Reply


class MiniEntity(BaseModel):
    name: str
    type: str


class MiniGraph(BaseModel):
    nodes: list[MiniEntity]


def _configure(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 0)


async def test_structured_output_is_a_validated_instance(openai_server: OpenAIServer) -> None:
    _configure(openai_server)
    graph = {"nodes": [{"name": "Apple", "type": "Organization"}, {"name": "R8", "type": "Car"}]}
    openai_server.enqueue(
        "chat/completions", Reply.json(openai_server.chat_document(json.dumps(graph)))
    )
    result = await LLMGateway.acreate_structured_output(
        "Apple develops iPhone; Audi produces the R8.",
        "Extract entities as nodes with name and type.",
        MiniGraph,
    )
    assert result == MiniGraph.model_validate(graph)
    (request,) = openai_server.requests_to("chat/completions")
    messages = request.json["messages"]
    assert messages[0] == {
        "role": "system",
        "content": "Extract entities as nodes with name and type.",
    }
    assert messages[-1]["content"] == "Apple develops iPhone; Audi produces the R8."
    assert request.json["model"] == get_llm_config().llm_model == "test-chat"
    assert request.json["response_format"]["json_schema"]["name"].endswith("MiniGraph")


async def test_response_model_str_returns_the_text(openai_server: OpenAIServer) -> None:
    _configure(openai_server)
    openai_server.enqueue("chat/completions", Reply.json(openai_server.chat_document("Paris.")))
    answer = await LLMGateway.acreate_structured_output(
        "Capital of France?", "Answer in one word.", str, temperature=0.2
    )
    assert answer == "Paris."
    (request,) = openai_server.requests_to("chat/completions")
    assert request.json["temperature"] == 0.2 and "response_format" not in request.json


async def test_two_identical_calls_both_reach_the_llm(openai_server: OpenAIServer) -> None:
    """A program's direct call is never answered from the response cache."""
    _configure(openai_server)
    for name in ("A", "B"):
        doc = {"nodes": [{"name": name, "type": "Letter"}]}
        openai_server.enqueue(
            "chat/completions", Reply.json(openai_server.chat_document(json.dumps(doc)))
        )
    first = await LLMGateway.acreate_structured_output("same", "same", MiniGraph)
    second = await LLMGateway.acreate_structured_output("same", "same", MiniGraph)
    assert [first.nodes[0].name, second.nodes[0].name] == ["A", "B"]


async def test_an_answer_that_does_not_fit_raises_llm_output_error(
    openai_server: OpenAIServer,
) -> None:
    _configure(openai_server)
    openai_server.set_default(
        "chat/completions", lambda _: Reply.json(openai_server.chat_document('{"nodes": 3}'))
    )
    with pytest.raises(LLMOutputError):
        await LLMGateway.acreate_structured_output("text", "prompt", MiniGraph)


async def test_offline_it_names_the_llm_settings() -> None:
    with pytest.raises(LLMNotConfiguredError, match="LLM_API_KEY") as caught:
        await LLMGateway.acreate_structured_output("text", "prompt", MiniGraph)
    assert "LLM_ENDPOINT" in str(caught.value)


async def test_unknown_options_and_audio_are_refused(openai_server: OpenAIServer) -> None:
    _configure(openai_server)
    with pytest.raises(FeatureNotAvailableError, match="top_logprobs"):
        await LLMGateway.acreate_structured_output("t", "p", MiniGraph, top_logprobs=3)
    with pytest.raises(FeatureNotAvailableError, match="transcribe"):
        await LLMGateway.create_transcript("talk.mp3")
    assert openai_server.requests_to("chat/completions") == []


class Claim(DataPoint):
    text: Annotated[str, Embeddable("Claim text"), Dedup()]


class Scientist(DataPoint):
    name: Annotated[str, Embeddable("Person name"), Dedup()]
    claims: list[Claim] | None = None


class Found(BaseModel):
    people: list[Scientist]


async def test_datapoints_in_an_answer_keep_their_own_bookkeeping(
    openai_server: OpenAIServer,
) -> None:
    """What the model wrote into id, metadata or type is replaced by the class's own, so the
    points are identified and indexed as their class says (then stored and found)."""
    _configure(openai_server)
    made_up = {"id": "00000000-0000-4000-8000-000000000001", "type": "X"}
    bogus = {"index_fields": ["Curie"], "identity_fields": ["Curie"]}
    answer = {
        "people": [
            {
                **made_up,
                "name": "Albert Einstein",
                "metadata": bogus,
                "claims": [
                    {**made_up, "text": "Gravity is spacetime curvature.", "metadata": bogus}
                ],
            },
            {**made_up, "name": "Marie Curie", "metadata": bogus},
        ]
    }
    openai_server.enqueue(
        "chat/completions", Reply.json(openai_server.chat_document(json.dumps(answer)))
    )
    found = await LLMGateway.acreate_structured_output("Einstein; Curie.", "Extract.", Found)
    einstein, curie = found.people
    assert einstein.id == Scientist.id_for("Albert Einstein") != curie.id
    assert einstein.metadata["index_fields"] == ["name"] and einstein.type == "Scientist"
    assert einstein.claims is not None
    assert einstein.claims[0].id == Claim.id_for("Gravity is spacetime curvature.")
    await add_data_points(found.people)
    forgotten = await engramdb.forget(everything=True)
    assert forgotten.nodes >= 3 and forgotten.vectors >= 3  # each name and claim text indexed
