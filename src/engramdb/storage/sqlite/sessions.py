"""The session writes of the SQLite backend (run inside a transaction of :class:`.Database`).

The reads and the mark step are shared with PostgreSQL (:mod:`engramdb.storage.sql.sessions`);
SQLite runs one writer at a time, so these writes check, then write. :func:`mark_entries` runs
the shared mark step inside the caller's transaction, to spend entries exactly once.
"""

from __future__ import annotations

import sqlite3
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
from engramdb.storage.dialect import SQLITE
from engramdb.storage.sql import sessions as shared
from engramdb.storage.sqlite.rows import to_json, to_time
from engramdb.storage.sqlite.units import run_unit

__all__ = [
    "add_context_entry",
    "add_qa_entry",
    "add_trace_entry",
    "clear_qa_feedback",
    "mark_entries",
    "set_qa_feedback",
]


# --- sessions ------------------------------------------------------------------------------------


def _touch_session(conn: sqlite3.Connection, user_id: UUID, session_id: str, at: datetime) -> None:
    """Create the session row if missing and move its ``updated_at`` (never backwards)."""
    if conn.execute("SELECT 1 FROM users WHERE id = ?", (str(user_id),)).fetchone() is None:
        raise NotFoundError(f"No user with id {user_id}; create the user first.")
    stamp = to_time(at)
    conn.execute(stmt.touch_session(SQLITE), (str(user_id), session_id, stamp, stamp))


# --- Q&A entries ---------------------------------------------------------------------------------


def add_qa_entry(conn: sqlite3.Connection, entry: QARecord) -> QARecord:
    if conn.execute("SELECT 1 FROM session_qa WHERE id = ?", (str(entry.id),)).fetchone():
        raise ConflictError(f"A Q&A entry with id {entry.id} already exists.")
    _touch_session(conn, entry.user_id, entry.session_id, entry.created_at)
    conn.execute(
        "INSERT INTO session_qa (id, user_id, session_id, origin, question, context, answer, "
        "search_type, used_node_ids, used_edge_ids, feedback_score, feedback_text, "
        "feedback_source, feedback_at, rating_rev, created_at, used_context_ids) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            str(entry.id),
            str(entry.user_id),
            entry.session_id,
            entry.origin,
            entry.question,
            entry.context,
            entry.answer,
            entry.search_type,
            to_json(entry.used_node_ids),
            to_json(entry.used_edge_ids),
            entry.feedback_score,
            entry.feedback_text,
            entry.feedback_source,
            None if entry.feedback_at is None else to_time(entry.feedback_at),
            entry.rating_rev,
            to_time(entry.created_at),
            to_json(entry.used_context_ids),
        ),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO session_qa_datasets (qa_id, dataset_id) VALUES (?, ?)",
        [(str(entry.id), str(d)) for d in entry.dataset_ids],
    )
    stored = run_unit(conn, partial(shared.qa_by_id, SQLITE, entry.id))
    if stored is None:  # cannot happen: inserted just above, in this transaction
        raise ConflictError(f"The Q&A entry {entry.id} could not be stored.")
    return stored


