"""``cognee.infrastructure.session.agent_context_extraction``: turn agent trace steps into
``agent`` guidance now (what improve()'s ``extract_agent_context`` stage does).

engramdb's extraction is deterministic and needs no LLM: a failed step becomes a
``failure_lessons`` entry ("run_tests failed: ModuleNotFoundError ..."), a step with session
feedback a ``success_patterns`` entry; guidance is deduplicated, so a step that improve()
extracts again adds nothing. cognee's ``overlap`` / ``max_window`` bound the trace window its
LLM reads; engramdb reads each pending step once, so they bound nothing here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from engramdb.errors import EngramValidationError

if TYPE_CHECKING:
    from engramdb.storage.base import Store

__all__ = [
    "TRACE_EXTRACTION_STATE_ID",
    "TRACE_EXTRACTION_STATE_KIND",
    "extract_pending_agent_context",
    "extraction_state",
]

#: The consumer mark of direct extractions (improve's stage keeps its own per dataset).
_CONSUMER = "extract_agent_context:direct"
#: The row ``get_session_context_entries`` adds once steps were extracted here, as cognee's
#: watermark row: ``{"id": ..., "kind": ..., "processed_trace_count": n}``.
TRACE_EXTRACTION_STATE_ID = "__agent_context_extraction_state__"
TRACE_EXTRACTION_STATE_KIND = "agent_context_extraction_state"


async def extraction_state(store: Store, user_id: UUID, session_id: str) -> dict[str, Any] | None:
    """The state row of the session (how many of its trace steps were extracted here), or
    None when none were."""
    every = await store.list_trace_entries(user_id, session_ids=[session_id])
    pending = await store.list_trace_entries(
        user_id, session_ids=[session_id], unmarked_by=_CONSUMER
    )
    done = len(every) - len(pending)
    if done <= 0:
        return None
    return {
        "id": TRACE_EXTRACTION_STATE_ID,
        "kind": TRACE_EXTRACTION_STATE_KIND,
        "processed_trace_count": done,
    }


async def extract_pending_agent_context(
    *,
    session_manager: Any = None,
    user_id: str,
    session_id: str,
    min_new_traces: int = 1,
    overlap: int = 0,
    max_window: int = 0,
) -> list[str]:
    """Extract guidance from the session's trace steps not extracted here before, when at
    least ``min_new_traces`` are pending (<= 0: nothing); returns the ids of the guidance
    entries those steps produced (read them with ``get_session_context_entries``). An unknown
    user has nothing pending: []."""
    from engramdb.compat.cognee.infrastructure.session.session_manager import SessionManager
    from engramdb.improvement.learning import extract_session_agent_context
    from engramdb.sessions.validation import validate_session_id

    if isinstance(min_new_traces, bool) or not isinstance(min_new_traces, int):
        raise EngramValidationError("min_new_traces must be an integer")
    sid = validate_session_id(session_id)
    if min_new_traces <= 0:
        return []
    manager = session_manager if isinstance(session_manager, SessionManager) else SessionManager()
    engine, user = await manager.user_for(user_id)
    if user is None:
        return []
    store = engine.store
    pending = await store.list_trace_entries(user.id, session_ids=[sid], unmarked_by=_CONSUMER)
    if len(pending) < min_new_traces:
        return []
    _, touched, _ = await extract_session_agent_context(store, user.id, sid, _CONSUMER)
    return touched
