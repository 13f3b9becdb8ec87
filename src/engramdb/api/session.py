"""``engramdb.session``: read and rate session entries, record agent traces and guidance.

A session is a conversation of ONE user, named by a ``session_id`` the application chooses;
another user's session of the same id is a different session that this user can never read.
``recall(..., session_id=...)`` records each answered turn as a Q&A entry, and
``remember(..., session_id=...)`` stores notes and typed entries. Everything here is durable: it
lives in the same database as the rest of memory.

::

    results = await engramdb.recall("Where do owls live?", session_id="chat-1")
    (turn,) = await engramdb.session.get_session("chat-1", last_n=1)
    await engramdb.session.add_feedback("chat-1", turn.qa_id, feedback_score=5)

Ratings are 1..5; 3 is neutral. An explicit rating always replaces an inferred one (AUTO_FEEDBACK),
an inferred one never replaces an explicit one. ``improve(session_ids=[...])`` spends them.
"""

from __future__ import annotations

import functools
import inspect
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from engramdb.engine import Engine, get_engine
from engramdb.errors import EngramError, EngramValidationError, NotFoundError
from engramdb.models.records import User
from engramdb.models.results import ResponseAgentTraceEntry, ResponseQAEntry
from engramdb.models.sessions import SessionRecord
from engramdb.sessions.guidance import add_guidance as _store_guidance
from engramdb.sessions.lanes import qa_response, trace_response
from engramdb.sessions.validation import (
    validate_context_profile,
    validate_entry_id,
    validate_section,
    validate_session_id,
)
from engramdb.sessions.writes import check_feedback, write_feedback, write_qa, write_trace

__all__ = [
    "add_feedback",
    "add_guidance",
    "add_qa",
    "add_trace",
    "delete_feedback",
    "delete_session",
    "get_session",
    "get_traces",
    "list_sessions",
    "traced",
]

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


async def _reader(user: User | None) -> tuple[Engine, User] | None:
    """The engine and user for a read; None when no database exists yet (nothing to read, and
    reading must not create one)."""
    eng = get_engine()
    if not await eng.database_exists():
        return None
    await eng.ensure_setup()
    return eng, await eng.resolve_user(user)


async def _writer(user: User | None) -> tuple[Engine, User]:
    eng = get_engine()
    return eng, await eng.resolve_user(user)


def _no_entry(session_id: str, qa_id: object) -> NotFoundError:
    return NotFoundError(
        f"No Q&A entry {qa_id} in session {session_id!r} of this user; list the session's "
        "entries with session.get_session(session_id) to find its qa_id values."
    )


async def add_feedback(
    session_id: str,
    qa_id: str | uuid.UUID,
    *,
    feedback_text: str | None = None,
    feedback_score: int | None = None,
    user: User | None = None,
) -> bool:
    """Rate a Q&A entry of the session: ``feedback_score`` 1..5 (3 is neutral) and/or a
    ``feedback_text``. Returns True.

    Raises EngramValidationError (422) for a score outside 1..5 or when neither is given, and
    NotFoundError (404) when the session has no such entry for this user.
    """
    sid = validate_session_id(session_id)
    check_feedback(qa_id, feedback_score, feedback_text)
    found = await _reader(user)
    if found is None:
        raise _no_entry(sid, qa_id)
    engine, owner = found
    await write_feedback(engine.store, owner, sid, qa_id, feedback_score, feedback_text)
    return True


async def delete_feedback(
    session_id: str, qa_id: str | uuid.UUID, *, user: User | None = None
) -> bool:
    """Remove the rating and feedback text of a Q&A entry. Returns True; NotFoundError (404)
    when the session has no such entry for this user."""
    sid = validate_session_id(session_id)
    entry_id = validate_entry_id(qa_id)
    found = await _reader(user)
    if found is None:
        raise _no_entry(sid, qa_id)
    engine, owner = found
    await engine.store.clear_qa_feedback(owner.id, sid, entry_id)
    return True


async def get_session(
    session_id: str = "default_session", last_n: int | None = None, *, user: User | None = None
) -> list[ResponseQAEntry]:
    """The session's Q&A entries, oldest first (``entries[-1]`` is the latest); only the last
    ``last_n`` when given. An unknown session has no entries: []."""
    sid = validate_session_id(session_id)
    if last_n is not None and (
        isinstance(last_n, bool) or not isinstance(last_n, int) or last_n < 1
    ):
        raise EngramValidationError(f"last_n must be a positive integer, got {last_n!r}")
    found = await _reader(user)
    if found is None:
        return []
    engine, owner = found
    entries = await engine.store.list_qa_entries(owner.id, session_ids=[sid], last_n=last_n)
    return [qa_response(e) for e in entries]


async def list_sessions(*, user: User | None = None) -> list[SessionRecord]:
    """The user's sessions, most recently active first."""
    found = await _reader(user)
    if found is None:
        return []
    engine, owner = found
    return await engine.store.list_sessions(owner.id)


async def delete_session(session_id: str, *, user: User | None = None) -> bool:
    """Delete the session with every entry in it. False when the user has no such session."""
    sid = validate_session_id(session_id)
    found = await _reader(user)
    if found is None:
        return False
    engine, owner = found
    return await engine.store.delete_session(owner.id, sid)


