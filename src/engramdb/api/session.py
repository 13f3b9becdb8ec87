"""The session verbs' handlers (``engine.session`` / :mod:`engramdb.session` derive from them)."""

from __future__ import annotations

import logging
from typing import ParamSpec, TypeVar

from engramdb.engine import Engine
from engramdb.errors import EngramValidationError, NotFoundError
from engramdb.models.records import User
from engramdb.models.requests.sessions import (
    AddFeedbackRequest,
    AddGuidanceRequest,
    AddQARequest,
    AddTraceRequest,
    DeleteFeedbackRequest,
    DeleteSessionRequest,
    DistillSessionRequest,
    GetSessionRequest,
    GetTracesRequest,
    ListSessionsRequest,
)
from engramdb.models.results import ResponseAgentTraceEntry, ResponseQAEntry
from engramdb.models.sessions import DistillationResult, SessionRecord
from engramdb.sessions.guidance import add_guidance as _store_guidance
from engramdb.sessions.lanes import qa_response, trace_response
from engramdb.sessions.validation import (
    validate_context_profile,
    validate_entry_id,
    validate_section,
    validate_session_id,
)
from engramdb.sessions.writes import check_feedback, write_feedback, write_qa, write_trace
from engramdb.storage.lending import dataset_lock

__all__ = [
    "add_feedback",
    "add_guidance",
    "add_qa",
    "add_trace",
    "delete_feedback",
    "delete_session",
    "distill_session",
    "get_session",
    "get_traces",
    "list_sessions",
]

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


async def _reader(eng: Engine, user: User | None) -> tuple[Engine, User] | None:
    """The engine and user for a read; None when no database exists yet (nothing to read, and
    reading must not create one)."""
    if not await eng.database_exists():
        return None
    await eng.ensure_setup()
    return eng, await eng.resolve_user(user)


async def _writer(eng: Engine, user: User | None) -> tuple[Engine, User]:
    return eng, await eng.resolve_user(user)


def _no_entry(session_id: str, qa_id: object) -> NotFoundError:
    return NotFoundError(
        f"No Q&A entry {qa_id} in session {session_id!r} of this user; list the session's "
        "entries with session.get_session(session_id) to find its qa_id values."
    )


async def add_feedback(engine: Engine, request: AddFeedbackRequest) -> bool:
    """Rate a Q&A entry of the session: ``feedback_score`` 1..5 (3 is neutral) and/or a
    ``feedback_text``. Returns True.

    Raises EngramValidationError (422) for a score outside 1..5 or when neither is given, and
    NotFoundError (404) when the session has no such entry for this user.
    """
    sid = validate_session_id(request.session_id)
    check_feedback(request.qa_id, request.feedback_score, request.feedback_text)
    found = await _reader(engine, request.user)
    if found is None:
        raise _no_entry(sid, request.qa_id)
    engine, owner = found
    await write_feedback(
        engine.store, owner, sid, request.qa_id, request.feedback_score, request.feedback_text
    )
    return True


async def delete_feedback(engine: Engine, request: DeleteFeedbackRequest) -> bool:
    """Remove the rating and feedback text of a Q&A entry. Returns True; NotFoundError (404)
    when the session has no such entry for this user."""
    sid = validate_session_id(request.session_id)
    entry_id = validate_entry_id(request.qa_id)
    found = await _reader(engine, request.user)
    if found is None:
        raise _no_entry(sid, request.qa_id)
    engine, owner = found
    await engine.store.clear_qa_feedback(owner.id, sid, entry_id)
    return True


async def get_session(engine: Engine, request: GetSessionRequest) -> list[ResponseQAEntry]:
    """The session's Q&A entries, oldest first (``entries[-1]`` is the latest); only the last
    ``last_n`` when given. An unknown session has no entries: []."""
    sid = validate_session_id(request.session_id)
    if request.last_n is not None and (
        isinstance(request.last_n, bool)
        or not isinstance(request.last_n, int)
        or request.last_n < 1
    ):
        raise EngramValidationError(f"last_n must be a positive integer, got {request.last_n!r}")
    found = await _reader(engine, request.user)
    if found is None:
        return []
    engine, owner = found
    entries = await engine.store.list_qa_entries(owner.id, session_ids=[sid], last_n=request.last_n)
    return [qa_response(e) for e in entries]


async def list_sessions(engine: Engine, request: ListSessionsRequest) -> list[SessionRecord]:
    """The user's sessions, most recently active first."""
    found = await _reader(engine, request.user)
    if found is None:
        return []
    engine, owner = found
    return await engine.store.list_sessions(owner.id)


async def delete_session(engine: Engine, request: DeleteSessionRequest) -> bool:
    """Delete the session with every entry in it. False when the user has no such session."""
    sid = validate_session_id(request.session_id)
    found = await _reader(engine, request.user)
    if found is None:
        return False
    engine, owner = found
    return await engine.store.delete_session(owner.id, sid)


