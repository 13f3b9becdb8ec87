"""The session store: Q&A entries, feedback, marks, traces, guidance.

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from uuid import UUID

from engramdb.models.sessions import (
    ContextProfile,
    ContextRecord,
    EntryMark,
    FeedbackSource,
    QARecord,
    SessionRecord,
    TraceRecord,
)

__all__ = ["SessionStore"]


class SessionStore(ABC):
    """The session store: Q&A entries, feedback, marks, traces, guidance."""

    # --- sessions (issue 5) ----------
    #
    # The session store: per-user conversations that recall() and remember(session_id=...)
    # write, and improve() consumes. Rules every backend keeps:
    #
    # * A session is keyed by (user_id, session_id): every read filters by user_id, so a user
    #   never sees another user's session of the same id. A session may span datasets.
    # * Entries are durable (same database, committed before the call returns) and listed
    #   oldest first, in ``seq`` order; ``seq`` is assigned by the store, increases with
    #   insertion order and is never reused, even after deletions.
    # * Adding any entry creates its session row if missing and moves ``updated_at``, in the
    #   entry's transaction.
    # * Consumers (improve stages) process entries exactly once through marks keyed by
    #   (entry kind, entry id, consumer name): see :meth:`mark_session_entries`.

    @abstractmethod
    async def add_qa_entry(self, entry: QARecord) -> QARecord:
        """Store a Q&A entry and return it as stored (``seq`` assigned; other fields as given).

        Raises ConflictError when an entry with ``entry.id`` exists, NotFoundError when
        ``entry.user_id`` is not a user. ``dataset_ids`` are kept as a filterable set (see
        :meth:`list_qa_entries`) and read back sorted by their string form; datasets need not
        exist (a conversation outlives a deleted dataset)."""

    @abstractmethod
    async def get_qa_entry(self, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord | None:
        """The entry, or None when it does not exist *in that user's session* (an id of another
        user's or another session's entry is None too)."""

    @abstractmethod
    async def list_qa_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
        unmarked_by: str | None = None,
        last_n: int | None = None,
    ) -> list[QARecord]:
        """The user's Q&A entries, oldest first.

        ``session_ids`` None: every session of the user; an empty list: []. ``dataset_id``: only
        entries whose ``dataset_ids`` contain it. ``unmarked_by``: only entries that consumer has
        no mark on (any ``rating_rev``). ``last_n``: only the newest ``last_n`` of the selection
        (still returned oldest first)."""

    @abstractmethod
    async def count_qa_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
        unmarked_by: str | None = None,
    ) -> int:
        """How many entries :meth:`list_qa_entries` would return with the same filters."""

    @abstractmethod
    async def set_qa_feedback(
        self,
        user_id: UUID,
        session_id: str,
        qa_id: UUID,
        *,
        score: int | None,
        text: str | None,
        source: FeedbackSource,
    ) -> QARecord:
        """Rate an entry and return it as stored. ``score`` is 1..5 (the caller validates).

        * ``source="explicit"`` always applies: a given ``score`` / ``text`` replaces the stored
          one (None leaves that field as it is).
        * ``feedback_source`` follows the score: it becomes ``source`` when a score is given;
          text-only feedback keeps the stored source (``source`` when there was none).
        * ``source="auto"`` (an inferred rating) never overrides an explicit rating: when the
          stored feedback source is "explicit" nothing changes and the stored entry is returned.
        * ``rating_rev`` increases by one exactly when ``feedback_score`` changes value, in the
          same transaction; ``feedback_at`` is set whenever something changed.

        Raises NotFoundError when the entry does not exist in that user's session."""

    @abstractmethod
    async def clear_qa_feedback(self, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord:
        """Remove score, text and source (``rating_rev`` increases when a score was removed).
        Raises NotFoundError like :meth:`set_qa_feedback`."""

    @abstractmethod
    async def list_pending_ratings(
        self,
        user_id: UUID,
        consumer: str,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
    ) -> list[QARecord]:
        """Rated entries whose current rating ``consumer`` has not spent, oldest first: entries
        with a ``feedback_score`` and no mark of ``consumer`` at a ``rating_rev`` >= the entry's
        current one. Filters as in :meth:`list_qa_entries`."""

    @abstractmethod
    async def mark_session_entries(
        self, consumer: str, marks: Sequence[EntryMark]
    ) -> list[EntryMark]:
        """Record that ``consumer`` processed these entries; idempotent, in one transaction.

        A mark is new when the consumer had none on that entry, or had one at a lower
        ``rating_rev`` (which is then raised). Returns the marks that were new, in the order
        given; marks already present (at the same or a higher revision) and marks naming no
        existing entry of that kind are ignored. Marks are deleted with their entry.

        Same-transaction contract: a backend method that consumes entries while writing
        something else (e.g. feedback weights on nodes) records the marks inside *that* write's
        transaction with the backend's own step for it (SQLite:
        :func:`engramdb.storage.sqlite.sessions.mark_entries`) and applies only what the step
        reports as new, so a rating is spent exactly once even under concurrent consumers."""

    @abstractmethod
    async def add_trace_entry(self, entry: TraceRecord) -> TraceRecord:
        """Store an agent trace step and return it as stored (``seq`` assigned). Raises
        ConflictError for an existing id, NotFoundError for an unknown user."""

    @abstractmethod
    async def list_trace_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        unmarked_by: str | None = None,
        last_n: int | None = None,
    ) -> list[TraceRecord]:
        """The user's trace steps, oldest first; filters as in :meth:`list_qa_entries`."""

    @abstractmethod
    async def add_context_entry(self, entry: ContextRecord) -> tuple[ContextRecord, bool]:
        """Store a guidance entry unless its session already holds one with the same profile,
        section and :func:`~engramdb.models.sessions.normalize_content` of its content.

        Returns ``(stored, True)`` for a new entry; for a duplicate ``(existing, False)``, where
        the existing entry gained the new ``source_ids`` (no repeats, order kept), took the
        higher ``confidence`` and a new ``updated_at``. The caller validates the section against
        the profile. NotFoundError for an unknown user."""

    @abstractmethod
    async def list_context_entries(
        self,
        user_id: UUID,
        session_id: str,
        *,
        context_profile: ContextProfile | None = None,
        unmarked_by: str | None = None,
    ) -> list[ContextRecord]:
        """A session's guidance entries (of one profile, when given), oldest first. Reading
        never changes an entry."""

    @abstractmethod
    async def get_session(self, user_id: UUID, session_id: str) -> SessionRecord | None:
        """The user's session of that id, or None (another user's session is None too)."""

    @abstractmethod
    async def list_sessions(self, user_id: UUID) -> list[SessionRecord]:
        """The user's sessions, most recently updated first."""

    @abstractmethod
    async def delete_session(self, user_id: UUID, session_id: str) -> bool:
        """Delete the user's session with all its entries and their marks, in one transaction.
        False when there was no such session."""
