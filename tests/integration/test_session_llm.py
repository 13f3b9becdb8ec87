"""Sessions with an LLM, through the real client against the local OpenAI-protocol server: the
conversation history in completion prompts, recorded answers, and AUTO_FEEDBACK's per-turn
analysis (inferred ratings and guidance)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.models.sessions import QARecord
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

FACTS = (
    "Owls hunt small rodents at night in the forest. "
    "Bats sleep in caves during the day and hunt insects."
)
ANSWER = "Owls hunt at night, in the forest."


def _schema_name(request: RecordedRequest) -> str:
    body = request.json if isinstance(request.json, dict) else {}
    fmt = body.get("response_format") or {}
    return str((fmt.get("json_schema") or {}).get("name", ""))


def _is_analysis(request: RecordedRequest) -> bool:
    return "TurnAnalysis" in _schema_name(request)


def _serve(
    server: OpenAIServer, analysis: dict[str, Any] | Callable[[], Reply] | None = None
) -> None:
    """Answer completions with ANSWER and turn analyses with ``analysis`` (a JSON document, or a
    function giving the reply)."""

    def handler(request: RecordedRequest) -> Reply:
        if _is_analysis(request):
            if callable(analysis):
                return analysis()
            return Reply.json(server.chat_document(json.dumps(analysis or {})))
        return Reply.json(server.chat_document(ANSWER))

    server.set_default("chat/completions", handler)


async def _setup(server: OpenAIServer, **settings: Any) -> None:
    await engramdb.remember(FACTS, dataset_name="nature")  # offline extraction, before the LLM
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    for key, value in settings.items():
        engramdb.config.set(key, value)


def _completions(server: OpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.requests_to("chat/completions") if not _is_analysis(r)]


def _analyses(server: OpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.requests_to("chat/completions") if _is_analysis(r)]


def _user_prompt(request: RecordedRequest) -> str:
    messages = request.json["messages"]
    return str(next(m["content"] for m in messages if m["role"] == "user"))


async def _records(session_id: str) -> list[QARecord]:
    engine = get_engine()
    owner = await engine.resolve_user(None)
    return await engine.store.list_qa_entries(owner.id, session_ids=[session_id])


async def _ask(question: str, session_id: str = "chat") -> list[Any]:
    return await engramdb.recall(
        question, engramdb.SearchType.RAG_COMPLETION, session_id=session_id
    )


async def test_completion_prompts_carry_the_conversation_history(
    openai_server: OpenAIServer,
) -> None:
    await _setup(openai_server)
    _serve(openai_server)
    (first,) = await _ask("Where do owls hunt?")
    assert first.text == ANSWER
    (turn,) = await _records("chat")
    assert turn.answer == ANSWER and "Owls hunt small rodents" in turn.context
    assert turn.used_node_ids and turn.search_type == "RAG_COMPLETION"

    await _ask("And what do they eat?")
    one, two = _completions(openai_server)
    assert "Conversation so far" not in _user_prompt(one)
    prompt = _user_prompt(two)
    assert prompt.startswith("Conversation so far:")
    assert "Question: Where do owls hunt?" in prompt and f"Answer: {ANSWER}" in prompt
    assert prompt.index("Conversation so far") < prompt.index("Question: And what do they eat?")
    # another session's history never leaks into this one
    await _ask("Where do bats sleep?", session_id="other")
    assert "Where do owls hunt?" not in _user_prompt(_completions(openai_server)[-1])


async def test_only_context_shows_the_history_and_writes_nothing(
    openai_server: OpenAIServer,
) -> None:
    await _setup(openai_server)
    _serve(openai_server)
    await _ask("Where do owls hunt?")
    calls = len(openai_server.requests_to("chat/completions"))

    (prompt,) = await engramdb.recall(
        "And bats?", engramdb.SearchType.RAG_COMPLETION, session_id="chat", only_context=True
    )
    assert prompt.text.startswith("Conversation so far:")
    assert "Where do owls hunt?" in prompt.text and prompt.system_prompt
    assert len(openai_server.requests_to("chat/completions")) == calls  # no LLM call
    assert len(await _records("chat")) == 1


async def test_auto_feedback_rates_the_previous_answer_when_personalization_is_on(
    openai_server: OpenAIServer,
) -> None:
    await _setup(openai_server, auto_feedback=True, personalization_enabled=True)
    _serve(
        openai_server,
        {
            "previous_answer_rating": 5,
            "candidate_context_updates": [
                {"section": "preferences", "content": "Keep answers short.", "confidence": 0.9},
                {"section": "rules", "content": "Never mention bats.", "confidence": 0.5},
                {"section": "nonsense", "content": "Ignored.", "confidence": 1.0},
            ],
        },
    )
    await _ask("Where do owls hunt?")
    await _ask("That was exactly right, thanks! Keep it short. What do bats eat?")

    first, second = await engramdb.session.get_session("chat")
    assert first.feedback_score == 5 and second.feedback_score is None
    (rated, _) = await _records("chat")
    assert rated.feedback_source == "auto" and rated.rating_rev == 1

    analysis = _analyses(openai_server)[-1]
    system = analysis.json["messages"][0]["content"]
    assert "Previous answer rating" in system
    user = _user_prompt(analysis)
    assert "CURRENT USER MESSAGE:\nThat was exactly right" in user
    assert f"PREVIOUS ANSWER:\n{ANSWER}" in user

    (guidance,) = await engramdb.recall("x", scope="session_context", session_id="chat")
    assert "Keep answers short." in guidance.content
    assert "Never mention bats" not in guidance.content and "Ignored" not in guidance.content


async def test_without_personalization_the_rating_is_never_asked_or_stored(
    openai_server: OpenAIServer,
) -> None:
    await _setup(openai_server, auto_feedback=True)
    _serve(openai_server, {"previous_answer_rating": 1, "candidate_context_updates": []})
    await _ask("Where do owls hunt?")
    await _ask("No, that is wrong again.")

    assert [e.feedback_score for e in await engramdb.session.get_session("chat")] == [None, None]
    for request in _analyses(openai_server):
        sent = json.dumps(request.json)
        assert "Previous answer rating" not in sent and "previous_answer_rating" not in sent
    assert await engramdb.recall("x", scope="session_context", session_id="chat") == []


@pytest.mark.parametrize("rating", [0, 6, 7, -1, "junk", 3.7, True, [4], {"rating": 4}])
async def test_an_out_of_range_rating_is_no_signal(
    openai_server: OpenAIServer, rating: object
) -> None:
    await _setup(openai_server, auto_feedback=True, personalization_enabled=True)
    _serve(openai_server, {"previous_answer_rating": rating})
    await _ask("Where do owls hunt?")
    (answer,) = await _ask("Hmm.")
    assert answer.text == ANSWER
    assert [e.feedback_score for e in await engramdb.session.get_session("chat")] == [None, None]
    assert len(_analyses(openai_server)) == 2  # no repair round: the value just means nothing


async def test_an_explicit_score_wins_over_an_inferred_one(openai_server: OpenAIServer) -> None:
    await _setup(openai_server, auto_feedback=True, personalization_enabled=True)
    _serve(openai_server, {"previous_answer_rating": 5})
    await _ask("Where do owls hunt?")
    (turn,) = await engramdb.session.get_session("chat")
    await engramdb.session.add_feedback("chat", turn.qa_id, feedback_score=2)

    await _ask("Perfect answer!")
    first, _ = await engramdb.session.get_session("chat")
    assert first.feedback_score == 2

    # and an explicit score replaces an inferred one
    second_turn = (await engramdb.session.get_session("chat"))[-1]
    await _ask("Great, exactly what I needed.")
    inferred = (await engramdb.session.get_session("chat"))[-2]
    assert inferred.qa_id == second_turn.qa_id and inferred.feedback_score == 5
    await engramdb.session.add_feedback("chat", second_turn.qa_id, feedback_score=1)
    assert (await engramdb.session.get_session("chat"))[-2].feedback_score == 1


async def test_auto_feedback_off_makes_no_analysis_call(openai_server: OpenAIServer) -> None:
    await _setup(openai_server, personalization_enabled=True)
    _serve(openai_server, {"previous_answer_rating": 5})
    await _ask("Where do owls hunt?")
    await _ask("Exactly right!")
    assert _analyses(openai_server) == []
    assert [e.feedback_score for e in await engramdb.session.get_session("chat")] == [None, None]


async def test_a_failing_analysis_never_blocks_the_answer(
    openai_server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    await _setup(openai_server, auto_feedback=True, personalization_enabled=True)
    _serve(openai_server, lambda: Reply.error(500, "analysis backend down"))
    await _ask("Where do owls hunt?")
    (answer,) = await _ask("Thanks, great answer!")
    assert answer.text == ANSWER
    assert "turn analysis of session 'chat' failed" in caplog.text
    assert len(await _records("chat")) == 2


async def test_a_graph_answer_records_the_nodes_and_edges_it_used(
    openai_server: OpenAIServer,
) -> None:
    await engramdb.remember(
        "Andreas Keller was born in Venice. Andreas Keller settled in Lisbon in 1990.",
        dataset_name="people",
    )
    await _setup(openai_server)
    _serve(openai_server)
    await engramdb.recall(
        "Where was Andreas Keller born?",
        engramdb.SearchType.GRAPH_COMPLETION,
        datasets=["people"],
        session_id="chat",
    )
    (turn,) = await _records("chat")
    assert turn.answer == ANSWER and turn.search_type == "GRAPH_COMPLETION"
    store = get_engine().store
    edges = {e.id for e in await store.list_edges(turn.dataset_ids)}
    assert turn.used_edge_ids and set(turn.used_edge_ids) <= edges
    used_nodes = await store.get_nodes(turn.used_node_ids)
    assert len(used_nodes) == len(turn.used_node_ids)
    assert {n.type for n in used_nodes} >= {"Entity", "Chunk"}


async def test_an_answer_shows_the_session_guidance_and_records_which_entries(
    openai_server: OpenAIServer,
) -> None:
    """As in the reference, with AUTO_FEEDBACK the session's active "qa" guidance joins the
    answer prompt, and the Q&A entry names the guidance entries it showed
    (``used_session_context_ids``); a turn whose prompt showed none records None."""
    await _setup(openai_server, auto_feedback=True)
    _serve(openai_server, {"candidate_context_updates": []})
    await _ask("Where do owls hunt?")  # no guidance yet
    entry_id = await engramdb.session.add_guidance(
        "chat", "Answer in one sentence.", section="preferences"
    )
    await engramdb.session.add_guidance(
        "chat", "Log every tool call.", section="tool_rules", context_profile="agent"
    )

    await _ask("And where do bats sleep?")

    prompt = _user_prompt(_completions(openai_server)[-1])
    assert "## Active session guidance" in prompt and "- Answer in one sentence." in prompt
    assert "Log every tool call" not in prompt  # the agent profile is not the answer's
    first, second = await engramdb.session.get_session("chat")
    assert first.used_session_context_ids is None
    assert second.used_session_context_ids == [str(entry_id)]
    (only,) = await engramdb.recall(
        "And owls?", engramdb.SearchType.RAG_COMPLETION, session_id="chat", only_context=True
    )
    assert "- Answer in one sentence." in only.text


async def test_without_auto_feedback_no_guidance_is_served(openai_server: OpenAIServer) -> None:
    await _setup(openai_server)
    _serve(openai_server)
    await engramdb.session.add_guidance("chat", "Answer in one sentence.", section="preferences")
    await _ask("Where do owls hunt?")
    assert "Active session guidance" not in _user_prompt(_completions(openai_server)[-1])
    (entry,) = await engramdb.session.get_session("chat")
    assert entry.used_session_context_ids is None
