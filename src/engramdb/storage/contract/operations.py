"""Lifecycle, pipeline runs, locks, cache and diagnostics.

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

from engramdb.errors import FeatureNotAvailableError, error_class_name, scrub_secrets
from engramdb.models.improve import StageResult
from engramdb.models.records import PipelineRun, RunStatus
from engramdb.storage.capabilities import Capability
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.types import (
    IntegrityReport,
)

__all__ = ["OperationsStore"]


class OperationsStore(ABC):
    """Lifecycle, pipeline runs, locks, cache and diagnostics, and the optional features the
    store declares (:attr:`capabilities`)."""

    #: The optional features this store implements (see :class:`.Capability`).
    capabilities: frozenset[Capability] = frozenset()
    #: How this store spells SQL (placeholders, JSON access); what ``query_sql`` speaks.
    dialect: SqlDialect

    def supports(self, capability: Capability) -> bool:
        """True when the store implements ``capability``. Not a coroutine."""
        return capability in self.capabilities

    async def query_sql(
        self, sql: str, params: Sequence[object], *, timeout: float
    ) -> list[tuple[Any, ...]]:
        """:attr:`Capability.CYPHER`: every row of ONE read-only SELECT written in
        :attr:`dialect` over the ``nodes`` and ``edges`` tables, read in one consistent snapshot
        and never able to change anything. Raises StatementTimeoutError (an
        EngramValidationError) when it runs longer than ``timeout`` seconds, and
        FeatureNotAvailableError on a store that does not declare the capability."""
        raise FeatureNotAvailableError(
            f"{type(self).__name__} does not run read-only SQL queries (no CYPHER capability)."
        )

    # --- lifecycle ----------

    @abstractmethod
    async def setup(self) -> None:
        """Create the database if needed and apply pending numbered migrations. Idempotent; safe
        to call from several processes at once."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections. The store may not be used afterwards."""

    @abstractmethod
    async def exists(self) -> bool:
        """True when the database has been created (``setup`` ran) and holds a default user.
        Must not create anything."""

    # --- pipeline runs ----------

    @abstractmethod
    async def start_run(
        self,
        dataset_id: UUID,
        pipeline: str,
        *,
        graph_writing: bool = True,
        run_id: UUID | None = None,
    ) -> PipelineRun:
        """Record a run as started by this process (pid and hostname are stored), with the id
        ``run_id`` when given (a background run announces its id before it starts)."""

    @abstractmethod
    async def finish_run(
        self,
        run_id: UUID,
        status: RunStatus,
        *,
        error_class: str | None = None,
        error_message: str | None = None,
        counts: dict[str, int] | None = None,
        stages: Sequence[StageResult] | None = None,
    ) -> None:
        """Mark a run completed or errored. ``error_message`` must already be scrubbed;
        ``stages`` are an improve run's stage results (read back by :meth:`list_runs`)."""

    async def fail_run(
        self, run_id: UUID, exc: BaseException, *, counts: dict[str, int] | None = None
    ) -> str:
        """Mark a run errored by ``exc``: the error's class name (a provider's own, see
        :func:`~engramdb.errors.error_class_name`) and its message with secrets scrubbed -- the
        one rule every pipeline records a failure by. Returns the scrubbed message."""
        message = scrub_secrets(str(exc))
        await self.finish_run(
            run_id,
            RunStatus.ERRORED,
            error_class=error_class_name(exc),
            error_message=message,
            counts=counts,
        )
        return message

    @abstractmethod
    async def list_runs(self, dataset_ids: Sequence[UUID]) -> list[PipelineRun]:
        """Runs of these datasets, newest first."""

    @abstractmethod
    async def reap_dead_runs(self) -> int:
        """Mark errored (error_class ``ProcessDied``) every run still 'started' whose process is
        gone (same host, pid not alive). Returns how many were marked."""

    # --- locks ----------

    @abstractmethod
    def lock(self, name: str, *, timeout: float | None = None) -> Any:
        """An async context manager holding a cross-process lock named ``name`` (e.g.
        ``dataset:<uuid>``). Waits (polling, never surfacing 'database is locked') up to
        ``timeout`` seconds, then raises LockTimeoutError. A lock held by a dead process is
        taken over."""

    # --- cache ----------

    @abstractmethod
    async def cache_get(self, namespace: str, key: str) -> str | None:
        """A cached value (e.g. an LLM answer keyed by model + prompt hash), or None."""

    @abstractmethod
    async def cache_put(
        self, namespace: str, key: str, value: str, *, data_id: UUID | None = None
    ) -> None:
        """Store or replace a cached value. Committed at once, outside any document write, so
        a retried ingestion after a crash finds what the failed one already paid for. A value
        tagged with ``data_id`` is derived from that item's content: forgetting the item (or its
        dataset, or everything) deletes it too."""

    # --- diagnostics ----------

    @abstractmethod
    async def backup(self, dest: Path) -> Path:
        """A consistent copy of the whole store at ``dest`` (a new file), taken while the store
        is in use: SQLite's online backup API. Backends that back up with their own tools raise
        FeatureNotAvailableError naming them."""

    @abstractmethod
    async def check_integrity(self) -> IntegrityReport:
        """Check cross-table invariants: no chunk without its data record, no node without
        provenance, no edge to a missing node, no vector without its node, no full-text row
        without its node, no provenance row pointing at a missing data record."""
