"""``cognee.infrastructure.session.session_embeddings``: pick the session history a prompt
shows, the recent turns plus the earlier ones that match the question.

cognee finds the matching earlier turns with a vector index of session Q&A; engramdb ranks the
session's turns by keyword match, as recall's session lane does (``scope="session"``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["search_session_qa_ids", "select_hybrid_qa_entries"]

#: How many matching turns :func:`search_session_qa_ids` returns by default.
DEFAULT_TOP_K = 5


async def search_session_qa_ids(
    *, user_id: str, session_id: str, query_text: str, limit: int = DEFAULT_TOP_K
) -> list[str]:
    """The ``qa_id`` of the session's turns that best match ``query_text`` (at most ``limit``,
    best first); [] for an empty query, a non-positive limit or an unknown user."""
    from engramdb.compat.cognee.infrastructure.session.session_manager import SessionManager
    from engramdb.sessions.lanes import search_session
    from engramdb.sessions.validation import validate_session_id

    sid = validate_session_id(session_id)
    if limit <= 0 or not query_text:
        return []
    engine, user = await SessionManager().user_for(user_id)
    if user is None:
        return []
    return [e.qa_id for e in await search_session(engine.store, user, sid, query_text, limit)]


def _qa_id(entry: Any) -> str | None:
    value = entry.get("qa_id") if isinstance(entry, dict) else getattr(entry, "qa_id", None)
    return None if value is None else str(value)


def select_hybrid_qa_entries(
    entries: list[Any], vector_qa_ids: list[str] | None, *, last_n: int
) -> list[Any]:
    """The last ``last_n`` of ``entries`` (oldest first) plus those named in
    ``vector_qa_ids``, in the order of ``entries``; [] when ``last_n`` <= 0."""
    if last_n <= 0:
        return []
    keep = {i for i in (_qa_id(e) for e in entries[-last_n:]) if i is not None}
    keep |= {str(i) for i in vector_qa_ids or ()}
    if not vector_qa_ids:
        return list(entries[-last_n:])
    return [e for e in entries if _qa_id(e) in keep]
