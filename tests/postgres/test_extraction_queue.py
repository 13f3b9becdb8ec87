"""The extraction queue's tests (tests/integration/test_extraction_queue.py) on PostgreSQL: the
queue, the extended documents and the kill test on the server backend. The worker inherits
ENGRAMDB_STORAGE_URL from ``postgres_storage``."""

from __future__ import annotations

import pytest

from tests.integration.test_extraction_queue import (
    test_a_killed_process_loses_no_queued_extraction,
    test_forget_removes_a_queued_document,
    test_separate_remembers_share_calls_and_build_the_batched_graph,
    test_stream_of_remembers_costs_under_a_third_of_a_call_per_document,
)

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

__all__ = [
    "test_a_killed_process_loses_no_queued_extraction",
    "test_forget_removes_a_queued_document",
    "test_separate_remembers_share_calls_and_build_the_batched_graph",
    "test_stream_of_remembers_costs_under_a_third_of_a_call_per_document",
]