def _require_qa(conn: sqlite3.Connection, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord:
    entry = run_unit(conn, partial(shared.get_qa_entry, SQLITE, user_id, session_id, qa_id))
    if entry is None:
        raise NotFoundError(
            f"No Q&A entry {qa_id} in session {session_id!r} of this user; list the session's "
            "entries with session.get_session(session_id) to find its qa_id values."
        )
    return entry


def set_qa_feedback(
    conn: sqlite3.Connection,
    user_id: UUID,
    session_id: str,
    qa_id: UUID,
    score: int | None,
    text: str | None,
    source: FeedbackSource,
) -> QARecord:
    entry = _require_qa(conn, user_id, session_id, qa_id)
    change = rules.feedback_change(entry, score, text, source)
    if change is None:
        return entry
    return _write_feedback(conn, entry, change)


def _write_feedback(
    conn: sqlite3.Connection, entry: QARecord, change: rules.FeedbackChange
) -> QARecord:
    conn.execute(
        stmt.set_feedback(SQLITE),
        (
            change.score,
            change.text,
            change.source,
            to_time(utcnow()),
            change.rev_step,
            str(entry.id),
        ),
    )
    return _require_qa(conn, entry.user_id, entry.session_id, entry.id)


def clear_qa_feedback(
    conn: sqlite3.Connection, user_id: UUID, session_id: str, qa_id: UUID
) -> QARecord:
    entry = _require_qa(conn, user_id, session_id, qa_id)
    return _write_feedback(conn, entry, rules.feedback_cleared(entry))


# --- marks ---------------------------------------------------------------------------------------


def mark_entries(
    conn: sqlite3.Connection, consumer: str, marks: Sequence[EntryMark]
) -> list[EntryMark]:
    """The shared mark step (:func:`engramdb.storage.sql.sessions.mark_entries`) in the caller's
    transaction."""
    return run_unit(conn, partial(shared.mark_entries, SQLITE, consumer, marks))


# --- traces --------------------------------------------------------------------------------------


def add_trace_entry(conn: sqlite3.Connection, entry: TraceRecord) -> TraceRecord:
    if conn.execute("SELECT 1 FROM session_traces WHERE id = ?", (str(entry.id),)).fetchone():
        raise ConflictError(f"A trace entry with id {entry.id} already exists.")
    _touch_session(conn, entry.user_id, entry.session_id, entry.created_at)
    conn.execute(
        "INSERT INTO session_traces (id, user_id, session_id, origin_function, status, "
        "memory_query, memory_context, method_params, method_return_value, error_message, "
        "session_feedback, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            str(entry.id),
            str(entry.user_id),
            entry.session_id,
            entry.origin_function,
            entry.status,
            entry.memory_query,
            entry.memory_context,
            to_json(entry.method_params),
            to_json(entry.method_return_value),
            entry.error_message,
            entry.session_feedback,
            to_time(entry.created_at),
        ),
    )
    row = conn.execute(
        f"SELECT {stmt.TRACE_COLUMNS} FROM session_traces t WHERE t.id = ?", (str(entry.id),)
    ).fetchone()
    return shared.row_to_trace(SQLITE, row)


# --- guidance entries ----------------------------------------------------------------------------


def add_context_entry(conn: sqlite3.Connection, entry: ContextRecord) -> tuple[ContextRecord, bool]:
    key = normalize_content(entry.content)
    _touch_session(conn, entry.user_id, entry.session_id, entry.updated_at)
    existing = conn.execute(
        f"SELECT {stmt.CONTEXT_COLUMNS} FROM session_context c WHERE c.user_id = ? "
        "AND c.session_id = ? "
        "AND context_profile = ? AND section = ? AND normalized_content = ?",
        (str(entry.user_id), entry.session_id, entry.context_profile, entry.section, key),
    ).fetchone()
    if existing is not None:
        found = shared.row_to_context(existing)
        sources = list(dict.fromkeys([*found.source_ids, *entry.source_ids]))
        conn.execute(
            "UPDATE session_context SET source_ids = ?, confidence = ?, updated_at = ? "
            "WHERE id = ?",
            (
                to_json(sources),
                max(found.confidence, entry.confidence),
                to_time(entry.updated_at),
                str(found.id),
            ),
        )
        return _context_by_id(conn, found.id), False
    if conn.execute("SELECT 1 FROM session_context WHERE id = ?", (str(entry.id),)).fetchone():
        raise ConflictError(f"A guidance entry with id {entry.id} already exists.")
    conn.execute(
        "INSERT INTO session_context (id, user_id, session_id, context_profile, section, "
        "content, normalized_content, confidence, source_ids, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            str(entry.id),
            str(entry.user_id),
            entry.session_id,
            entry.context_profile,
            entry.section,
            entry.content,
            key,
            entry.confidence,
            to_json(list(dict.fromkeys(entry.source_ids))),
            to_time(entry.created_at),
            to_time(entry.updated_at),
        ),
    )
    return _context_by_id(conn, entry.id), True


def _context_by_id(conn: sqlite3.Connection, entry_id: UUID) -> ContextRecord:
    row = conn.execute(
        f"SELECT {stmt.CONTEXT_COLUMNS} FROM session_context c WHERE c.id = ?", (str(entry_id),)
    ).fetchone()
    if row is None:  # cannot happen: read in the transaction that wrote it
        raise NotFoundError(f"No guidance entry {entry_id}.")
    return shared.row_to_context(row)
