"""Sessions through the public API, offline: recording recall turns, the session lanes, feedback,
remember(session_id=...), agent traces, guidance, isolation between users and durability."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest

import engramdb
from engramdb.engine import Engine, get_engine, set_engine
from engramdb.errors import StorageError
from engramdb.models.sessions import QARecord
from engramdb.settings import config
from engramdb.storage.sqlite import SqliteStore

FACTS = (
    "Owls hunt small rodents at night in the forest. "
    "Bats sleep in caves during the day and hunt insects."
)


async def _ingest() -> None:
    await engramdb.remember(FACTS, dataset_name="nature")


async def test_recall_with_a_session_records_the_turn() -> None:
    await _ingest()
    results = await engramdb.recall("Where do owls hunt?", session_id="chat-1")
    assert [r.source for r in results] == ["graph"]

    (turn,) = await engramdb.session.get_session("chat-1")
    assert turn.question == "Where do owls hunt?"
    assert "Owls hunt small rodents" in turn.context
    assert turn.answer == ""  # CHUNKS offline returns context, not an answer
    assert turn.feedback_score is None and turn.time
    # the graph elements the answer used are kept for feedback weights
    engine = get_engine()
    owner = await engine.resolve_user(None)
    (record,) = await engine.store.list_qa_entries(owner.id, session_ids=["chat-1"])
    assert record.used_node_ids and record.search_type == "CHUNKS"
    used = await engine.store.get_nodes(record.used_node_ids)
    assert any("Owls hunt" in n.text for n in used)
    (nature,) = await engine.store.list_datasets(owner.id)
    assert record.dataset_ids == [nature.id]


async def test_session_lane_matches_keywords_and_short_circuits_the_graph() -> None:
    await _ingest()
    await engramdb.recall("Where do owls hunt?", session_id="chat-1")

    # session_id alone: a session hit answers and the graph search is skipped (nothing recorded)
    hits = await engramdb.recall("owls hunting", session_id="chat-1")
    assert [r.source for r in hits] == ["session"]
    assert hits[0].question == "Where do owls hunt?"
    assert len(await engramdb.session.get_session("chat-1")) == 1

    # with datasets both lanes contribute, session first
    both = await engramdb.recall("owls hunting", session_id="chat-1", datasets=["nature"])
    assert [r.source for r in both] == ["session", "graph"]

    # a query sharing only function words with the history falls through to the graph
    fallthrough = await engramdb.recall("Where do frogs live?", session_id="chat-1")
    assert [r.source for r in fallthrough] == ["graph"]

    # session_first asks for the short-circuit by name
    first = await engramdb.recall(
        "owls hunting", session_id="chat-1", scope="session_first", datasets=["nature"]
    )
    assert first and {r.source for r in first} == {"session"}


async def test_scope_session_never_resolves_dataset_names_and_needs_a_session() -> None:
    await _ingest()
    await engramdb.recall("owls", session_id="chat-1")
    assert await engramdb.recall("owls", scope="session", datasets=["no-such-dataset"]) == []
    hits = await engramdb.recall(
        "owls", scope="session", session_id="chat-1", datasets=["no-such-dataset"]
    )
    assert [r.source for r in hits] == ["session"]
    assert await engramdb.recall("owls", scope="session", session_id="never-used") == []
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.recall("owls", session_id="")


async def test_only_context_writes_nothing_to_the_session() -> None:
    await _ingest()
    await engramdb.recall("owls", session_id="chat-1", only_context=True)
    assert await engramdb.session.get_session("chat-1") == []


async def test_feedback_is_validated_and_stored() -> None:
    await _ingest()
    await engramdb.recall("Where do owls hunt?", session_id="chat-1")
    (turn,) = await engramdb.session.get_session("chat-1")

    assert await engramdb.session.add_feedback(
        "chat-1", turn.qa_id, feedback_score=5, feedback_text="spot on"
    )
    (rated,) = await engramdb.session.get_session("chat-1")
    assert (rated.feedback_score, rated.feedback_text) == (5, "spot on")

    for bad in (0, 6, -1, 3.5, True, "5"):
        with pytest.raises(engramdb.EngramValidationError, match="1 to 5"):
            await engramdb.session.add_feedback("chat-1", turn.qa_id, feedback_score=bad)  # type: ignore[arg-type]
    with pytest.raises(engramdb.CogneeValidationError):
        await engramdb.session.add_feedback("chat-1", turn.qa_id)
    (unchanged,) = await engramdb.session.get_session("chat-1")
    assert unchanged.feedback_score == 5

    with pytest.raises(engramdb.NotFoundError, match="get_session"):
        await engramdb.session.add_feedback("chat-1", str(uuid4()), feedback_score=3)
    with pytest.raises(engramdb.NotFoundError):
        await engramdb.session.add_feedback("other-chat", turn.qa_id, feedback_score=3)
    assert engramdb.NotFoundError("x").status_code == 404

    assert await engramdb.session.delete_feedback("chat-1", turn.qa_id)
    (cleared,) = await engramdb.session.get_session("chat-1")
    assert (cleared.feedback_score, cleared.feedback_text) == (None, None)


async def test_feedback_before_any_database_is_not_found_and_creates_nothing(
    isolated_config: Path,
) -> None:
    with pytest.raises(engramdb.NotFoundError):
        await engramdb.session.add_feedback("chat-1", str(uuid4()), feedback_score=4)
    assert await engramdb.session.get_session("chat-1") == []
    assert not any(isolated_config.iterdir())


async def test_another_user_never_sees_a_session_of_the_same_id() -> None:
    await _ingest()
    await engramdb.recall("Where do owls hunt?", session_id="shared-name")
    (alice_turn,) = await engramdb.session.get_session("shared-name")
    bob = await get_engine().store.create_user("bob@example.com")

    assert await engramdb.session.get_session("shared-name", user=bob) == []
    assert (
        await engramdb.recall("owls hunt", scope="session", session_id="shared-name", user=bob)
        == []
    )
    with pytest.raises(engramdb.NotFoundError):
        await engramdb.session.add_feedback(
            "shared-name", alice_turn.qa_id, feedback_score=1, user=bob
        )
    await engramdb.session.add_trace("shared-name", "lookup", user=bob)
    assert await engramdb.session.get_traces("shared-name") == []
    (alice_after,) = await engramdb.session.get_session("shared-name")
    assert alice_after.feedback_score is None
    assert [s.session_id for s in await engramdb.session.list_sessions(user=bob)] == ["shared-name"]


async def test_sessions_survive_a_restart() -> None:
    await _ingest()
    await engramdb.recall("Where do owls hunt?", session_id="chat-1")
    (turn,) = await engramdb.session.get_session("chat-1")
    await engramdb.session.add_feedback("chat-1", turn.qa_id, feedback_score=4)
    await engramdb.session.add_trace("chat-1", "search", method_return_value=[1, 2])
    await get_engine().close()
    set_engine(None)
    config.reset()  # a new process: settings and engine built from scratch

    (again,) = await engramdb.session.get_session("chat-1")
    assert (again.qa_id, again.feedback_score) == (turn.qa_id, 4)
    (step,) = await engramdb.session.get_traces("chat-1")
    assert step.method_return_value == [1, 2]


class _BrokenSessionStore(SqliteStore):
    """A store whose session writes fail, to show recording is fail-open."""

    async def add_qa_entry(self, entry: QARecord) -> QARecord:
        raise StorageError("disk full")


async def test_a_failed_recording_does_not_fail_the_recall(
    caplog: pytest.LogCaptureFixture,
) -> None:
    await _ingest()
    settings = config.settings
    path = Path(settings.storage_url.removeprefix("sqlite:///"))
    set_engine(Engine(settings, store=_BrokenSessionStore(path)))
    results = await engramdb.recall("Where do owls hunt?", session_id="chat-1")
    assert [r.source for r in results] == ["graph"]
    assert "could not record the recall turn" in caplog.text
    assert await engramdb.session.get_session("chat-1") == []


async def test_remember_with_a_session_stores_notes_not_graph() -> None:
    # the automatic improve after remember (issue 5) would bridge the notes into the graph: off
    config.set("improve_auto_enabled", False)
    await _ingest()
    result = await engramdb.remember("I am planning a trip to Oslo in May.", session_id="trip")
    assert result.status == "session_stored" and result.session_id == "trip"
    assert result.entry_type == "qa" and result.entry_id is not None
    assert result.dataset_name == "main_dataset"
    many = await engramdb.remember(
        ["Budget is 900 euros.", "  ", "Travelling by train."], session_id="trip"
    )
    assert len(many.entry_ids) == 2

    notes = await engramdb.session.get_session("trip")
    assert [n.answer for n in notes] == [
        "I am planning a trip to Oslo in May.",
        "Budget is 900 euros.",
        "Travelling by train.",
    ]
    assert all(n.question == "" for n in notes)
    hits = await engramdb.recall("Oslo trip", scope="session", session_id="trip")
    assert [h.qa_id for h in hits] == [result.entry_id]
    # nothing entered the graph: the dataset is still warming up
    marker = await engramdb.recall("Oslo", datasets=["main_dataset"])
    assert [r.source for r in marker] == ["system"]
    with pytest.raises(engramdb.EngramValidationError, match="without session_id"):
        await engramdb.remember(Path("notes.txt"), session_id="trip")


async def test_remember_typed_entries() -> None:
    await _ingest()
    qa = await engramdb.remember(
        engramdb.QAEntry(question="Best time to see owls?", answer="Dusk.", feedback_score=4),
        session_id="s",
    )
    assert qa.entry_type == "qa"
    (entry,) = await engramdb.session.get_session("s")
    assert (entry.qa_id, entry.answer, entry.feedback_score) == (qa.entry_id, "Dusk.", 4)

    step = await engramdb.remember(
        engramdb.memory.TraceEntry(
            origin_function="fetch_weather",
            status="error",
            method_params={"city": "Oslo"},
            error_message="HTTP 503",
        ),
        session_id="s",
    )
    (trace,) = await engramdb.session.get_traces("s")
    assert (trace.trace_id, trace.status, trace.error_message) == (
        step.entry_id,
        "error",
        "HTTP 503",
    )
    assert trace.session_feedback == "fetch_weather failed. Reason: HTTP 503."

    rated = await engramdb.remember(
        engramdb.FeedbackEntry(qa_id=entry.qa_id, feedback_score=2), session_id="s"
    )
    assert rated.entry_type == "feedback"
    (after,) = await engramdb.session.get_session("s")
    assert after.feedback_score == 2

    with pytest.raises(engramdb.EngramValidationError, match="session_id"):
        await engramdb.remember(engramdb.QAEntry(question="q", answer="a"))
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.remember(
            engramdb.FeedbackEntry(qa_id=entry.qa_id, feedback_score=9), session_id="s"
        )


async def test_agent_traces_are_recorded_and_found_by_keyword() -> None:
    await _ingest()

    @engramdb.session.traced("agent-1")
    async def search_flights(city: str, *, max_price: int, api_key: str) -> list[str]:
        return [f"{city} 08:15", f"{city} 17:40"]

    @engramdb.session.traced("agent-1")
    async def book_seat(flight: str) -> str:
        raise RuntimeError(f"seat map unavailable for {flight}")

    assert await search_flights("Oslo", max_price=300, api_key="sk-secret-value") == [
        "Oslo 08:15",
        "Oslo 17:40",
    ]
    with pytest.raises(RuntimeError, match="seat map"):
        await book_seat("Oslo 08:15")

    first, second = await engramdb.session.get_traces("agent-1")
    assert first.origin_function.endswith("search_flights") and first.status == "success"
    assert first.method_params == {"city": "Oslo", "max_price": 300, "api_key": "[redacted]"}
    assert first.method_return_value == ["Oslo 08:15", "Oslo 17:40"]
    assert second.status == "error" and "RuntimeError: seat map unavailable" in second.error_message

    hits = await engramdb.recall("seat map", scope="trace", session_id="agent-1")
    assert [h.trace_id for h in hits] == [second.trace_id]
    assert hits[0].source == "trace"
    flights = await engramdb.recall("flights to Oslo", scope="trace", session_id="agent-1")
    assert flights[0].trace_id == first.trace_id

    with pytest.raises(TypeError, match="async"):
        engramdb.session.traced("agent-1")(lambda: None)  # type: ignore[arg-type,return-value]


async def test_session_context_renders_one_profile_read_only() -> None:
    await _ingest()
    await engramdb.session.add_guidance("s", "Answer in bullet points.", section="preferences")
    await engramdb.session.add_guidance("s", "Cite the document name.", section="rules")
    same = await engramdb.session.add_guidance(
        "s", "answer in  BULLET points.", section="preferences"
    )
    await engramdb.session.add_guidance(
        "s",
        "The flight API times out after 10 s.",
        section="failure_lessons",
        context_profile="agent",
    )
    with pytest.raises(engramdb.EngramValidationError, match="goals, rules"):
        await engramdb.session.add_guidance("s", "x", section="tool_rules")

    (qa,) = await engramdb.recall("anything", scope="session_context", session_id="s")
    assert qa.source == "session_context" and qa.context_profile == "qa"
    assert qa.content.count("bullet points") == 1
    assert qa.content.index("### Rules") < qa.content.index("### Preferences")
    assert "flight API" not in qa.content
    assert same  # the duplicate returned the existing entry's id

    (agent,) = await engramdb.recall(
        "anything", scope="session_context", session_id="s", context_profile="agent"
    )
    assert "### Failure lessons" in agent.content and "bullet" not in agent.content
    again = await engramdb.recall("anything", scope="session_context", session_id="s")
    assert again == [qa]  # serving changes nothing

    everything = await engramdb.recall(
        "bullet points", scope="all", session_id="s", datasets=["nature"]
    )
    assert {r.source for r in everything} >= {"graph", "session_context"}


async def test_sessions_can_be_listed_and_deleted() -> None:
    await _ingest()
    await engramdb.recall("owls", session_id="a")
    await engramdb.remember("note", session_id="b")
    assert [s.session_id for s in await engramdb.session.list_sessions()] == ["b", "a"]
    assert await engramdb.session.delete_session("a") is True
    assert await engramdb.session.get_session("a") == []
    assert await engramdb.session.delete_session("a") is False


async def test_forget_everything_deletes_the_callers_sessions_only() -> None:
    await _ingest()
    await engramdb.recall("Where do owls hunt?", session_id="chat")
    await engramdb.session.add_trace("chat", "lookup")
    bob = await get_engine().store.create_user("bob@example.com")
    await engramdb.session.add_trace("bobs-chat", "lookup", user=bob)

    result = await engramdb.forget(everything=True)
    assert result.sessions == 1 and result.datasets == 1
    assert await engramdb.session.list_sessions() == []
    assert await engramdb.session.get_session("chat") == []
    assert await engramdb.session.get_traces("chat") == []
    # another user's conversation is not the caller's to delete
    assert [s.session_id for s in await engramdb.session.list_sessions(user=bob)] == ["bobs-chat"]
