"""The session-bridging stages: feedback_weights, persist_session_qa, persist_agent_traces.

Each consumes session entries exactly once per dataset through consumer marks (see
:meth:`engramdb.storage.base.Store.mark_session_entries`):

* ``feedback_weights`` spends each rating (at its ``rating_rev``) in the same transaction that
  moves the used nodes' and edges' ``feedback_weight`` toward ``(score - 1) / 4``.
* ``persist_session_qa`` and ``persist_agent_traces`` ingest entries as ordinary documents of
  the dataset (so they get provenance, embeddings and extraction like any other text), then mark
  them. Document ids are deterministic per content, so a run killed between the write and the
  mark re-ingests nothing: the next run finds the documents present, and marks.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence

from engramdb.improvement.context import ImproveContext, StageOutcome, consumer_name, for_dataset
from engramdb.ingest.chunkers import CsvChunker, resolve_chunker
from engramdb.ingest.pipeline import IngestOptions, ingest_documents
from engramdb.ingest.types import LoadedDocument
from engramdb.models.sessions import EntryMark, QARecord, TraceRecord
from engramdb.storage.base import FeedbackUpdate

__all__ = ["feedback_weights", "ingest_texts", "persist_agent_traces", "persist_session_qa"]

logger = logging.getLogger(__name__)

#: Sessions whose trace windows one persist pass builds together.
_SESSIONS_PER_PASS = 10


def rating_target(score: int) -> float:
    """The weight a rating pulls toward: 1 → 0.0, 3 → 0.5, 5 → 1.0."""
    return (score - 1) / 4


async def feedback_weights(ctx: ImproveContext) -> StageOutcome:
    consumer = consumer_name("feedback_weights", ctx.dataset)
    pending = for_dataset(
        await ctx.store.list_pending_ratings(
            ctx.user.id, consumer, session_ids=list(ctx.session_ids)
        ),
        ctx.dataset,
    )
    if not pending:
        return StageOutcome("already_completed", "no_new_ratings")
    updates = [
        FeedbackUpdate(
            mark=EntryMark("qa", qa.id, qa.rating_rev),
            target=rating_target(qa.feedback_score or 3),
            node_ids=qa.used_node_ids,
            edge_ids=qa.used_edge_ids,
        )
        for qa in pending
    ]
    alpha = ctx.options.feedback_alpha or ctx.settings.improve_feedback_alpha
    report = await ctx.store.apply_feedback_weights(ctx.dataset.id, consumer, updates, alpha=alpha)
    return StageOutcome(
        counts={"ratings": report.ratings, "nodes": report.nodes, "edges": report.edges}
    )


def _text_document(name: str, text: str) -> LoadedDocument:
    raw = text.encode("utf-8")
    return LoadedDocument(
        name=name,
        text=text,
        mime_type="text/plain",
        content_hash=hashlib.sha256(raw).hexdigest(),
        size_bytes=len(raw),
    )


async def _ingest(ctx: ImproveContext, docs: Sequence[LoadedDocument], tag: str) -> int:
    """Ingest ``docs`` under the dataset lock improve already holds; documents ingested."""
    eng, settings = ctx.engine, ctx.settings
    options = IngestOptions(
        importance_weight=0.5,
        chunker=resolve_chunker(
            None,
            max_tokens=settings.chunk_max_tokens,
            overlap_tokens=settings.chunk_overlap_tokens,
        ),
        external_metadata={"source": tag},
        node_set=[tag],
        lock_timeout=settings.engramdb_lock_timeout,
        csv_chunker=CsvChunker(max_tokens=settings.chunk_max_tokens),
        extractor=eng.extractor,
        take_lock=False,
    )
    dataset = await eng.bind_embedding(ctx.dataset)
    result = await ingest_documents(eng.store, eng.embedder, dataset, docs, options)
    return result.counts.get("documents", 0)


async def ingest_texts(ctx: ImproveContext, named: Sequence[tuple[str, str]], tag: str) -> int:
    """Ingest ``(name, text)`` pairs as documents of the dataset; documents ingested."""
    return await _ingest(ctx, [_text_document(name, text) for name, text in named], tag)


def qa_text(qa: QARecord) -> str:
    """The document a Q&A entry becomes (a note is its text alone)."""
    if not qa.question.strip():
        return qa.answer.strip()
    return f"Question: {qa.question.strip()}\nAnswer: {qa.answer.strip()}"


async def persist_session_qa(ctx: ImproveContext) -> StageOutcome:
    consumer = consumer_name("persist_session_qa", ctx.dataset)
    entries = for_dataset(
        await ctx.store.list_qa_entries(
            ctx.user.id,
            session_ids=list(ctx.session_ids),
            unmarked_by=consumer,
        ),
        ctx.dataset,
    )
    if not entries:
        return StageOutcome("already_completed", "no_new_entries")
    docs, marks = [], []
    for qa in entries:
        text = qa_text(qa)
        marks.append(EntryMark("qa", qa.id))
        if text:
            docs.append(_text_document(f"session {qa.session_id} q&a {qa.seq}", text))
    written = await _ingest(ctx, docs, "session_qa") if docs else 0
    spent = await ctx.store.mark_session_entries(consumer, marks)
    return StageOutcome(
        counts={"entries": len(spent), "documents": written, "sessions": len(ctx.session_ids)}
    )


def _trace_line(step: TraceRecord) -> str:
    params = json.dumps(step.method_params, sort_keys=True, default=str)[:500]
    line = f"{step.origin_function}({params}) -> {step.status}"
    if step.status == "error" and step.error_message:
        line += f": {step.error_message[:500]}"
    elif step.method_return_value is not None:
        line += f": {json.dumps(step.method_return_value, default=str)[:500]}"
    if step.memory_query:
        line += f" [query: {step.memory_query[:200]}]"
    if step.session_feedback:
        line += f" [feedback: {step.session_feedback[:300]}]"
    return line


def _window_text(session_id: str, steps: Sequence[TraceRecord]) -> str:
    head = f"Agent trace of session {session_id}, steps {steps[0].seq}-{steps[-1].seq}:"
    return "\n".join([head, *(f"- {_trace_line(s)}" for s in steps)])


async def persist_agent_traces(ctx: ImproveContext) -> StageOutcome:
    consumer = consumer_name("persist_agent_traces", ctx.dataset)
    backlog: dict[str, list[TraceRecord]] = {}
    for sid in ctx.session_ids:  # the backlog the run started with
        steps = await ctx.store.list_trace_entries(
            ctx.user.id, session_ids=[sid], unmarked_by=consumer
        )
        if steps:
            backlog[sid] = steps
    if not backlog:
        return StageOutcome("already_completed", "no_new_entries")
    per_window = ctx.settings.improve_trace_window_steps
    max_windows = ctx.settings.improve_trace_windows_per_run
    windows_done: dict[str, int] = dict.fromkeys(backlog, 0)
    total_windows = steps_done = documents = 0
    while backlog and (max_windows == 0 or total_windows < max_windows):
        # one window from each of up to 10 sessions with pending steps, fewest windows first
        chosen = sorted(backlog, key=lambda s: (windows_done[s], s))[:_SESSIONS_PER_PASS]
        if max_windows:
            chosen = chosen[: max_windows - total_windows]
        docs, marks = [], []
        for sid in chosen:
            steps = backlog[sid]
            window = steps if per_window == 0 else steps[:per_window]
            backlog[sid] = steps[len(window) :]
            if not backlog[sid]:
                del backlog[sid]
            windows_done[sid] += 1
            docs.append(_text_document(f"session {sid} trace", _window_text(sid, window)))
            marks += [EntryMark("trace", s.id) for s in window]
        documents += await _ingest(ctx, docs, "agent_traces")  # a failure moves no mark
        steps_done += len(await ctx.store.mark_session_entries(consumer, marks))
        total_windows += len(chosen)
    return StageOutcome(
        counts={
            "sessions": len(windows_done),
            "windows": total_windows,
            "steps": steps_done,
            "documents": documents,
            "windows_pending": sum(
                1 if per_window == 0 else -(-len(s) // per_window) for s in backlog.values()
            ),
        }
    )
