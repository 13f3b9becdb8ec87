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

``distill_session(session_id, dataset)`` writes the session's learned guidance into a dataset
now (what ``improve(session_ids=[...])`` does in its ``distill_sessions`` stage).

Ratings are 1..5; 3 is neutral. An explicit rating always replaces an inferred one (AUTO_FEEDBACK),
an inferred one never replaces an explicit one. ``improve(session_ids=[...])`` spends them.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from engramdb.errors import EngramError
from engramdb.facade import verb_functions
from engramdb.models.records import User
from engramdb.sessions.validation import validate_session_id

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
    "traced",
]

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

_verbs = verb_functions("engramdb.session")
add_feedback = _verbs["add_feedback"]
delete_feedback = _verbs["delete_feedback"]
get_session = _verbs["get_session"]
list_sessions = _verbs["list_sessions"]
delete_session = _verbs["delete_session"]
add_qa = _verbs["add_qa"]
add_trace = _verbs["add_trace"]
get_traces = _verbs["get_traces"]
add_guidance = _verbs["add_guidance"]
distill_session = _verbs["distill_session"]


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
    try:  # over HTTP in remote mode (as engramdb.session.add_trace), else in-process
        await add_trace(
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
