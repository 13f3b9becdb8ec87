"""The learning stages: extract_agent_context and distill_sessions (the simplest useful
versions; see docs/improve.md).

* ``extract_agent_context`` (session_ids given and ``AUTO_FEEDBACK`` on) turns the agent trace
  steps of the sessions into ``agent`` guidance of the same session, without an LLM: a failed
  step becomes a ``failure_lessons`` entry ("search_flights failed: timeout"), a step that
  carries session feedback becomes a ``success_patterns`` entry (or joins its failure lesson).
  Guidance entries are deduplicated by the session store, so re-running adds nothing.
* ``distill_sessions`` (session_ids given) writes each session's accepted guidance (confidence
  >= 0.5, both profiles; the personal ``preferences`` section excepted) into the dataset as one
  ``session_learnings`` document per session and run, grouped by section, so graph search can
  find what the conversation established. With
  ``IMPROVE_DISTILL_MAX_BATCHES_PER_RUN`` set, at most that many batches of 6 entries per session
  are curated; the rest are marked covered without curation (``entries_uncurated``).

Both consume entries exactly once per dataset through consumer marks.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from uuid import UUID

from engramdb.errors import EngramError
from engramdb.improvement.bridging import ingest_texts
from engramdb.improvement.context import ImproveContext, StageOutcome, consumer_name
from engramdb.models.sessions import AGENT_SECTIONS, QA_SECTIONS, ContextRecord, EntryMark
from engramdb.sessions.guidance import add_guidance

if TYPE_CHECKING:
    from engramdb.storage.base import Store

__all__ = [
    "BATCH_ENTRIES",
    "LEARNINGS_NODE_SET",
    "SessionDistillation",
    "distill_session_entries",
    "distill_sessions",
    "extract_agent_context",
    "extract_session_agent_context",
    "is_learnings_name",
    "learnings_name",
]

#: The node set of the documents that hold what conversations established: distill's
#: per-session learnings documents (:func:`learnings_name`), and any the application writes.
LEARNINGS_NODE_SET = "session_learnings"


def learnings_name(session_id: str) -> str:
    """The name of distill's learnings document of one session."""
    return f"session {session_id} learnings"


def is_learnings_name(name: str) -> bool:
    """Whether ``name`` is one :func:`learnings_name` gives (a document distill wrote)."""
    head, tail = learnings_name("\x00").split("\x00")
    return name.startswith(head) and name.endswith(tail) and len(name) > len(head + tail)


logger = logging.getLogger(__name__)

#: Guidance entries one curator batch covers.
BATCH_ENTRIES = 6
#: Confidence an entry needs to be distilled.
ACCEPTED_CONFIDENCE = 0.5
#: Guidance sections that stay personal (never distilled into the shared graph).
PERSONAL_SECTIONS = frozenset({"preferences"})


async def extract_session_agent_context(
    store: Store, user_id: UUID, session_id: str, consumer: str
) -> tuple[int, list[str], int]:
    """Turn the session's trace steps ``consumer`` has not seen into ``agent`` guidance (see the
    module docstring) and mark them seen; returns (steps read, ids of the guidance entries
    those steps produced or matched, how many of those entries are new)."""
    steps = await store.list_trace_entries(user_id, session_ids=[session_id], unmarked_by=consumer)
    touched: list[str] = []
    created = 0
    for step in steps:
        lessons: list[tuple[str, str]] = []
        feedback = " ".join(step.session_feedback.split())[:300]
        if step.status == "error":
            error = " ".join(step.error_message.split())[:300] or "an error"
            text = f"{step.origin_function} failed: {error}"
            lessons.append(("failure_lessons", f"{text} ({feedback})" if feedback else text))
        elif feedback:
            lessons.append(("success_patterns", f"{step.origin_function}: {feedback}"))
        for section, content in lessons:
            entry, new = await add_guidance(
                store,
                user_id=user_id,
                session_id=session_id,
                profile="agent",
                section=section,
                content=content,
                source_ids=[str(step.id)],
            )
            touched.append(str(entry.id))
            created += int(new)
    await store.mark_session_entries(consumer, [EntryMark("trace", s.id) for s in steps])
    return len(steps), list(dict.fromkeys(touched)), created


