"""The crash test of the embedded store, repeated on PostgreSQL: a worker process is SIGKILLed
in the middle of ingesting (its open transaction dies with its connection), and two processes
race on one dataset (the per-dataset advisory lock serialises them). Afterwards the integrity
checks find no violation, every stored document is complete, and the next remember() completes
the rest. The worker inherits ENGRAMDB_STORAGE_URL from ``postgres_storage``."""

from __future__ import annotations

import pytest

from tests.integration.test_crash_and_concurrency import (
    test_sigkill_mid_ingest_leaves_whole_documents_only,
    test_two_processes_remember_into_one_dataset,
)

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

__all__ = [
    "test_sigkill_mid_ingest_leaves_whole_documents_only",
    "test_two_processes_remember_into_one_dataset",
]
