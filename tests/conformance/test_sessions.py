"""The session store: Q&A entries, feedback, consumer marks, traces, guidance entries.

Backend-agnostic: every test runs against each store of ``BACKENDS`` (see conftest.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from uuid import uuid4

import pytest

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.records import Dataset, User, utcnow
from engramdb.models.sessions import ContextRecord, EntryMark, QARecord, TraceRecord
from engramdb.storage.base import Store


def qa(user: User, session_id: str = "s1", **fields: Any) -> QARecord:
    values: dict[str, Any] = {
        "id": uuid4(),
        "user_id": user.id,
        "session_id": session_id,
        "question": "Where do owls live?",
        "context": "Owls live in forests.",
        "answer": "In forests.",
        "created_at": utcnow(),
    }
    values.update(fields)
    return QARecord.model_validate(values)


def trace(user: User, session_id: str = "s1", **fields: Any) -> TraceRecord:
    values: dict[str, Any] = {
        "id": uuid4(),
        "user_id": user.id,
        "session_id": session_id,
        "origin_function": "search_flights",
        "created_at": utcnow(),
    }
    values.update(fields)
    return TraceRecord.model_validate(values)


def guidance(user: User, content: str, session_id: str = "s1", **fields: Any) -> ContextRecord:
    now = utcnow()
    values: dict[str, Any] = {
        "id": uuid4(),
        "user_id": user.id,
        "session_id": session_id,
        "section": "preferences",
        "content": content,
        "created_at": now,
        "updated_at": now,
    }
    values.update(fields)
    return ContextRecord.model_validate(values)


async def test_qa_entries_round_trip_oldest_first(
    store: Store, user: User, dataset: Dataset
) -> None:
    node, edge, guidance = uuid4(), uuid4(), uuid4()
    first = await store.add_qa_entry(
        qa(
            user,
            dataset_ids=[dataset.id],
            used_node_ids=[node],
            used_edge_ids=[edge],
            used_context_ids=[guidance],
            search_type="GRAPH_COMPLETION",
        )
    )
    second = await store.add_qa_entry(qa(user, question="And bats?", answer="Caves."))
    assert first.seq < second.seq
    assert first.dataset_ids == [dataset.id]
    assert (first.used_node_ids, first.used_edge_ids) == ([node], [edge])
    assert (first.used_context_ids, second.used_context_ids) == ([guidance], [])
    assert first.search_type == "GRAPH_COMPLETION" and first.rating_rev == 0
    assert first.created_at.utcoffset() is not None

    listed = await store.list_qa_entries(user.id, session_ids=["s1"])
    assert [e.id for e in listed] == [first.id, second.id]
    assert listed[0] == first
    assert await store.get_qa_entry(user.id, "s1", second.id) == second
    assert await store.get_qa_entry(user.id, "other", second.id) is None

    session = await store.get_session(user.id, "s1")
    assert session is not None and session.session_id == "s1"
    assert session.updated_at >= session.created_at


async def test_same_session_id_of_two_users_never_mixes(store: Store, user: User) -> None:
    other = await store.create_user("b@example.com")
    mine = await store.add_qa_entry(qa(user, question="mine"))
    theirs = await store.add_qa_entry(qa(other, question="theirs"))

    assert [e.question for e in await store.list_qa_entries(user.id, session_ids=["s1"])] == [
        "mine"
    ]
    assert [e.question for e in await store.list_qa_entries(other.id)] == ["theirs"]
    assert await store.get_qa_entry(other.id, "s1", mine.id) is None
    assert await store.get_qa_entry(user.id, "s1", theirs.id) is None
    with pytest.raises(NotFoundError):
        await store.set_qa_feedback(other.id, "s1", mine.id, score=1, text=None, source="explicit")
    assert (await store.get_qa_entry(user.id, "s1", mine.id)).feedback_score is None  # type: ignore[union-attr]

    await store.add_trace_entry(trace(user))
    await store.add_context_entry(guidance(user, "Answer in bullet points."))
    assert await store.list_trace_entries(other.id) == []
    assert await store.list_context_entries(other.id, "s1") == []
    assert await store.delete_session(other.id, "s1")
    assert len(await store.list_qa_entries(user.id)) == 1


async def test_filters_by_session_dataset_and_last_n(
    store: Store, user: User, dataset: Dataset, other_dataset: Dataset
) -> None:
    a = await store.add_qa_entry(qa(user, "s1", dataset_ids=[dataset.id]))
    b = await store.add_qa_entry(qa(user, "s2", dataset_ids=[dataset.id, other_dataset.id]))
    c = await store.add_qa_entry(qa(user, "s1", dataset_ids=[other_dataset.id]))

    assert [e.id for e in await store.list_qa_entries(user.id)] == [a.id, b.id, c.id]
    assert [e.id for e in await store.list_qa_entries(user.id, session_ids=["s1"])] == [a.id, c.id]
    assert await store.list_qa_entries(user.id, session_ids=[]) == []
    by_dataset = await store.list_qa_entries(user.id, dataset_id=dataset.id)
    assert [e.id for e in by_dataset] == [a.id, b.id]
    assert sorted(b.dataset_ids, key=str) == b.dataset_ids
    assert [e.id for e in await store.list_qa_entries(user.id, last_n=2)] == [b.id, c.id]
    assert await store.count_qa_entries(user.id) == 3
    assert await store.count_qa_entries(user.id, session_ids=["s2"]) == 1
    assert await store.count_qa_entries(user.id, dataset_id=other_dataset.id) == 2
    assert await store.count_qa_entries(user.id, session_ids=[]) == 0


async def test_sessions_are_listed_most_recent_first(store: Store, user: User) -> None:
    start = utcnow()
    await store.add_qa_entry(qa(user, "old", created_at=start))
    await store.add_qa_entry(qa(user, "new", created_at=start + timedelta(seconds=1)))
    assert [s.session_id for s in await store.list_sessions(user.id)] == ["new", "old"]
    await store.add_trace_entry(trace(user, "old", created_at=start + timedelta(seconds=2)))
    assert [s.session_id for s in await store.list_sessions(user.id)] == ["old", "new"]


async def test_explicit_feedback_and_rating_revisions(store: Store, user: User) -> None:
    entry = await store.add_qa_entry(qa(user))
    rated = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=4, text="good", source="explicit"
    )
    assert (rated.feedback_score, rated.feedback_text, rated.feedback_source) == (
        4,
        "good",
        "explicit",
    )
    assert rated.rating_rev == 1 and rated.feedback_at is not None

    same = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=4, text=None, source="explicit"
    )
    assert same.rating_rev == 1 and same.feedback_text == "good"

    text_only = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=None, text="actually great", source="explicit"
    )
    assert (text_only.feedback_score, text_only.rating_rev) == (4, 1)
    assert text_only.feedback_text == "actually great"

    changed = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=2, text=None, source="explicit"
    )
    assert (changed.feedback_score, changed.rating_rev) == (2, 2)

    cleared = await store.clear_qa_feedback(user.id, "s1", entry.id)
    assert (cleared.feedback_score, cleared.feedback_text, cleared.feedback_source) == (
        None,
        None,
        None,
    )
    assert cleared.rating_rev == 3


async def test_an_inferred_rating_never_overrides_an_explicit_one(store: Store, user: User) -> None:
    entry = await store.add_qa_entry(qa(user))
    auto = await store.set_qa_feedback(user.id, "s1", entry.id, score=2, text=None, source="auto")
    assert (auto.feedback_score, auto.feedback_source, auto.rating_rev) == (2, "auto", 1)
    auto2 = await store.set_qa_feedback(user.id, "s1", entry.id, score=3, text=None, source="auto")
    assert (auto2.feedback_score, auto2.rating_rev) == (3, 2)

    explicit = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=5, text=None, source="explicit"
    )
    assert (explicit.feedback_score, explicit.feedback_source, explicit.rating_rev) == (
        5,
        "explicit",
        3,
    )
    ignored = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=1, text="meh", source="auto"
    )
    assert ignored == explicit


async def test_text_only_feedback_keeps_the_scores_source(store: Store, user: User) -> None:
    entry = await store.add_qa_entry(qa(user))
    await store.set_qa_feedback(user.id, "s1", entry.id, score=2, text=None, source="auto")
    noted = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=None, text="too long", source="explicit"
    )
    assert (noted.feedback_score, noted.feedback_source, noted.feedback_text) == (
        2,
        "auto",
        "too long",
    )
    # the inferred score may still be revised by a later inference
    revised = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=4, text=None, source="auto"
    )
    assert (revised.feedback_score, revised.rating_rev) == (4, 2)

    fresh = await store.add_qa_entry(qa(user))
    only_text = await store.set_qa_feedback(
        user.id, "s1", fresh.id, score=None, text="nice", source="explicit"
    )
    assert (only_text.feedback_score, only_text.feedback_source, only_text.rating_rev) == (
        None,
        "explicit",
        0,
    )


async def test_feedback_on_unknown_entries_is_not_found(store: Store, user: User) -> None:
    entry = await store.add_qa_entry(qa(user))
    with pytest.raises(NotFoundError):
        await store.set_qa_feedback(user.id, "s1", uuid4(), score=3, text=None, source="explicit")
    with pytest.raises(NotFoundError):
        await store.set_qa_feedback(user.id, "s2", entry.id, score=3, text=None, source="explicit")
    with pytest.raises(NotFoundError):
        await store.clear_qa_feedback(user.id, "s1", uuid4())


async def test_ratings_are_spent_once_per_consumer_and_revision(store: Store, user: User) -> None:
    rated = await store.add_qa_entry(qa(user))
    unrated = await store.add_qa_entry(qa(user))
    await store.set_qa_feedback(user.id, "s1", rated.id, score=5, text=None, source="explicit")
    assert await store.list_pending_ratings(user.id, "feedback_weights") == [
        await store.get_qa_entry(user.id, "s1", rated.id)
    ]

    mark = EntryMark("qa", rated.id, rating_rev=1)
    assert await store.mark_session_entries("feedback_weights", [mark]) == [mark]
    assert await store.mark_session_entries("feedback_weights", [mark]) == []  # idempotent
    assert await store.list_pending_ratings(user.id, "feedback_weights") == []
    # another consumer has its own marks
    assert len(await store.list_pending_ratings(user.id, "user_preferences")) == 1

    # a changed rating is a new rating: pending again, spendable once more
    await store.set_qa_feedback(user.id, "s1", rated.id, score=1, text=None, source="explicit")
    (pending,) = await store.list_pending_ratings(user.id, "feedback_weights")
    assert pending.rating_rev == 2
    assert await store.mark_session_entries("feedback_weights", [mark]) == []  # stale revision
    newer = EntryMark("qa", rated.id, rating_rev=2)
    assert await store.mark_session_entries("feedback_weights", [newer]) == [newer]
    assert await store.list_pending_ratings(user.id, "feedback_weights") == []

    # turn counting: a mark at any revision takes an entry out of unmarked_by
    turns = await store.list_qa_entries(user.id, unmarked_by="feedback_weights")
    assert [e.id for e in turns] == [unrated.id]
    assert await store.count_qa_entries(user.id, unmarked_by="feedback_weights") == 1
    # marks naming no entry are ignored
    assert await store.mark_session_entries("feedback_weights", [EntryMark("qa", uuid4())]) == []


async def test_pending_ratings_filter_by_session_and_dataset(
    store: Store, user: User, dataset: Dataset
) -> None:
    a = await store.add_qa_entry(qa(user, "s1", dataset_ids=[dataset.id]))
    b = await store.add_qa_entry(qa(user, "s2"))
    for entry in (a, b):
        await store.set_qa_feedback(
            user.id, entry.session_id, entry.id, score=4, text=None, source="explicit"
        )
    assert [e.id for e in await store.list_pending_ratings(user.id, "c", session_ids=["s2"])] == [
        b.id
    ]
    assert [
        e.id for e in await store.list_pending_ratings(user.id, "c", dataset_id=dataset.id)
    ] == [a.id]
    assert await store.list_pending_ratings(user.id, "c", session_ids=[]) == []


async def test_concurrent_consumers_spend_a_rating_exactly_once(
    store: Store, user: User, open_store: Callable[[], Store]
) -> None:
    entries = [await store.add_qa_entry(qa(user)) for _ in range(20)]
    for entry in entries:
        await store.set_qa_feedback(user.id, "s1", entry.id, score=5, text=None, source="explicit")
    marks = [EntryMark("qa", e.id, rating_rev=1) for e in entries]
    second = open_store()
    try:
        won_a, won_b = await asyncio.gather(
            store.mark_session_entries("feedback_weights", marks),
            second.mark_session_entries("feedback_weights", marks[::-1]),
        )
    finally:
        await second.close()
    assert sorted(str(m.entry_id) for m in [*won_a, *won_b]) == sorted(
        str(m.entry_id) for m in marks
    )


async def test_trace_entries_round_trip(store: Store, user: User) -> None:
    first = await store.add_trace_entry(
        trace(
            user,
            status="error",
            method_params={"city": "Oslo", "days": [1, 2]},
            method_return_value={"flights": None, "ok": False},
            error_message="timeout",
            memory_query="flights to Oslo",
        )
    )
    second = await store.add_trace_entry(trace(user, origin_function="book", method_return_value=7))
    listed = await store.list_trace_entries(user.id, session_ids=["s1"])
    assert listed == [first, second]
    assert first.method_params == {"city": "Oslo", "days": [1, 2]}
    assert first.method_return_value == {"flights": None, "ok": False}
    assert first.status == "error" and first.seq < second.seq
    assert await store.list_trace_entries(user.id, last_n=1) == [second]
    assert await store.list_trace_entries(user.id, session_ids=[]) == []

    assert await store.mark_session_entries("persist_agent_traces", [EntryMark("trace", first.id)])
    assert await store.list_trace_entries(user.id, unmarked_by="persist_agent_traces") == [second]
    with pytest.raises(ConflictError):
        await store.add_trace_entry(first)


async def test_guidance_entries_deduplicate_by_normalized_content(store: Store, user: User) -> None:
    first, created = await store.add_context_entry(
        guidance(user, "Answer in bullet points.", confidence=0.8, source_ids=["fb-1"])
    )
    assert created
    again, created_again = await store.add_context_entry(
        guidance(user, "  answer IN bullet   points. ", confidence=0.9, source_ids=["fb-2", "fb-1"])
    )
    assert not created_again and again.id == first.id
    assert again.source_ids == ["fb-1", "fb-2"] and again.confidence == 0.9
    assert again.content == "Answer in bullet points."

    other_section, created_other = await store.add_context_entry(
        guidance(user, "Answer in bullet points.", section="rules")
    )
    assert created_other
    agent, _ = await store.add_context_entry(
        guidance(
            user,
            "The API rate-limits at 10 rps.",
            context_profile="agent",
            section="environment_facts",
        )
    )
    assert [e.id for e in await store.list_context_entries(user.id, "s1")] == [
        first.id,
        other_section.id,
        agent.id,
    ]
    assert [
        e.id for e in await store.list_context_entries(user.id, "s1", context_profile="agent")
    ] == [agent.id]
    assert await store.mark_session_entries("distill_sessions", [EntryMark("context", first.id)])
    unmarked = await store.list_context_entries(user.id, "s1", unmarked_by="distill_sessions")
    assert [e.id for e in unmarked] == [other_section.id, agent.id]


async def test_delete_session_removes_entries_and_marks(store: Store, user: User) -> None:
    doomed = await store.add_qa_entry(qa(user, "s1"))
    kept = await store.add_qa_entry(qa(user, "s2"))
    await store.add_trace_entry(trace(user, "s1"))
    await store.add_context_entry(guidance(user, "Be brief.", "s1"))
    await store.mark_session_entries("c", [EntryMark("qa", doomed.id), EntryMark("qa", kept.id)])

    assert await store.delete_session(user.id, "s1") is True
    assert await store.delete_session(user.id, "s1") is False
    assert await store.get_session(user.id, "s1") is None
    assert [e.id for e in await store.list_qa_entries(user.id)] == [kept.id]
    assert await store.list_trace_entries(user.id) == []
    assert await store.list_context_entries(user.id, "s1") == []
    # the surviving entry keeps its mark; a re-created entry id would start unmarked
    assert await store.list_qa_entries(user.id, unmarked_by="c") == []
    assert [s.session_id for s in await store.list_sessions(user.id)] == ["s2"]


async def test_duplicates_and_unknown_users_are_refused(store: Store, user: User) -> None:
    entry = await store.add_qa_entry(qa(user))
    with pytest.raises(ConflictError):
        await store.add_qa_entry(entry)
    ghost = User(id=uuid4(), email="ghost@example.com", created_at=utcnow())
    with pytest.raises(NotFoundError):
        await store.add_qa_entry(qa(ghost))
    with pytest.raises(NotFoundError):
        await store.add_trace_entry(trace(ghost))
    with pytest.raises(NotFoundError):
        await store.add_context_entry(guidance(ghost, "x"))
    assert await store.list_sessions(ghost.id) == []


async def test_session_entries_survive_reopening_the_store(
    open_store: Callable[[], Store],
) -> None:
    first = open_store()
    await first.setup()
    user = await first.get_or_create_default_user()
    dataset = await first.get_or_create_dataset(user.id, "main")
    entry = await first.add_qa_entry(qa(user, dataset_ids=[dataset.id]))
    await first.set_qa_feedback(user.id, "s1", entry.id, score=5, text="spot on", source="explicit")
    step = await first.add_trace_entry(trace(user, method_params={"q": "x"}))
    note, _ = await first.add_context_entry(guidance(user, "Use metric units."))
    await first.mark_session_entries("user_preferences", [EntryMark("qa", entry.id, 1)])
    await first.close()

    reopened = open_store()
    await reopened.setup()
    try:
        (again,) = await reopened.list_qa_entries(user.id, session_ids=["s1"])
        assert again.id == entry.id and again.feedback_score == 5
        assert again.feedback_text == "spot on" and again.dataset_ids == [dataset.id]
        assert await reopened.list_trace_entries(user.id) == [step]
        assert await reopened.list_context_entries(user.id, "s1") == [note]
        assert await reopened.list_pending_ratings(user.id, "user_preferences") == []
        assert len(await reopened.list_pending_ratings(user.id, "feedback_weights")) == 1
        assert (await reopened.check_integrity()).ok
    finally:
        await reopened.close()


async def test_seq_is_never_reused_after_a_deletion(store: Store, user: User) -> None:
    await store.add_qa_entry(qa(user, "keep"))
    newest = await store.add_qa_entry(qa(user, "gone"))
    step = await store.add_trace_entry(trace(user, "gone"))
    assert await store.delete_session(user.id, "gone")
    after = await store.add_qa_entry(qa(user, "keep"))
    after_step = await store.add_trace_entry(trace(user, "keep"))
    assert after.seq > newest.seq and after_step.seq > step.seq