async def extract_agent_context(ctx: ImproveContext) -> StageOutcome:
    consumer = consumer_name("extract_agent_context", ctx.dataset)
    steps_seen = created = 0
    for sid in ctx.session_ids:
        seen, _, new = await extract_session_agent_context(ctx.store, ctx.user.id, sid, consumer)
        steps_seen += seen
        created += new
    if not steps_seen:
        return StageOutcome("already_completed", "no_new_entries")
    return StageOutcome(counts={"steps": steps_seen, "entries": created})


def _learnings_text(session_id: str, entries: list[ContextRecord]) -> str:
    lines = [f"Session learnings of session {session_id}:"]
    for section in (*QA_SECTIONS, *AGENT_SECTIONS):
        picked = [e for e in entries if e.section == section]
        if picked:
            lines.append(f"{section.replace('_', ' ').capitalize()}:")
            lines += [f"- {e.content}" for e in sorted(picked, key=lambda e: e.seq)]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class SessionDistillation:
    """What distilling one session into a dataset did (``session.distill_session``'s answer).

    ``status``: ``no_gated_entries`` (no guidance entry of the session passes the gate:
    confidence >= 0.5, not a personal preference), ``no_new_entries`` (every one was distilled
    into this dataset before), ``completed`` (``documents`` holds the learnings document
    written)."""

    status: Literal["completed", "no_gated_entries", "no_new_entries"]
    documents: tuple[str, ...] = ()
    uncurated_entries: int = 0
    entries_seen: int = 0


def _gated(entries: list[ContextRecord]) -> list[ContextRecord]:
    # stated preferences are personal: they go to the user's preference node
    # (update_user_preferences), never into the dataset's shared graph
    return [
        e
        for e in entries
        if e.confidence >= ACCEPTED_CONFIDENCE and e.section not in PERSONAL_SECTIONS
    ]


async def distill_session_entries(
    ctx: ImproveContext, session_id: str, *, max_batches: int | None = None
) -> SessionDistillation:
    """Distill one session's new gated guidance into the dataset as one ``session_learnings``
    document and mark the session's entries consumed for this dataset (the caller holds the
    dataset lock). ``max_batches`` (None: ``IMPROVE_DISTILL_MAX_BATCHES_PER_RUN``; 0: no cap)
    bounds the batches of :data:`BATCH_ENTRIES` curated; the rest are consumed uncurated.
    An EngramError while writing leaves every entry pending and propagates."""
    consumer = consumer_name("distill_sessions", ctx.dataset)
    cap = ctx.settings.improve_distill_max_batches_per_run if max_batches is None else max_batches
    entries = await ctx.store.list_context_entries(ctx.user.id, session_id, unmarked_by=consumer)
    if not entries:
        every = await ctx.store.list_context_entries(ctx.user.id, session_id)
        return SessionDistillation("no_new_entries" if _gated(every) else "no_gated_entries")
    accepted = _gated(entries)
    curated = accepted if cap == 0 else accepted[: cap * BATCH_ENTRIES]
    documents: tuple[str, ...] = ()
    if curated:
        text = _learnings_text(session_id, curated)
        if await ingest_texts(ctx, [(learnings_name(session_id), text)], LEARNINGS_NODE_SET):
            documents = (text,)
    await ctx.store.mark_session_entries(consumer, [EntryMark("context", e.id) for e in entries])
    if not accepted:
        every = await ctx.store.list_context_entries(ctx.user.id, session_id)
        status: Literal["completed", "no_gated_entries", "no_new_entries"] = (
            "no_new_entries" if _gated(every) else "no_gated_entries"
        )
        return SessionDistillation(status, entries_seen=len(entries))
    return SessionDistillation(
        "completed", documents, len(accepted) - len(curated), entries_seen=len(entries)
    )


async def distill_sessions(ctx: ImproveContext) -> StageOutcome:
    documents = completed = failed = uncurated = seen = 0
    for sid in ctx.session_ids:
        try:
            done = await distill_session_entries(ctx, sid)
        except EngramError as exc:  # this session's entries stay pending for the next run
            logger.warning("distilling session %s failed: %s", sid, exc)
            failed += 1
            seen += 1
            continue
        if not done.entries_seen:
            continue
        seen += done.entries_seen
        documents += len(done.documents)
        uncurated += done.uncurated_entries
        completed += 1
    if not seen:
        return StageOutcome("already_completed", "no_new_entries")
    counts = {
        "documents": documents,
        "sessions_completed": completed,
        "sessions_failed": failed,
        "entries_uncurated": uncurated,
    }
    if failed:
        return StageOutcome("errored", f"{failed} session(s) could not be distilled", counts)
    return StageOutcome(counts=counts)
