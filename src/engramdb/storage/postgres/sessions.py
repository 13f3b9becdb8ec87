"""The session writes of the PostgreSQL backend (run inside a transaction of :class:`.Database`).

The reads and the mark step are shared with SQLite (:mod:`engramdb.storage.sql.sessions`).
Concurrency differs from SQLite, where one writer runs at a time, so the writes that decide
"new or not" lock what they read (``FOR UPDATE``) or are single statements PostgreSQL makes
atomic (``ON CONFLICT ... RETURNING``). :func:`mark_entries` runs the shared mark step inside
the caller's transaction, to spend entries exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import partial
from uuid import UUID

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.records import utcnow
from engramdb.models.sessions import (
    ContextRecord,
    EntryMark,
    FeedbackSource,
    QARecord,
    TraceRecord,
    normalize_content,
)
from engramdb.storage import rules
from engramdb.storage import statements as stmt
from engramdb.storage.dialect import POSTGRES
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.rows import to_json
from engramdb.storage.postgres.units import run_unit
from engramdb.storage.sql import sessions as shared

__all__ = [
    "add_context_entry",
    "add_qa_entry",
    "add_trace_entry",
    "clear_qa_feedback",
    "mark_entries",
    "set_qa_feedback",
]


# --- sessions ------------------------------------------------------------------------------------


async def _touch_session(conn: Conn, user_id: UUID, session_id: str, at: datetime) -> None:
    """Create the session row if missing and move its ``updated_at`` (never backwards)."""
    cur = await conn.execute("SELECT 1 FROM users WHERE id = %s", (user_id,))
    if await cur.fetchone() is None:
        raise NotFoundError(f"No user with id {user_id}; create the user first.")
    await conn.execute(stmt.touch_session(POSTGRES), (user_id, session_id, at, at))


# --- Q&A entries ---------------------------------------------------------------------------------


async def add_qa_entry(conn: Conn, entry: QARecord) -> QARecord:
    cur = await conn.execute("SELECT 1 FROM session_qa WHERE id = %s", (entry.id,))
    if await cur.fetchone() is not None:
        raise ConflictError(f"A Q&A entry with id {entry.id} already exists.")
    await _touch_session(conn, entry.user_id, entry.session_id, entry.created_at)
    await conn.execute(
        "INSERT INTO session_qa (id, user_id, session_id, origin, question, context, answer, "
        "search_type, used_node_ids, used_edge_ids, feedback_score, feedback_text, "
        "feedback_source, feedback_at, rating_rev, created_at, used_context_ids) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::uuid[], %s::uuid[], %s, %s, %s, %s, %s, %s, "
        "%s::uuid[])",
        (
            entry.id,
            entry.user_id,
            entry.session_id,
            entry.origin,
            entry.question,
            entry.context,
            entry.answer,
            entry.search_type,
            list(entry.used_node_ids),
            list(entry.used_edge_ids),
            entry.feedback_score,
            entry.feedback_text,
            entry.feedback_source,
            entry.feedback_at,
            entry.rating_rev,
            entry.created_at,
            list(entry.used_context_ids),
        ),
    )
    if entry.dataset_ids:
        await conn.execute(
            "INSERT INTO session_qa_datasets (qa_id, dataset_id) "
            "SELECT %s, d FROM unnest(%s::uuid[]) AS d ON CONFLICT DO NOTHING",
            (entry.id, sorted(set(entry.dataset_ids))),
        )
    stored = await run_unit(conn, partial(shared.qa_by_id, POSTGRES, entry.id))
    if stored is None:  # cannot happen: inserted just above, in this transaction
        raise ConflictError(f"The Q&A entry {entry.id} could not be stored.")
    return stored


async def _require_qa(conn: Conn, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord:
    entry = await run_unit(
        conn, partial(shared.get_qa_entry, POSTGRES, user_id, session_id, qa_id, lock=True)
    )
    if entry is None:
        raise NotFoundError(
            f"No Q&A entry {qa_id} in session {session_id!r} of this user; list the session's "
            "entries with session.get_session(session_id) to find its qa_id values."
        )
    return entry


async def set_qa_feedback(
    conn: Conn,
    user_id: UUID,
    session_id: str,
    qa_id: UUID,
    score: int | None,
    text: str | None,
    source: FeedbackSource,
) -> QARecord:
    entry = await _require_qa(conn, user_id, session_id, qa_id)  # row locked until commit
    change = rules.feedback_change(entry, score, text, source)
    if change is None:
        return entry
    return await _write_feedback(conn, entry, change)


async def _write_feedback(conn: Conn, entry: QARecord, change: rules.FeedbackChange) -> QARecord:
    await conn.execute(
        stmt.set_feedback(POSTGRES),
        (change.score, change.text, change.source, utcnow(), change.rev_step, entry.id),
    )
    return await _require_qa(conn, entry.user_id, entry.session_id, entry.id)


async def clear_qa_feedback(conn: Conn, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord:
    entry = await _require_qa(conn, user_id, session_id, qa_id)
    return await _write_feedback(conn, entry, rules.feedback_cleared(entry))


# --- marks ---------------------------------------------------------------------------------------


async def mark_entries(conn: Conn, consumer: str, marks: Sequence[EntryMark]) -> list[EntryMark]:
    """The shared mark step (:func:`engramdb.storage.sql.sessions.mark_entries`) in the caller's
    transaction."""
    return await run_unit(conn, partial(shared.mark_entries, POSTGRES, consumer, marks))


# --- traces --------------------------------------------------------------------------------------


async def add_trace_entry(conn: Conn, entry: TraceRecord) -> TraceRecord:
    params_json, value_json = to_json(entry.method_params), to_json(entry.method_return_value)
    cur = await conn.execute("SELECT 1 FROM session_traces WHERE id = %s", (entry.id,))
    if await cur.fetchone() is not None:
        raise ConflictError(f"A trace entry with id {entry.id} already exists.")
    await _touch_session(conn, entry.user_id, entry.session_id, entry.created_at)
    cur = await conn.execute(
        "INSERT INTO session_traces AS t (id, user_id, session_id, origin_function, status, "
        "memory_query, memory_context, method_params, method_return_value, error_message, "
        "session_feedback, created_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s) "
        f"RETURNING {stmt.TRACE_COLUMNS}",
        (
            entry.id,
            entry.user_id,
            entry.session_id,
            entry.origin_function,
            entry.status,
            entry.memory_query,
            entry.memory_context,
            params_json,
            value_json,
            entry.error_message,
            entry.session_feedback,
            entry.created_at,
        ),
    )
    row = await cur.fetchone()
    assert row is not None  # RETURNING of a successful insert
    return shared.row_to_trace(POSTGRES, row)


# --- guidance entries ----------------------------------------------------------------------------


async def _find_context(conn: Conn, entry: ContextRecord, key: str) -> ContextRecord | None:
    cur = await conn.execute(
        f"SELECT {stmt.CONTEXT_COLUMNS} FROM session_context c WHERE c.user_id = %s "
        "AND c.session_id = %s AND c.context_profile = %s AND c.section = %s "
        "AND c.normalized_content = %s FOR UPDATE",
        (entry.user_id, entry.session_id, entry.context_profile, entry.section, key),
    )
    row = await cur.fetchone()
    return None if row is None else shared.row_to_context(row)


async def _merge_context(conn: Conn, found: ContextRecord, entry: ContextRecord) -> ContextRecord:
    sources = list(dict.fromkeys([*found.source_ids, *entry.source_ids]))
    cur = await conn.execute(
        "UPDATE session_context AS c SET source_ids = %s::jsonb, confidence = %s, "
        f"updated_at = %s WHERE c.id = %s RETURNING {stmt.CONTEXT_COLUMNS}",
        (to_json(sources), max(found.confidence, entry.confidence), entry.updated_at, found.id),
    )
    row = await cur.fetchone()
    assert row is not None  # the row is locked by this transaction
    return shared.row_to_context(row)


async def add_context_entry(conn: Conn, entry: ContextRecord) -> tuple[ContextRecord, bool]:
    key = normalize_content(entry.content)
    await _touch_session(conn, entry.user_id, entry.session_id, entry.updated_at)
    found = await _find_context(conn, entry, key)
    if found is not None:
        return await _merge_context(conn, found, entry), False
    cur = await conn.execute("SELECT 1 FROM session_context WHERE id = %s", (entry.id,))
    if await cur.fetchone() is not None:
        raise ConflictError(f"A guidance entry with id {entry.id} already exists.")
    cur = await conn.execute(
        "INSERT INTO session_context AS c (id, user_id, session_id, context_profile, section, "
        "content, normalized_content, confidence, source_ids, created_at, updated_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s) "
        "ON CONFLICT (user_id, session_id, context_profile, section, normalized_content) "
        f"DO NOTHING RETURNING {stmt.CONTEXT_COLUMNS}",
        (
            entry.id,
            entry.user_id,
            entry.session_id,
            entry.context_profile,
            entry.section,
            entry.content,
            key,
            entry.confidence,
            to_json(list(dict.fromkeys(entry.source_ids))),
            entry.created_at,
            entry.updated_at,
        ),
    )
    row = await cur.fetchone()
    if row is not None:
        return shared.row_to_context(row), True
    # A concurrent writer stored the same guidance meanwhile: merge into it.
    found = await _find_context(conn, entry, key)
    if found is None:  # cannot happen: the conflicting row is committed
        raise ConflictError("A concurrent guidance entry vanished; try again.")
    return await _merge_context(conn, found, entry), False
