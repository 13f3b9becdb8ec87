"""The session store of the SQLite backend (run inside a transaction of :class:`.Database`).

Tables (migration 4): ``sessions`` keyed by (user_id, session_id), ``session_qa`` with
``session_qa_datasets``, ``session_traces``, ``session_context`` and ``session_marks``. Every
read filters by user id first, so a session id never leaks across users. :func:`mark_entries`
is the step other writes call inside their own transaction to spend entries exactly once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.records import utcnow
from engramdb.models.sessions import (
    ContextRecord,
    EntryMark,
    FeedbackSource,
    QARecord,
    SessionRecord,
    TraceRecord,
    normalize_content,
)
from engramdb.storage import rules
from engramdb.storage import statements as stmt
from engramdb.storage.dialect import SQLITE
from engramdb.storage.sqlite.rows import from_json, parse_time, to_json, to_time

__all__ = [
    "add_context_entry",
    "add_qa_entry",
    "add_trace_entry",
    "clear_qa_feedback",
    "count_qa_entries",
    "delete_session",
    "get_qa_entry",
    "get_session",
    "list_context_entries",
    "list_pending_ratings",
    "list_qa_entries",
    "list_sessions",
    "list_trace_entries",
    "mark_entries",
    "set_qa_feedback",
]


_QA_COLUMNS = (
    "q.id, q.user_id, q.session_id, q.seq, q.origin, q.question, q.context, q.answer, "
    "q.search_type, (SELECT json_group_array(d.dataset_id) FROM session_qa_datasets d "
    "WHERE d.qa_id = q.id), q.used_node_ids, q.used_edge_ids, q.feedback_score, "
    "q.feedback_text, q.feedback_source, q.feedback_at, q.rating_rev, q.created_at"
)


# --- rows ----------------------------------------------------------------------------------------


def _uuids(value: str | None) -> list[UUID]:
    return [UUID(item) for item in from_json(value, [])]


def _row_to_qa(row: tuple[Any, ...]) -> QARecord:
    return QARecord(
        id=UUID(row[0]),
        user_id=UUID(row[1]),
        session_id=row[2],
        seq=int(row[3]),
        origin=row[4],
        question=row[5],
        context=row[6],
        answer=row[7],
        search_type=row[8],
        dataset_ids=sorted(_uuids(row[9]), key=str),
        used_node_ids=_uuids(row[10]),
        used_edge_ids=_uuids(row[11]),
        feedback_score=None if row[12] is None else int(row[12]),
        feedback_text=row[13],
        feedback_source=row[14],
        feedback_at=None if row[15] is None else parse_time(row[15]),
        rating_rev=int(row[16]),
        created_at=parse_time(row[17]),
    )


def _row_to_trace(row: tuple[Any, ...]) -> TraceRecord:
    return TraceRecord(
        id=UUID(row[0]),
        user_id=UUID(row[1]),
        session_id=row[2],
        seq=int(row[3]),
        origin_function=row[4],
        status=row[5],
        memory_query=row[6],
        memory_context=row[7],
        method_params=from_json(row[8], {}),
        method_return_value=from_json(row[9], None),
        error_message=row[10],
        session_feedback=row[11],
        created_at=parse_time(row[12]),
    )


def _row_to_context(row: tuple[Any, ...]) -> ContextRecord:
    return ContextRecord(
        id=UUID(row[0]),
        user_id=UUID(row[1]),
        session_id=row[2],
        seq=int(row[3]),
        context_profile=row[4],
        section=row[5],
        content=row[6],
        confidence=float(row[7]),
        source_ids=list(from_json(row[8], [])),
        created_at=parse_time(row[9]),
        updated_at=parse_time(row[10]),
    )


def _row_to_session(row: tuple[Any, ...]) -> SessionRecord:
    return SessionRecord(
        user_id=UUID(row[0]),
        session_id=row[1],
        created_at=parse_time(row[2]),
        updated_at=parse_time(row[3]),
    )


# --- sessions ------------------------------------------------------------------------------------


def _touch_session(conn: sqlite3.Connection, user_id: UUID, session_id: str, at: datetime) -> None:
    """Create the session row if missing and move its ``updated_at`` (never backwards)."""
    if conn.execute("SELECT 1 FROM users WHERE id = ?", (str(user_id),)).fetchone() is None:
        raise NotFoundError(f"No user with id {user_id}; create the user first.")
    stamp = to_time(at)
    conn.execute(stmt.touch_session(SQLITE), (str(user_id), session_id, stamp, stamp))


def get_session(conn: sqlite3.Connection, user_id: UUID, session_id: str) -> SessionRecord | None:
    row = conn.execute(stmt.get_session(SQLITE), (str(user_id), session_id)).fetchone()
    return None if row is None else _row_to_session(row)


def list_sessions(conn: sqlite3.Connection, user_id: UUID) -> list[SessionRecord]:
    rows = conn.execute(stmt.list_sessions(SQLITE), (str(user_id),))
    return [_row_to_session(row) for row in rows]


def delete_session(conn: sqlite3.Connection, user_id: UUID, session_id: str) -> bool:
    key = (str(user_id), session_id)
    deleted = 0
    for statement, kind in stmt.delete_session(SQLITE):
        deleted = conn.execute(statement, key if kind is None else (kind, *key)).rowcount
    return deleted > 0


# --- Q&A entries ---------------------------------------------------------------------------------


def add_qa_entry(conn: sqlite3.Connection, entry: QARecord) -> QARecord:
    if conn.execute("SELECT 1 FROM session_qa WHERE id = ?", (str(entry.id),)).fetchone():
        raise ConflictError(f"A Q&A entry with id {entry.id} already exists.")
    _touch_session(conn, entry.user_id, entry.session_id, entry.created_at)
    conn.execute(
        "INSERT INTO session_qa (id, user_id, session_id, origin, question, context, answer, "
        "search_type, used_node_ids, used_edge_ids, feedback_score, feedback_text, "
        "feedback_source, feedback_at, rating_rev, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        ),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO session_qa_datasets (qa_id, dataset_id) VALUES (?, ?)",
        [(str(entry.id), str(d)) for d in entry.dataset_ids],
    )
    stored = _qa_by_id(conn, entry.id)
    if stored is None:  # cannot happen: inserted just above, in this transaction
        raise ConflictError(f"The Q&A entry {entry.id} could not be stored.")
    return stored


def _qa_by_id(conn: sqlite3.Connection, qa_id: UUID) -> QARecord | None:
    row = conn.execute(
        f"SELECT {_QA_COLUMNS} FROM session_qa q WHERE q.id = ?", (str(qa_id),)
    ).fetchone()
    return None if row is None else _row_to_qa(row)


def get_qa_entry(
    conn: sqlite3.Connection, user_id: UUID, session_id: str, qa_id: UUID
) -> QARecord | None:
    row = conn.execute(
        f"SELECT {_QA_COLUMNS} FROM session_qa q "
        "WHERE q.id = ? AND q.user_id = ? AND q.session_id = ?",
        (str(qa_id), str(user_id), session_id),
    ).fetchone()
    return None if row is None else _row_to_qa(row)


def _qa_filter(
    user_id: UUID,
    session_ids: Sequence[str] | None,
    dataset_id: UUID | None,
    unmarked_by: str | None,
) -> tuple[str, list[Any]]:
    dataset = None if dataset_id is None else str(dataset_id)
    return stmt.qa_filter(SQLITE, str(user_id), session_ids, dataset, unmarked_by)


def list_qa_entries(
    conn: sqlite3.Connection,
    user_id: UUID,
    session_ids: Sequence[str] | None,
    dataset_id: UUID | None,
    unmarked_by: str | None,
    last_n: int | None,
) -> list[QARecord]:
    if session_ids is not None and not session_ids:
        return []
    where, params = _qa_filter(user_id, session_ids, dataset_id, unmarked_by)
    if last_n is None:
        sql = f"SELECT {_QA_COLUMNS} FROM session_qa q WHERE {where} ORDER BY q.seq"
    else:
        sql = f"SELECT {_QA_COLUMNS} FROM session_qa q WHERE {where} ORDER BY q.seq DESC LIMIT ?"
        params.append(max(last_n, 0))
    entries = [_row_to_qa(row) for row in conn.execute(sql, params)]
    return entries if last_n is None else entries[::-1]


def count_qa_entries(
    conn: sqlite3.Connection,
    user_id: UUID,
    session_ids: Sequence[str] | None,
    dataset_id: UUID | None,
    unmarked_by: str | None,
) -> int:
    if session_ids is not None and not session_ids:
        return 0
    where, params = _qa_filter(user_id, session_ids, dataset_id, unmarked_by)
    row = conn.execute(f"SELECT count(*) FROM session_qa q WHERE {where}", params).fetchone()
    return int(row[0]) if row else 0


def list_pending_ratings(
    conn: sqlite3.Connection,
    user_id: UUID,
    consumer: str,
    session_ids: Sequence[str] | None,
    dataset_id: UUID | None,
) -> list[QARecord]:
    if session_ids is not None and not session_ids:
        return []
    where, params = _qa_filter(user_id, session_ids, dataset_id, None)
    pending = stmt.pending_ratings_clause(SQLITE)
    query = f"SELECT {_QA_COLUMNS} FROM session_qa q WHERE {where} AND {pending} ORDER BY q.seq"
    return [_row_to_qa(row) for row in conn.execute(query, [*params, consumer])]


def _require_qa(conn: sqlite3.Connection, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord:
    entry = get_qa_entry(conn, user_id, session_id, qa_id)
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
    """Record ``consumer``'s marks and return those that were new (see the Store contract).

    Call it inside the transaction of the write that consumes the entries, then apply only what
    it returns: the mark and the effect commit or roll back together.
    """
    applied: list[EntryMark] = []
    stamp = to_time(utcnow())
    for mark in rules.normalise_marks(marks):
        table = rules.ENTRY_TABLES[mark.kind]
        entry_id = str(mark.entry_id)
        if conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (entry_id,)).fetchone() is None:
            continue
        row = conn.execute(
            "SELECT rating_rev FROM session_marks WHERE kind = ? AND entry_id = ? AND consumer = ?",
            (mark.kind, entry_id, consumer),
        ).fetchone()
        if row is not None and int(row[0]) >= mark.rating_rev:
            continue
        conn.execute(
            "INSERT INTO session_marks (kind, entry_id, consumer, rating_rev, marked_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, entry_id, consumer) DO UPDATE SET "
            "rating_rev = excluded.rating_rev, marked_at = excluded.marked_at",
            (mark.kind, entry_id, consumer, mark.rating_rev, stamp),
        )
        applied.append(mark)
    return applied


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
    return _row_to_trace(row)


def list_trace_entries(
    conn: sqlite3.Connection,
    user_id: UUID,
    session_ids: Sequence[str] | None,
    unmarked_by: str | None,
    last_n: int | None,
) -> list[TraceRecord]:
    if session_ids is not None and not session_ids:
        return []
    clauses = ["t.user_id = ?"]
    params: list[Any] = [str(user_id)]
    if session_ids is not None:
        clauses.append(f"t.session_id IN ({', '.join('?' * len(session_ids))})")
        params += list(session_ids)
    if unmarked_by is not None:
        clauses.append(stmt.unmarked_clause(SQLITE, "trace", "t"))
        params.append(unmarked_by)
    columns = stmt.TRACE_COLUMNS
    sql = f"SELECT {columns} FROM session_traces t WHERE {' AND '.join(clauses)}"
    if last_n is None:
        return [_row_to_trace(row) for row in conn.execute(sql + " ORDER BY t.seq", params)]
    rows = conn.execute(sql + " ORDER BY t.seq DESC LIMIT ?", [*params, max(last_n, 0)])
    return [_row_to_trace(row) for row in rows][::-1]


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
        found = _row_to_context(existing)
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
    return _row_to_context(row)


def list_context_entries(
    conn: sqlite3.Connection,
    user_id: UUID,
    session_id: str,
    context_profile: str | None,
    unmarked_by: str | None,
) -> list[ContextRecord]:
    clauses = ["c.user_id = ?", "c.session_id = ?"]
    params: list[Any] = [str(user_id), session_id]
    if context_profile is not None:
        clauses.append("c.context_profile = ?")
        params.append(context_profile)
    if unmarked_by is not None:
        clauses.append(stmt.unmarked_clause(SQLITE, "context", "c"))
        params.append(unmarked_by)
    columns = stmt.CONTEXT_COLUMNS
    rows = conn.execute(
        f"SELECT {columns} FROM session_context c WHERE {' AND '.join(clauses)} ORDER BY c.seq",
        params,
    )
    return [_row_to_context(row) for row in rows]
