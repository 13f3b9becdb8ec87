"""cognee's ``SessionManager`` over engramdb's sessions.

cognee keeps sessions in a cache (Redis, files or SQLite) that ``CACHING`` turns on or off;
engramdb keeps them in its store, durable and always available, with the same entries: Q&A
turns, agent trace steps and guidance ("session context") entries. The manager takes cognee's
``user_id`` strings and keyword arguments and returns cognee's shapes
(:class:`SessionQAEntry`, :class:`SessionAgentTraceEntry`, guidance entries as dicts with
``kind="context"``). Writes go through the ``engramdb.session`` verbs (validation, permissions,
transactions); an unknown ``user_id`` has no sessions. In-process only.

Editing or deleting single entries (``update_qa``, ``delete_qa``, ``update_session_context_entry``,
``delete_session_context_entry``, ``delete_session_context``) is refused: engramdb's entries
are append-only evidence that improve() consumes exactly once; rate an entry with
``add_feedback`` or delete the whole session with ``delete_session``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn
from uuid import UUID

from pydantic import BaseModel, Field

from engramdb.errors import EngramValidationError, FeatureNotAvailableError

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.models.records import User
    from engramdb.models.sessions import ContextRecord, QARecord, TraceRecord

__all__ = ["SessionAgentTraceEntry", "SessionManager", "SessionQAEntry"]

DEFAULT_SESSION_ID = "default_session"


class SessionQAEntry(BaseModel):
    """One Q&A turn, with cognee's field names."""

    time: str
    question: str
    context: str
    answer: str
    qa_id: str | None = None
    feedback_text: str | None = None
    feedback_score: int | None = None
    used_graph_element_ids: dict[str, list[str]] | None = None
    used_session_context_ids: list[str] | None = None


class SessionAgentTraceEntry(BaseModel):
    """One agent trace step, with cognee's field names."""

    trace_id: str
    origin_function: str
    status: str
    memory_query: str = ""
    memory_context: str = ""
    method_params: dict[str, Any] = Field(default_factory=dict)
    method_return_value: Any = None
    error_message: str = ""
    session_feedback: str = ""


def _qa(entry: QARecord) -> SessionQAEntry:
    used = None
    if entry.used_node_ids or entry.used_edge_ids:
        used = {
            "node_ids": [str(i) for i in entry.used_node_ids],
            "edge_ids": [str(i) for i in entry.used_edge_ids],
        }
    return SessionQAEntry(
        time=entry.created_at.isoformat(),
        question=entry.question,
        context=entry.context,
        answer=entry.answer,
        qa_id=str(entry.id),
        feedback_text=entry.feedback_text,
        feedback_score=entry.feedback_score,
        used_graph_element_ids=used,
        used_session_context_ids=[str(i) for i in entry.used_context_ids] or None,
    )


def _trace(entry: TraceRecord) -> SessionAgentTraceEntry:
    """The step as recall shows it (:func:`engramdb.sessions.lanes.trace_response`), in cognee's
    field set."""
    from engramdb.sessions.lanes import trace_response

    fields = set(SessionAgentTraceEntry.model_fields)
    return SessionAgentTraceEntry.model_validate(trace_response(entry).model_dump(include=fields))


def context_entry(entry: ContextRecord) -> dict[str, Any]:
    """A guidance entry as cognee's session-context dict (``kind="context"``)."""
    from engramdb.models.sessions import normalize_content

    return {
        "id": str(entry.id),
        "kind": "context",
        "section": entry.section,
        "context_profile": entry.context_profile,
        "content": entry.content,
        "normalized_content": normalize_content(entry.content),
        "confidence": entry.confidence,
        "created_at": entry.created_at.isoformat(),
        "updated_at": entry.updated_at.isoformat(),
        "source_ids": list(entry.source_ids),
    }


