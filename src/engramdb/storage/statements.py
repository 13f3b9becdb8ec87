"""SQL text both backends run, written once and spelled through :mod:`.dialect`.

Only statements that mean exactly the same on both backends live here; where the backends need
different SQL for concurrency (PostgreSQL's row locks and ``RETURNING``, SQLite's single
writer) each keeps its own. Values are bound by the caller in its driver's representation
(SQLite: uuids and times as text; PostgreSQL: native types).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from engramdb.models.sessions import EntryKind
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.rules import ENTRY_TABLES

__all__ = [
    "CONTEXT_COLUMNS",
    "SESSION_COLUMNS",
    "TRACE_COLUMNS",
    "cache_get",
    "cache_put",
    "delete_session",
    "finish_run",
    "get_session",
    "list_sessions",
    "pending_ratings_clause",
    "qa_filter",
    "set_feedback",
    "touch_session",
    "unmarked_clause",
]

SESSION_COLUMNS = "user_id, session_id, created_at, updated_at"
TRACE_COLUMNS = (
    "t.id, t.user_id, t.session_id, t.seq, t.origin_function, t.status, t.memory_query, "
    "t.memory_context, t.method_params, t.method_return_value, t.error_message, "
    "t.session_feedback, t.created_at"
)
CONTEXT_COLUMNS = (
    "c.id, c.user_id, c.session_id, c.seq, c.context_profile, c.section, c.content, "
    "c.confidence, c.source_ids, c.created_at, c.updated_at"
)


# --- sessions ------------------------------------------------------------------------------------


@cache
def touch_session(d: SqlDialect) -> str:
    """Create the session row, or move its ``updated_at`` forward (never backwards)."""
    return (
        f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES ({d.params(4)}) "
        "ON CONFLICT (user_id, session_id) DO UPDATE SET "
        f"updated_at = {d.greatest}(sessions.updated_at, excluded.updated_at)"
    )


@cache
def get_session(d: SqlDialect) -> str:
    return (
        f"SELECT {SESSION_COLUMNS} FROM sessions "
        f"WHERE user_id = {d.param} AND session_id = {d.param}"
    )


@cache
def list_sessions(d: SqlDialect) -> str:
    """Most recently updated first; ties by session id, byte-wise on both backends."""
    return (
        f"SELECT {SESSION_COLUMNS} FROM sessions WHERE user_id = {d.param} "
        f"ORDER BY updated_at DESC, session_id{d.binary_collation}"
    )


@cache
def delete_session(d: SqlDialect) -> tuple[tuple[str, str | None], ...]:
    """The statements deleting one session, in order, each bound to ``(user_id, session_id)``
    (preceded by the entry kind when one is given); the last one's row count says whether the
    session existed."""
    key = f"user_id = {d.param} AND session_id = {d.param}"
    marks = tuple(
        (
            f"DELETE FROM session_marks WHERE kind = {d.param} AND entry_id IN "
            f"(SELECT id FROM {table} WHERE {key})",
            kind,
        )
        for kind, table in ENTRY_TABLES.items()
    )
    datasets = (
        f"DELETE FROM session_qa_datasets WHERE qa_id IN (SELECT id FROM session_qa WHERE {key})",
        None,
    )
    entries = tuple((f"DELETE FROM {table} WHERE {key}", None) for table in ENTRY_TABLES.values())
    return (*marks, datasets, *entries, (f"DELETE FROM sessions WHERE {key}", None))


# --- Q&A entries ---------------------------------------------------------------------------------


def unmarked_clause(d: SqlDialect, kind: EntryKind, alias: str) -> str:
    """The entry (table alias ``alias``) has no mark of the consumer bound next."""
    return (
        f"NOT EXISTS (SELECT 1 FROM session_marks m WHERE m.kind = '{kind}' "
        f"AND m.entry_id = {alias}.id AND m.consumer = {d.param})"
    )


def pending_ratings_clause(d: SqlDialect) -> str:
    """A rated entry (alias ``q``) whose current revision the consumer bound next has not
    spent."""
    return (
        "q.feedback_score IS NOT NULL AND NOT EXISTS (SELECT 1 FROM session_marks m "
        f"WHERE m.kind = 'qa' AND m.entry_id = q.id AND m.consumer = {d.param} "
        "AND m.rating_rev >= q.rating_rev)"
    )


def qa_filter(
    d: SqlDialect,
    user_id: object,
    session_ids: Sequence[str] | None,
    dataset_id: object | None,
    unmarked_by: str | None,
) -> tuple[str, list[Any]]:
    """The WHERE clause (over alias ``q``) shared by the Q&A listings."""
    clauses = [f"q.user_id = {d.param}"]
    params: list[Any] = [user_id]
    if session_ids is not None:
        sql, values = d.in_values("q.session_id", list(session_ids), "text")
        clauses.append(sql)
        params += values
    if dataset_id is not None:
        clauses.append(
            "EXISTS (SELECT 1 FROM session_qa_datasets d WHERE d.qa_id = q.id "
            f"AND d.dataset_id = {d.param})"
        )
        params.append(dataset_id)
    if unmarked_by is not None:
        clauses.append(unmarked_clause(d, "qa", "q"))
        params.append(unmarked_by)
    return " AND ".join(clauses), params


@cache
def set_feedback(d: SqlDialect) -> str:
    """Bound to (score, text, source, feedback_at, revision step, entry id); clearing writes
    Nones (see :func:`.rules.feedback_cleared`)."""
    p = d.param
    return (
        f"UPDATE session_qa SET feedback_score = {p}, feedback_text = {p}, "
        f"feedback_source = {p}, feedback_at = {p}, rating_rev = rating_rev + {p} WHERE id = {p}"
    )


# --- runs ----------------------------------------------------------------------------------------


@cache
def finish_run(d: SqlDialect) -> str:
    """Bound to (status, error_class, error_message, counts JSON, stages JSON, finished_at,
    run id)."""
    p = d.param
    return (
        f"UPDATE pipeline_runs SET status = {p}, error_class = {p}, error_message = {p}, "
        f"counts = {d.json_param()}, stages = {d.json_param()}, finished_at = {p} WHERE id = {p}"
    )


# --- cache ---------------------------------------------------------------------------------------


@cache
def cache_get(d: SqlDialect) -> str:
    return f"SELECT value FROM kv_cache WHERE namespace = {d.param} AND key = {d.param}"


@cache
def cache_put(d: SqlDialect) -> str:
    """Bound to (namespace, key, value, data_id, created_at); replaces value and tag."""
    return d.upsert(
        "kv_cache",
        ("namespace", "key", "value", "data_id", "created_at"),
        ("namespace", "key"),
        ("value", "data_id"),
    )
