"""The store's rules, written once for every backend.

Backends own SQL; what a write *means* lives here, as small pure functions the backends call
inside their own transactions (the decision and its effect commit together):

* :func:`feedback_change` -- "explicit beats auto", the source follows the score, and
  ``rating_rev`` moves exactly when the score changes;
* :func:`normalise_marks` -- which marks a call records (kinds checked, one mark per entry);
* :func:`new_run` / :func:`finished_status` -- what a pipeline run record holds;
* :func:`query_vector` -- the query vector a search may use (1-D, non-empty, finite);

Every check raises an :mod:`engramdb.errors` class whose message says how to fix the input.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import LiteralString
from uuid import UUID, uuid4

import numpy as np

from engramdb.errors import EngramValidationError
from engramdb.models.records import PipelineRun, RunStatus, utcnow
from engramdb.models.sessions import EntryMark, FeedbackSource, QARecord
from engramdb.storage.types import FloatArray

__all__ = [
    "ENTRY_TABLES",
    "FeedbackChange",
    "feedback_change",
    "feedback_cleared",
    "finished_status",
    "new_run",
    "normalise_marks",
    "query_vector",
]

#: The table of each session entry kind (marks name an entry by kind and id).
ENTRY_TABLES: dict[str, LiteralString] = {
    "qa": "session_qa",
    "trace": "session_traces",
    "context": "session_context",
}


# --- feedback ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FeedbackChange:
    """The stored feedback after a call, and by how much ``rating_rev`` moves (0 or 1)."""

    score: int | None
    text: str | None
    source: FeedbackSource | None
    rev_step: int


def feedback_change(
    entry: QARecord, score: int | None, text: str | None, source: FeedbackSource
) -> FeedbackChange | None:
    """What :meth:`Store.set_qa_feedback` writes over ``entry``; None: nothing changes.

    An inferred rating (``source="auto"``) never overrides an explicit one; the source follows
    the score (text-only feedback keeps the stored score's source); ``rating_rev`` steps exactly
    when the score changes value."""
    if source == "auto" and entry.feedback_source == "explicit":
        return None
    new_score = entry.feedback_score if score is None else score
    new_text = entry.feedback_text if text is None else text
    new_source = source if score is not None else (entry.feedback_source or source)
    stored = (entry.feedback_score, entry.feedback_text, entry.feedback_source)
    if (new_score, new_text, new_source) == stored:
        return None
    return FeedbackChange(new_score, new_text, new_source, int(new_score != entry.feedback_score))


def feedback_cleared(entry: QARecord) -> FeedbackChange:
    """What :meth:`Store.clear_qa_feedback` writes: nothing left, the revision steps when a
    score was removed."""
    return FeedbackChange(None, None, None, int(entry.feedback_score is not None))


# --- session marks ----------------------------------------------------------------------------


def normalise_marks(marks: Sequence[EntryMark]) -> list[EntryMark]:
    """The marks one call records: every kind known (else EngramValidationError), and one mark
    per entry -- the highest ``rating_rev`` asked for, at the place of the entry's first mark.

    A backend records each returned mark when its entry exists and the consumer's stored mark
    (if any) is at a lower revision, and reports those as new, in this order."""
    best: dict[tuple[str, UUID], EntryMark] = {}
    for mark in marks:
        if mark.kind not in ENTRY_TABLES:
            raise EngramValidationError(
                f"unknown session entry kind {mark.kind!r}; use 'qa', 'trace' or 'context'"
            )
        key = (mark.kind, mark.entry_id)
        known = best.get(key)
        if known is None or mark.rating_rev > known.rating_rev:
            best[key] = mark if known is None else _at_rev(known, mark.rating_rev)
    return list(best.values())


def _at_rev(mark: EntryMark, rating_rev: int) -> EntryMark:
    return replace(mark, rating_rev=rating_rev)


# --- pipeline runs ------------------------------------------------------------------------------


def new_run(
    dataset_id: UUID,
    pipeline: str,
    *,
    graph_writing: bool,
    hostname: str,
    run_id: UUID | None = None,
) -> PipelineRun:
    """A run as :meth:`Store.start_run` records it: started now by this process and host, with
    the id ``run_id`` (a new one when None)."""
    return PipelineRun(
        id=run_id or uuid4(),
        dataset_id=dataset_id,
        pipeline=pipeline,
        status=RunStatus.STARTED,
        graph_writing=graph_writing,
        pid=os.getpid(),
        hostname=hostname,
        started_at=utcnow(),
    )


def finished_status(status: RunStatus | str) -> RunStatus:
    """The status :meth:`Store.finish_run` may record (completed or errored)."""
    try:
        value = RunStatus(status)
    except ValueError:
        value = None
    if value is None or value is RunStatus.STARTED:
        raise EngramValidationError(
            f"finish_run needs status 'completed' or 'errored', got {str(status)!r}."
        )
    return value


# --- vectors -------------------------------------------------------------------------------------


def query_vector(query: object) -> FloatArray:
    """``query`` as the 1-D float32 array a vector search uses.

    Raises EngramValidationError for an empty or multi-dimensional query, and for one holding
    NaN or infinity (its distances would be NaN and its ranking meaningless). A dimension that
    differs from the stored vectors' is the backend's EmbeddingMismatchError."""
    try:
        vector = np.asarray(query, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EngramValidationError(
            f"The query vector must be a sequence of numbers ({exc}); pass the embedder's output."
        ) from exc
    if vector.ndim != 1 or vector.shape[0] == 0:
        raise EngramValidationError(
            f"The query vector must be one non-empty row of numbers, got shape {vector.shape}; "
            "embed the query text with the dataset's embedding model and pass that row."
        )
    if not bool(np.all(np.isfinite(vector))):
        raise EngramValidationError(
            "The query vector holds NaN or infinite values; check the embedding provider's "
            "output (or the vector arithmetic that built it) and embed the query again."
        )
    return vector