def _check_id(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EngramValidationError(f"{what} must be a non-empty string, got {value!r}")
    return value


def _refuse(name: str, instead: str) -> NoReturn:
    raise FeatureNotAvailableError(
        f"SessionManager.{name}() is not supported on engramdb: session entries are "
        f"append-only evidence that improve() consumes once; use {instead} instead"
    )


class SessionManager:
    """cognee's session manager over the default engine's sessions (module docstring)."""

    def __init__(self, dataset_id: UUID | None = None) -> None:
        self.dataset_id = dataset_id
        self.default_session_id = DEFAULT_SESSION_ID

    @property
    def is_available(self) -> bool:
        """Always True: sessions live in engramdb's store."""
        return True

    def resolve_session_id(self, session_id: str | None) -> str:
        return _check_id(session_id or self.default_session_id, "session_id")

    def is_session_available_for_completion(self, user_id: str | None) -> bool:
        """True for any user id: session history is always recorded and read."""
        return bool(user_id)

    def is_auto_feedback_enabled(self) -> bool:
        """The AUTO_FEEDBACK setting (turn analysis of each recalled answer)."""
        from engramdb.settings import config

        return config.settings.auto_feedback

    async def user_for(self, user_id: str) -> tuple[Engine, User | None]:
        """The default engine and the user of ``user_id`` (None: no such user, or no database
        yet; a read then finds nothing)."""
        from engramdb.engine import get_engine

        raw = _check_id(user_id, "user_id")
        engine = get_engine()
        try:
            wanted = UUID(raw)
        except ValueError:
            return engine, None
        if not await engine.database_exists():
            return engine, None
        await engine.ensure_setup()
        return engine, await engine.store.get_user(wanted)

    async def _writer(self, user_id: str) -> User:
        _, user = await self.user_for(user_id)
        if user is None:
            raise EngramValidationError(
                f"no engramdb user has id {user_id!r}; pass the id of a user you created "
                "(str(user.id) of get_default_user() or create_user())"
            )
        return user

    # --- Q&A ---------------------------------------------------------------------------------

    async def get_session(
        self,
        *,
        user_id: str,
        last_n: int | None = None,
        formatted: bool = False,
        session_id: str | None = None,
        include_context: bool = True,
        since: datetime | None = None,
        lead_in: int = 0,
    ) -> list[SessionQAEntry] | str:
        """The session's Q&A entries, oldest first (the last ``last_n``; or those created at
        or after ``since`` plus ``lead_in`` before it), or as a prompt text (``formatted``)."""
        sid = self.resolve_session_id(session_id)
        if since is not None and last_n is not None:
            raise EngramValidationError("since and last_n are exclusive")
        if lead_in and since is None:
            raise EngramValidationError("lead_in needs since")
        engine, user = await self.user_for(user_id)
        records = (
            []
            if user is None
            else await engine.store.list_qa_entries(user.id, session_ids=[sid], last_n=last_n)
        )
        if since is not None:
            first = next((i for i, e in enumerate(records) if e.created_at >= since), len(records))
            records = records[max(first - max(lead_in, 0), 0) :]
        entries = [_qa(e) for e in records]
        if formatted:
            return self.format_entries([e.model_dump() for e in entries], include_context)
        return entries

    @staticmethod
    def format_entries(entries: list[dict[str, Any]], include_context: bool = True) -> str:
        """Q&A entries as the "Previous conversation" block of a prompt ("" when none)."""
        if not entries:
            return ""
        parts = ["Previous conversation:\n\n"]
        for entry in entries:
            parts.append(
                f"[{entry.get('time', 'Unknown time')}]\nQUESTION: {entry.get('question', '')}\n"
            )
            if include_context:
                parts.append(f"CONTEXT: {entry.get('context', '')}\n")
            parts.append(f"ANSWER: {entry.get('answer', '')}\n\n")
        return "".join(parts)

    async def get_session_entries_by_ids(
        self, *, user_id: str, qa_ids: list[str], session_id: str | None = None
    ) -> list[SessionQAEntry]:
        entries = await self.get_session(user_id=user_id, session_id=session_id)
        assert isinstance(entries, list)
        wanted = {str(i) for i in qa_ids}
        return [e for e in entries if e.qa_id in wanted]

    async def add_qa(
        self,
        *,
        user_id: str,
        question: str,
        context: str,
        answer: str,
        session_id: str | None = None,
        feedback_text: str | None = None,
        feedback_score: int | None = None,
        used_graph_element_ids: dict[str, list[str]] | None = None,
        used_session_context_ids: list[str] | None = None,
    ) -> str:
        """Store a Q&A turn (``engramdb.session.add_qa``); returns its ``qa_id``."""
        from engramdb import session

        qa_id = await session.add_qa(
            self.resolve_session_id(session_id),
            question,
            answer,
            context=context,
            feedback_text=feedback_text,
            feedback_score=feedback_score,
            used_graph_element_ids=used_graph_element_ids,
            user=await self._writer(user_id),
        )
        return str(qa_id)

    async def add_feedback(
        self,
        *,
        user_id: str,
        qa_id: str,
        feedback_text: str | None = None,
        feedback_score: int | None = None,
        session_id: str | None = None,
    ) -> bool:
        """Rate a Q&A entry (``engramdb.session.add_feedback``); the next improve() spends it."""
        from engramdb import session

        done = await session.add_feedback(
            self.resolve_session_id(session_id),
            _check_id(qa_id, "qa_id"),
            feedback_text=feedback_text,
            feedback_score=feedback_score,
            user=await self._writer(user_id),
        )
        return bool(done)

    async def delete_feedback(
        self, *, user_id: str, qa_id: str, session_id: str | None = None
    ) -> bool:
        from engramdb import session

        done = await session.delete_feedback(
            self.resolve_session_id(session_id),
            _check_id(qa_id, "qa_id"),
            user=await self._writer(user_id),
        )
        return bool(done)

    async def delete_session(self, *, user_id: str, session_id: str | None = None) -> bool:
        """Delete the session with every entry in it; False when there was none."""
        from engramdb import session

        sid = self.resolve_session_id(session_id)
        _, user = await self.user_for(user_id)
        if user is None:
            return False
        return bool(await session.delete_session(sid, user=user))

    async def update_qa(self, **kwargs: Any) -> bool:
        _refuse("update_qa", "add_feedback(...) to rate an entry")

    async def delete_qa(self, **kwargs: Any) -> bool:
        _refuse("delete_qa", "delete_session(...)")

    # --- agent traces ------------------------------------------------------------------------

    async def add_agent_trace_step(
        self,
        *,
        user_id: str,
        origin_function: str,
        status: str,
        generate_feedback_with_llm: bool = True,
        session_id: str | None = None,
        memory_query: str = "",
        memory_context: str = "",
        method_params: dict[str, Any] | None = None,
        method_return_value: Any = None,
        error_message: str = "",
    ) -> str:
        """Record one agent step (``engramdb.session.add_trace``); returns its trace id. Its
        ``session_feedback`` stays empty (engramdb derives lessons from steps in improve())."""
        from engramdb import session

        trace_id = await session.add_trace(
            self.resolve_session_id(session_id),
            origin_function,
            status=status,
            method_params=method_params,
            method_return_value=method_return_value,
            error_message=error_message,
            memory_query=memory_query,
            memory_context=memory_context,
            user=await self._writer(user_id),
        )
        return str(trace_id)

    async def get_agent_trace_session(
        self, *, user_id: str, session_id: str | None = None, last_n: int | None = None
    ) -> list[SessionAgentTraceEntry]:
        sid = self.resolve_session_id(session_id)
        engine, user = await self.user_for(user_id)
        if user is None:
            return []
        steps = await engine.store.list_trace_entries(user.id, session_ids=[sid], last_n=last_n)
        return [_trace(s) for s in steps]

    async def get_agent_trace_feedback(
        self, *, user_id: str, session_id: str | None = None, last_n: int | None = None
    ) -> list[str]:
        steps = await self.get_agent_trace_session(
            user_id=user_id, session_id=session_id, last_n=last_n
        )
        return [s.session_feedback for s in steps if s.session_feedback]

    async def get_agent_trace_count(self, *, user_id: str, session_id: str | None = None) -> int:
        return len(await self.get_agent_trace_session(user_id=user_id, session_id=session_id))

    # --- guidance (session context) ----------------------------------------------------------

    async def get_session_context_entries(
        self, *, user_id: str, session_id: str | None = None, raise_on_error: bool = False
    ) -> list[dict[str, Any]]:
        """The session's guidance entries, oldest first, as cognee's ``kind="context"`` dicts
        (``id``, ``section``, ``context_profile``, ``content``, ``confidence``, ...); then,
        once ``extract_pending_agent_context`` ran, its state row (another ``kind``)."""
        sid = self.resolve_session_id(session_id)
        engine, user = await self.user_for(user_id)
        if user is None:
            return []
        from engramdb.compat.cognee.infrastructure.session.agent_context_extraction import (
            extraction_state,
        )

        rows = [context_entry(e) for e in await engine.store.list_context_entries(user.id, sid)]
        state = await extraction_state(engine.store, user.id, sid)
        return rows if state is None else [*rows, state]

    async def create_session_context_entry(
        self, *, user_id: str, entry_dump: dict[str, Any], session_id: str | None = None
    ) -> bool:
        """Add a guidance entry from ``entry_dump`` (its ``content``, ``section`` and
        ``context_profile``) through ``engramdb.session.add_guidance``."""
        from engramdb import session

        content = entry_dump.get("content")
        section = entry_dump.get("section")
        if not isinstance(content, str) or not isinstance(section, str):
            raise EngramValidationError("entry_dump needs a 'content' and a 'section' string")
        await session.add_guidance(
            self.resolve_session_id(session_id),
            content,
            section=section,
            context_profile=str(entry_dump.get("context_profile") or "qa"),
            user=await self._writer(user_id),
        )
        return True

    async def update_session_context_entry(self, **kwargs: Any) -> bool:
        _refuse("update_session_context_entry", "create_session_context_entry(...)")

    async def delete_session_context_entry(self, **kwargs: Any) -> bool:
        _refuse("delete_session_context_entry", "delete_session(...)")

    async def delete_session_context(self, **kwargs: Any) -> bool:
        _refuse("delete_session_context", "delete_session(...)")
