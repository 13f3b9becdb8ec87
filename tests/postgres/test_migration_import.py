"""Imports of other memory systems' exports on PostgreSQL: the per-document metadata and node
sets, the given graph's edge properties, staged imports and forget, as on the embedded store."""

from __future__ import annotations

import pytest

from tests.integration.test_migration_import import (
    test_add_then_cognify_keeps_each_documents_mode,
    test_importing_again_skips_what_is_there_and_forget_removes_the_import,
    test_mem0_platform_export_one_document_per_memory_with_its_metadata,
    test_zep_hybrid_keeps_the_dumps_graph_and_extracts_the_episodes,
)

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

__all__ = [
    "test_add_then_cognify_keeps_each_documents_mode",
    "test_importing_again_skips_what_is_there_and_forget_removes_the_import",
    "test_mem0_platform_export_one_document_per_memory_with_its_metadata",
    "test_zep_hybrid_keeps_the_dumps_graph_and_extracts_the_episodes",
]