async def add_qa(
    session_id: str,
    question: str,
    answer: str,
    *,
    context: str = "",
    feedback_score: int | None = None,
    feedback_text: str | None = None,
    used_graph_element_ids: dict[str, list[str]] | None = None,
    user: User | None = None,
) -> str:
    """Store a Q&A turn the application produced itself; returns its ``qa_id``.

    ``used_graph_element_ids`` may name ``{"node_ids": [...], "edge_ids": [...]}`` (the graph
    elements the answer used, for feedback weights). A given score or text counts as explicit
    feedback.
    """
    sid = validate_session_id(session_id)
    engine, owner = await _writer(user)
    stored = await write_qa(
        engine.store,
        owner,
        sid,
        question,
        answer,
        context=context,
        feedback_score=feedback_score,
        feedback_text=feedback_text,
        used_graph_element_ids=used_graph_element_ids,
    )
    return str(stored.id)


async def add_trace(
    session_id: str,
    origin_function: str,
    *,
    status: str = "success",
    method_params: dict[str, Any] | None = None,
    method_return_value: Any = None,
    error_message: str = "",
    memory_query: str = "",
    memory_context: str = "",
    session_feedback: str = "",
    user: User | None = None,
) -> str:
    """Record one agent step (a tool or function call) in the session; returns its trace id.

    Parameters and return value may be any Python objects: they are stored as bounded JSON
    (long strings cut, unknown objects as their repr, values under credential-like keys such as
    ``api_key`` redacted; error messages scrubbed of keys and e-mail addresses).
    ``recall(query, session_id=..., scope="trace")`` finds steps by keyword;
    ``improve(session_ids=[...])`` learns from them.
    """
    sid = validate_session_id(session_id)
    engine, owner = await _writer(user)
    stored = await write_trace(
        engine.store,
        owner,
        sid,
        origin_function,
        status=status,
        method_params=method_params,
        method_return_value=method_return_value,
        error_message=error_message,
        memory_query=memory_query,
        memory_context=memory_context,
        session_feedback=session_feedback,
    )
    return str(stored.id)


async def get_traces(
    session_id: str, last_n: int | None = None, *, user: User | None = None
) -> list[ResponseAgentTraceEntry]:
    """The session's recorded agent steps, oldest first (the last ``last_n`` when given)."""
    sid = validate_session_id(session_id)
    if last_n is not None and (
        isinstance(last_n, bool) or not isinstance(last_n, int) or last_n < 1
    ):
        raise EngramValidationError(f"last_n must be a positive integer, got {last_n!r}")
    found = await _reader(user)
    if found is None:
        return []
    engine, owner = found
    entries = await engine.store.list_trace_entries(owner.id, session_ids=[sid], last_n=last_n)
    return [trace_response(e) for e in entries]


async def add_guidance(
    session_id: str,
    content: str,
    *,
    section: str,
    context_profile: str = "qa",
    user: User | None = None,
) -> str:
    """Add one guidance entry to the session; returns its id (the existing entry's id when the
    same guidance is already there).

    Profile ``qa`` takes sections goals, rules, preferences, lessons_learned; profile ``agent``
    takes failure_lessons, tool_rules, environment_facts, workflow_state, success_patterns.
    ``recall(..., session_id=..., scope="session_context", context_profile=...)`` renders them.
    """
    sid = validate_session_id(session_id)
    profile = validate_context_profile(context_profile)
    name = validate_section(profile, section)
    if not isinstance(content, str) or not content.strip():
        raise EngramValidationError("content must be a non-empty string of guidance")
    eng, owner = await _writer(user)
    stored, _ = await _store_guidance(
        eng.store,
        user_id=owner.id,
        session_id=sid,
        profile=profile,
        section=name,
        content=content,
    )
    return str(stored.id)


def traced(
    session_id: str, *, user: User | None = None
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """Decorate an async agent tool so every call is recorded as a trace step of the session.

    The step holds the function's qualified name, its bound arguments (``self`` / ``cls`` left
    out), the return value or the exception (which is re-raised unchanged). Recording is
    fail-open: a failed write is logged and never changes what the call returns or raises.
    """
    sid = validate_session_id(session_id)

    def decorate(func: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
        if not inspect.iscoroutinefunction(func):
            raise TypeError(
                f"traced() records async functions; {getattr(func, '__qualname__', func)!r} is "
                "not one (wrap it in an async def, or call session.add_trace yourself)"
            )
        signature = inspect.signature(func)
        name = getattr(func, "__qualname__", getattr(func, "__name__", "function"))

        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                bound = dict(signature.bind_partial(*args, **kwargs).arguments)
            except TypeError:
                bound = {"args": list(args), "kwargs": dict(kwargs)}
            params = {k: v for k, v in bound.items() if k not in ("self", "cls")}
            try:
                value = await func(*args, **kwargs)
            except Exception as exc:
                await _record_step(
                    sid, name, user, params, status="error", error=f"{type(exc).__name__}: {exc}"
                )
                raise
            await _record_step(sid, name, user, params, status="success", value=value)
            return value

        return wrapper

    return decorate


async def _record_step(
    session_id: str,
    origin: str,
    user: User | None,
    params: dict[str, Any],
    *,
    status: str,
    value: Any = None,
    error: str = "",
) -> None:
    from engramdb.remote.switch import switchable

    try:  # over HTTP in remote mode (as engramdb.session.add_trace), else in-process
        await switchable("add_trace", add_trace)(
            session_id,
            origin,
            status=status,
            method_params=params,
            method_return_value=value,
            error_message=error,
            user=user,
        )
    except EngramError as exc:  # fail-open by contract: tracing never breaks the agent
        logger.warning("could not record a trace step of session %r: %s", session_id, exc)
