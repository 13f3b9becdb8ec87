"""The public API end to end on PostgreSQL: the embedded store's remember → recall → forget
tests (and the graph-ingestion, failed-run, session, improve, personalization and conflict ones)
run again, unchanged, with ENGRAMDB_STORAGE_URL pointing at a fresh schema of the test server.
Permissions run again in ``test_access_api.py``.
"""

from __future__ import annotations

import pytest

from tests.integration import (
    test_cache_backend,
    test_cognee_coding_rules,
    test_cognee_datasets,
    test_cognee_engine_objects,
    test_cognee_ontology,
    test_cognee_relational_migration,
    test_conflicts,
    test_custom_graph_models,
    test_dlt_tables,
    test_failed_runs,
    test_graph_ingest,
    test_improve,
    test_improve_admission,
    test_improve_custom_tasks,
    test_improve_runs,
    test_incremental_improve,
    test_personalization,
    test_pipelines,
    test_recall_node_name,
    test_remember_recall,
    test_review_debounce,
    test_sessions,
    test_skill_feedback_loop,
    test_truth_subspace,
    test_truth_weight,
)

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

_MODULES = (
    test_remember_recall,
    test_graph_ingest,
    test_failed_runs,
    test_sessions,
    test_improve,
    test_improve_admission,
    test_improve_custom_tasks,
    test_improve_runs,
    test_incremental_improve,
    test_personalization,
    test_conflicts,
    test_cognee_datasets,
    test_cognee_ontology,
    test_custom_graph_models,
    test_cognee_coding_rules,
    test_cognee_relational_migration,
    test_dlt_tables,
    test_pipelines,
    test_cognee_engine_objects,
    test_recall_node_name,
    test_review_debounce,
    test_truth_subspace,
    test_truth_weight,
    test_skill_feedback_loop,
    test_cache_backend,
)

# Re-export every test function of those modules here: pytest collects them again in this module,
# where the autouse-like ``postgres_storage`` fixture (see pytestmark) switches the store.
#: Tests that wrap the SQLite store class itself (a deliberately broken subclass): not portable.
_SQLITE_ONLY = frozenset({"test_a_failed_recording_does_not_fail_the_recall"})
for _module in _MODULES:
    for _name in dir(_module):
        if _name.startswith("test_") and _name not in _SQLITE_ONLY:
            globals()[_name] = getattr(_module, _name)


async def test_these_tests_run_on_postgres(postgres_storage: str) -> None:
    import engramdb
    from engramdb.engine import get_engine
    from engramdb.storage.postgres import PostgresStore

    await engramdb.remember("Ada Lovelace wrote the first program.", self_improvement=False)
    store = get_engine().store
    assert isinstance(store, PostgresStore) and store.url == postgres_storage
    found = await engramdb.recall("Lovelace program", "CHUNKS_LEXICAL")
    assert "Lovelace" in found[0].text