async def add_qa(engine: Engine, request: AddQARequest) -> str:
    """Store a Q&A turn the application produced itself; returns its ``qa_id``.

    ``used_graph_element_ids`` may name ``{"node_ids": [...], "edge_ids": [...]}`` (the graph
    elements the answer used, for feedback weights). A given score or text counts as explicit
    feedback.
    """
    context = request.context
    feedback_score = request.feedback_score
    feedback_text = request.feedback_text
    used_graph_element_ids = request.used_graph_element_ids
    sid = validate_session_id(request.session_id)
    engine, owner = await _writer(engine, request.user)
    stored = await write_qa(
        engine.store,
        owner,
        sid,
        request.question,
        request.answer,
        context=context,
        feedback_score=feedback_score,
        feedback_text=feedback_text,
        used_graph_element_ids=used_graph_element_ids,
    )
    return str(stored.id)


async def add_trace(engine: Engine, request: AddTraceRequest) -> str:
    """Record one agent step (a tool or function call) in the session; returns its trace id.

    Parameters and return value may be any Python objects: they are stored as bounded JSON
    (long strings cut, unknown objects as their repr, values under credential-like keys such as
    ``api_key`` redacted; error messages scrubbed of keys and e-mail addresses).
    ``recall(query, session_id=..., scope="trace")`` finds steps by keyword;
    ``improve(session_ids=[...])`` learns from them.
    """
    status = request.status
    method_params = request.method_params
    method_return_value = request.method_return_value
    error_message = request.error_message
    memory_query = request.memory_query
    memory_context = request.memory_context
    session_feedback = request.session_feedback
    sid = validate_session_id(request.session_id)
    engine, owner = await _writer(engine, request.user)
    stored = await write_trace(
        engine.store,
        owner,
        sid,
        request.origin_function,
        status=status,
        method_params=method_params,
        method_return_value=method_return_value,
        error_message=error_message,
        memory_query=memory_query,
        memory_context=memory_context,
        session_feedback=session_feedback,
    )
    return str(stored.id)


async def get_traces(engine: Engine, request: GetTracesRequest) -> list[ResponseAgentTraceEntry]:
    """The session's recorded agent steps, oldest first (the last ``last_n`` when given)."""
    sid = validate_session_id(request.session_id)
    if request.last_n is not None and (
        isinstance(request.last_n, bool)
        or not isinstance(request.last_n, int)
        or request.last_n < 1
    ):
        raise EngramValidationError(f"last_n must be a positive integer, got {request.last_n!r}")
    found = await _reader(engine, request.user)
    if found is None:
        return []
    engine, owner = found
    entries = await engine.store.list_trace_entries(
        owner.id, session_ids=[sid], last_n=request.last_n
    )
    return [trace_response(e) for e in entries]


async def add_guidance(engine: Engine, request: AddGuidanceRequest) -> str:
    """Add one guidance entry to the session; returns its id (the existing entry's id when the
    same guidance is already there).

    Profile ``qa`` takes sections goals, rules, preferences, lessons_learned; profile ``agent``
    takes failure_lessons, tool_rules, environment_facts, workflow_state, success_patterns.
    ``recall(..., session_id=..., scope="session_context", context_profile=...)`` renders them.
    """
    session_id = request.session_id
    content = request.content
    section = request.section
    sid = validate_session_id(session_id)
    profile = validate_context_profile(request.context_profile)
    name = validate_section(profile, section)
    if not isinstance(content, str) or not content.strip():
        raise EngramValidationError("content must be a non-empty string of guidance")
    eng, owner = await _writer(engine, request.user)
    stored, _ = await _store_guidance(
        eng.store,
        user_id=owner.id,
        session_id=sid,
        profile=profile,
        section=name,
        content=content,
    )
    return str(stored.id)


async def distill_session(engine: Engine, request: DistillSessionRequest) -> DistillationResult:
    """Distill the session's learned guidance into ``dataset`` now, as the ``distill_sessions``
    stage of ``improve(session_ids=[...])`` does, without the other stages: the gated entries
    (confidence >= 0.5, personal preferences excepted) not yet distilled into that dataset
    become one ``session_learnings`` document, searchable like any other. Needs write
    permission on the dataset (a name is your own dataset, created if missing). Runs under the
    dataset's lock and the session's improve claim, so it queues behind a running improve."""
    from contextlib import AsyncExitStack

    from engramdb.access.permissions import dataset_for_write
    from engramdb.improvement.context import ImproveContext, ImproveOptions
    from engramdb.improvement.learning import distill_session_entries

    sid = validate_session_id(request.session_id)
    eng, owner = await _writer(engine, request.user)
    dataset = await dataset_for_write(eng.store, owner, request.dataset)
    ctx = ImproveContext(
        engine=eng, user=owner, dataset=dataset, options=ImproveOptions(session_ids=(sid,))
    )
    timeout = eng.settings.engramdb_lock_timeout
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(eng.store.lock(dataset_lock(dataset.id), timeout=timeout))
        await stack.enter_async_context(
            eng.store.lock(f"improve-session:{owner.id}:{sid}", timeout=timeout)
        )
        done = await distill_session_entries(ctx, sid, max_batches=request.max_batches)
    return DistillationResult(
        session_id=sid,
        dataset_id=str(dataset.id),
        status=done.status,
        documents=list(done.documents),
        uncurated_entries=done.uncurated_entries,
    )
