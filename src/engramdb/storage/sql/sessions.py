"""The session store's reads, written once for both backends (units of :mod:`.unit`).

Every read filters by user id first, so a session id never leaks across users. The writes that
decide "new or not" differ by backend (SQLite's single writer, PostgreSQL's row locks and
``RETURNING``) and stay in each backend's ``sessions`` module, which reads rows back with the
converters here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, partial
from typing import Any
from uuid import UUID

from engramdb.models.records import utcnow
from engramdb.models.sessions import (
    ContextProfile,
    ContextRecord,
    EntryMark,
    QARecord,
    SessionRecord,
    TraceRecord,
)
from engramdb.storage import rules
from engramdb.storage import statements as stmt
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.unit import Row, Unit, all_rows, count, one
from engramdb.storage.sql.values import as_json, as_time, as_uuid, as_uuids, maybe_time

__all__ = [
    "SessionReads",
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
    "qa_columns",
    "row_to_context",
    "row_to_qa",
    "row_to_session",
    "row_to_trace",
]


@cache
def qa_columns(d: SqlDialect) -> str:
    """The Q&A entry columns (alias ``q``), its datasets folded in as one array."""
    datasets = d.array("d.dataset_id", "FROM session_qa_datasets d WHERE d.qa_id = q.id")
    return (
        "q.id, q.user_id, q.session_id, q.seq, q.origin, q.question, q.context, q.answer, "
        f"q.search_type, {datasets}, q.used_node_ids, q.used_edge_ids, q.feedback_score, "
        "q.feedback_text, q.feedback_source, q.feedback_at, q.rating_rev, q.created_at, "
        "q.used_context_ids"
    )


# --- rows ----------------------------------------------------------------------------------------


def row_to_qa(row: Row) -> QARecord:
    return QARecord(
        id=as_uuid(row[0]),
        user_id=as_uuid(row[1]),
        session_id=row[2],
        seq=int(row[3]),
        origin=row[4],
        question=row[5],
        context=row[6],
        answer=row[7],
        search_type=row[8],
        dataset_ids=sorted(as_uuids(row[9]), key=str),
        used_node_ids=as_uuids(row[10]),
        used_edge_ids=as_uuids(row[11]),
        feedback_score=None if row[12] is None else int(row[12]),
        feedback_text=row[13],
        feedback_source=row[14],
        feedback_at=maybe_time(row[15]),
        rating_rev=int(row[16]),
        created_at=as_time(row[17]),
        used_context_ids=as_uuids(row[18]),
    )


def row_to_trace(d: SqlDialect, row: Row) -> TraceRecord:
    return TraceRecord(
        id=as_uuid(row[0]),
        user_id=as_uuid(row[1]),
        session_id=row[2],
        seq=int(row[3]),
        origin_function=row[4],
        status=row[5],
        memory_query=row[6],
        memory_context=row[7],
        method_params=d.read_json(row[8], {}),
        method_return_value=d.read_json(row[9], None),
        error_message=row[10],
        session_feedback=row[11],
        created_at=as_time(row[12]),
    )


def row_to_context(row: Row) -> ContextRecord:
    return ContextRecord(
        id=as_uuid(row[0]),
        user_id=as_uuid(row[1]),
        session_id=row[2],
        seq=int(row[3]),
        context_profile=row[4],
        section=row[5],
        content=row[6],
        confidence=float(row[7]),
        source_ids=list(as_json(row[8], [])),
        created_at=as_time(row[9]),
        updated_at=as_time(row[10]),
    )


def row_to_session(row: Row) -> SessionRecord:
    return SessionRecord(
        user_id=as_uuid(row[0]),
        session_id=row[1],
        created_at=as_time(row[2]),
        updated_at=as_time(row[3]),
    )


# --- sessions ------------------------------------------------------------------------------------


def get_session(d: SqlDialect, user_id: UUID, session_id: str) -> Unit[SessionRecord | None]:
    row = yield from one(stmt.get_session(d), user_id, session_id)
    return None if row is None else row_to_session(row)


def list_sessions(d: SqlDialect, user_id: UUID) -> Unit[list[SessionRecord]]:
    rows = yield from all_rows(stmt.list_sessions(d), user_id)
    return [row_to_session(row) for row in rows]


def delete_session(d: SqlDialect, user_id: UUID, session_id: str) -> Unit[bool]:
    deleted = 0
    for statement, kind in stmt.delete_session(d):
        key = (user_id, session_id) if kind is None else (kind, user_id, session_id)
        deleted = yield from count(statement, *key)
    return deleted > 0


# --- Q&A entries ---------------------------------------------------------------------------------


def qa_by_id(d: SqlDialect, qa_id: UUID) -> Unit[QARecord | None]:
    row = yield from one(f"SELECT {qa_columns(d)} FROM session_qa q WHERE q.id = {d.param}", qa_id)
    return None if row is None else row_to_qa(row)


def get_qa_entry(
    d: SqlDialect, user_id: UUID, session_id: str, qa_id: UUID, *, lock: bool = False
) -> Unit[QARecord | None]:
    """``lock``: hold the row until the transaction ends (PostgreSQL; SQLite has one writer)."""
    p = d.param
    row = yield from one(
        f"SELECT {qa_columns(d)} FROM session_qa q "
        f"WHERE q.id = {p} AND q.user_id = {p} AND q.session_id = {p}"
        + (" FOR UPDATE OF q" if lock and d.name == "postgres" else ""),
        qa_id,
        user_id,
        session_id,
    )
    return None if row is None else row_to_qa(row)


def list_qa_entries(
    d: SqlDialect,
    user_id: UUID,
    session_ids: Sequence[str] | None,
    dataset_id: UUID | None,
    unmarked_by: str | None,
    last_n: int | None,
) -> Unit[list[QARecord]]:
    if session_ids is not None and not session_ids:
        return []
    where, params = stmt.qa_filter(d, user_id, session_ids, dataset_id, unmarked_by)
    select = f"SELECT {qa_columns(d)} FROM session_qa q WHERE {where}"
    if last_n is None:
        rows = yield from all_rows(f"{select} ORDER BY q.seq", *params)
        return [row_to_qa(row) for row in rows]
    rows = yield from all_rows(
        f"{select} ORDER BY q.seq DESC LIMIT {d.param}", *params, max(last_n, 0)
    )
    return [row_to_qa(row) for row in rows][::-1]


def count_qa_entries(
    d: SqlDialect,
    user_id: UUID,
    session_ids: Sequence[str] | None,
    dataset_id: UUID | None,
    unmarked_by: str | None,
) -> Unit[int]:
    if session_ids is not None and not session_ids:
        return 0
    where, params = stmt.qa_filter(d, user_id, session_ids, dataset_id, unmarked_by)
    row = yield from one(f"SELECT count(*) FROM session_qa q WHERE {where}", *params)
    return int(row[0]) if row is not None else 0


def list_pending_ratings(
    d: SqlDialect,
    user_id: UUID,
    consumer: str,
    session_ids: Sequence[str] | None,
    dataset_id: UUID | None,
) -> Unit[list[QARecord]]:
    if session_ids is not None and not session_ids:
        return []
    where, params = stmt.qa_filter(d, user_id, session_ids, dataset_id, None)
    rows = yield from all_rows(
        f"SELECT {qa_columns(d)} FROM session_qa q WHERE {where} "
        f"AND {stmt.pending_ratings_clause(d)} ORDER BY q.seq",
        *params,
        consumer,
    )
    return [row_to_qa(row) for row in rows]


# --- marks ---------------------------------------------------------------------------------------


def mark_entries(d: SqlDialect, consumer: str, marks: Sequence[EntryMark]) -> Unit[list[EntryMark]]:
    """Record ``consumer``'s marks and return those that were new (see the Store contract).

    Run it inside the transaction of the write that consumes the entries, then apply only what
    it returns: the mark and the effect commit or roll back together. Each mark is one upsert
    that applies only to an existing entry and only raises a lower revision (its row count says
    whether it applied), so on PostgreSQL a concurrent consumer waits for the row lock, then
    sees the committed mark and applies nothing; marks are taken in (kind, id) order so two
    consumers cannot deadlock.
    """
    wanted = rules.normalise_marks(marks)  # known kinds, one mark per entry
    stamp = utcnow()
    applied: set[tuple[str, UUID]] = set()
    p = d.param
    for mark in sorted(wanted, key=lambda m: (m.kind, str(m.entry_id))):
        table = rules.ENTRY_TABLES[mark.kind]
        changed = yield from count(
            "INSERT INTO session_marks (kind, entry_id, consumer, rating_rev, marked_at) "
            f"SELECT {d.params(5)} WHERE EXISTS (SELECT 1 FROM {table} WHERE id = {p}) "
            "ON CONFLICT (kind, entry_id, consumer) DO UPDATE SET "
            "rating_rev = excluded.rating_rev, marked_at = excluded.marked_at "
            "WHERE session_marks.rating_rev < excluded.rating_rev",
            mark.kind,
            mark.entry_id,
            consumer,
            mark.rating_rev,
            stamp,
            mark.entry_id,
        )
        if changed > 0:
            applied.add((mark.kind, mark.entry_id))
    return [m for m in wanted if (m.kind, m.entry_id) in applied]  # in the order given


# --- traces and guidance -------------------------------------------------------------------------


def list_trace_entries(
    d: SqlDialect,
    user_id: UUID,
    session_ids: Sequence[str] | None,
    unmarked_by: str | None,
    last_n: int | None,
) -> Unit[list[TraceRecord]]:
    if session_ids is not None and not session_ids:
        return []
    clauses = [f"t.user_id = {d.param}"]
    params: list[Any] = [user_id]
    if session_ids is not None:
        sql, values = d.in_values("t.session_id", list(session_ids), "text")
        clauses.append(sql)
        params += values
    if unmarked_by is not None:
        clauses.append(stmt.unmarked_clause(d, "trace", "t"))
        params.append(unmarked_by)
    select = f"SELECT {stmt.TRACE_COLUMNS} FROM session_traces t WHERE {' AND '.join(clauses)}"
    if last_n is None:
        rows = yield from all_rows(f"{select} ORDER BY t.seq", *params)
        return [row_to_trace(d, row) for row in rows]
    rows = yield from all_rows(
        f"{select} ORDER BY t.seq DESC LIMIT {d.param}", *params, max(last_n, 0)
    )
    return [row_to_trace(d, row) for row in rows][::-1]


def list_context_entries(
    d: SqlDialect,
    user_id: UUID,
    session_id: str,
    context_profile: str | None,
    unmarked_by: str | None,
) -> Unit[list[ContextRecord]]:
    clauses = [f"c.user_id = {d.param}", f"c.session_id = {d.param}"]
    params: list[Any] = [user_id, session_id]
    if context_profile is not None:
        clauses.append(f"c.context_profile = {d.param}")
        params.append(context_profile)
    if unmarked_by is not None:
        clauses.append(stmt.unmarked_clause(d, "context", "c"))
        params.append(unmarked_by)
    rows = yield from all_rows(
        f"SELECT {stmt.CONTEXT_COLUMNS} FROM session_context c WHERE {' AND '.join(clauses)} "
        "ORDER BY c.seq",
        *params,
    )
    return [row_to_context(row) for row in rows]


class SessionReads(UnitPort):
    """The store's session reads (and ``delete_session``), each one unit above."""

    async def get_session(self, user_id: UUID, session_id: str) -> SessionRecord | None:
        return await self._read_unit(partial(get_session, self.dialect, user_id, session_id))

    async def list_sessions(self, user_id: UUID) -> list[SessionRecord]:
        return await self._read_unit(partial(list_sessions, self.dialect, user_id))

    async def delete_session(self, user_id: UUID, session_id: str) -> bool:
        return await self._write_unit(partial(delete_session, self.dialect, user_id, session_id))

    async def get_qa_entry(self, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord | None:
        return await self._read_unit(
            partial(get_qa_entry, self.dialect, user_id, session_id, qa_id)
        )

    async def list_qa_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
        unmarked_by: str | None = None,
        last_n: int | None = None,
    ) -> list[QARecord]:
        return await self._read_unit(
            partial(
                list_qa_entries, self.dialect, user_id, session_ids, dataset_id, unmarked_by, last_n
            )
        )

    async def count_qa_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
        unmarked_by: str | None = None,
    ) -> int:
        return await self._read_unit(
            partial(count_qa_entries, self.dialect, user_id, session_ids, dataset_id, unmarked_by)
        )

    async def list_pending_ratings(
        self,
        user_id: UUID,
        consumer: str,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
    ) -> list[QARecord]:
        return await self._read_unit(
            partial(list_pending_ratings, self.dialect, user_id, consumer, session_ids, dataset_id)
        )

    async def list_trace_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        unmarked_by: str | None = None,
        last_n: int | None = None,
    ) -> list[TraceRecord]:
        return await self._read_unit(
            partial(list_trace_entries, self.dialect, user_id, session_ids, unmarked_by, last_n)
        )

    async def list_context_entries(
        self,
        user_id: UUID,
        session_id: str,
        *,
        context_profile: ContextProfile | None = None,
        unmarked_by: str | None = None,
    ) -> list[ContextRecord]:
        return await self._read_unit(
            partial(
                list_context_entries,
                self.dialect,
                user_id,
                session_id,
                context_profile,
                unmarked_by,
            )
        )
