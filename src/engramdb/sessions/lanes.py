"""The session, trace and session_context lanes of recall().

* **session** — the session's Q&A entries matched by keyword: the query and each entry's
  question, context and answer are split into lower-case words of two or more characters, common
  function words are dropped, and an entry's score is the number of query words it contains.
  Entries with no shared word are left out; the best ``top_k`` come back, ties newest first.
* **trace** — the same over each agent trace step's function name (also split at ``_``),
  status, parameters, return value, memory query and context, feedback and error message.
* **session_context** — the session's active guidance of one profile, rendered as one block
  (read-only: serving it changes nothing).

Every lane reads only the calling user's session of that id and contributes nothing without a
``session_id``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from engramdb.models.records import User
from engramdb.models.results import (
    ResponseAgentTraceEntry,
    ResponseQAEntry,
    ResponseSessionContextEntry,
)
from engramdb.models.sessions import ContextProfile, QARecord, TraceRecord
from engramdb.sessions.guidance import render_guidance
from engramdb.storage.base import Store

__all__ = [
    "STOPWORDS",
    "qa_response",
    "search_session",
    "search_traces",
    "session_context",
    "tokenize",
    "trace_response",
]

_WORD = re.compile(r"\w+")

#: Function words: nearly every turn contains them, so they say nothing about relevance (and a
#: session hit short-circuits the graph search under session_first).
_STOPWORD_LIST = """
    a an and are as at be been but by can could did do does for from had has have he her his
    how i if in into is it its me my no not of on or our she so than that the their them then
    there these they this to was we were what when where which who whom why will with would you
    your yours about also am any just more most much only other some such very
    """
STOPWORDS = frozenset(_STOPWORD_LIST.split())


def tokenize(text: str) -> set[str]:
    """Lower-case words of two or more characters, function words left out."""
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 2 and w not in STOPWORDS}


def _ranked(query: str, items: Iterable[tuple[int, str, object]], top_k: int) -> list[object]:
    """Items (seq, text, payload) sharing a word with ``query``: most shared words first, ties
    newest (highest seq) first."""
    wanted = tokenize(query)
    if not wanted:
        return []
    scored = []
    for seq, text, payload in items:
        hits = len(wanted & tokenize(text))
        if hits:
            scored.append((hits, seq, payload))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [payload for _, _, payload in scored[:top_k]]


def qa_response(entry: QARecord) -> ResponseQAEntry:
    return ResponseQAEntry(
        time=entry.created_at.isoformat(),
        qa_id=str(entry.id),
        question=entry.question,
        context=entry.context,
        answer=entry.answer,
        feedback_text=entry.feedback_text,
        feedback_score=entry.feedback_score,
        used_session_context_ids=[str(i) for i in entry.used_context_ids] or None,
    )


def trace_response(entry: TraceRecord) -> ResponseAgentTraceEntry:
    return ResponseAgentTraceEntry(
        trace_id=str(entry.id),
        time=entry.created_at.isoformat(),
        origin_function=entry.origin_function,
        status=entry.status,
        memory_query=entry.memory_query,
        memory_context=entry.memory_context,
        method_params=entry.method_params,
        method_return_value=entry.method_return_value,
        error_message=entry.error_message,
        session_feedback=entry.session_feedback,
    )


async def search_session(
    store: Store, user: User, session_id: str, query: str, top_k: int
) -> list[ResponseQAEntry]:
    entries = await store.list_qa_entries(user.id, session_ids=[session_id])
    items = ((e.seq, f"{e.question}\n{e.context}\n{e.answer}", e) for e in entries)
    return [qa_response(e) for e in _ranked(query, items, top_k) if isinstance(e, QARecord)]


def _trace_text(entry: TraceRecord) -> str:
    parts = [
        entry.origin_function,
        entry.origin_function.replace("_", " "),
        entry.status,
        entry.memory_query,
        entry.memory_context,
        entry.session_feedback,
        entry.error_message,
        json.dumps(entry.method_params, ensure_ascii=False),
        json.dumps(entry.method_return_value, ensure_ascii=False),
    ]
    return "\n".join(parts)


async def search_traces(
    store: Store, user: User, session_id: str, query: str, top_k: int
) -> list[ResponseAgentTraceEntry]:
    entries = await store.list_trace_entries(user.id, session_ids=[session_id])
    items = ((e.seq, _trace_text(e), e) for e in entries)
    return [trace_response(e) for e in _ranked(query, items, top_k) if isinstance(e, TraceRecord)]


async def session_context(
    store: Store, user: User, session_id: str, profile: ContextProfile
) -> list[ResponseSessionContextEntry]:
    entries = await store.list_context_entries(user.id, session_id, context_profile=profile)
    block = render_guidance(entries, profile)
    if not block:
        return []
    return [ResponseSessionContextEntry(content=block, context_profile=profile)]
