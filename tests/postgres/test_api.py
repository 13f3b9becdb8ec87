"""The public API end to end on PostgreSQL: the embedded store's remember → recall → forget
tests (and the graph-ingestion and failed-run ones) run again, unchanged, with
ENGRAMDB_STORAGE_URL pointing at a fresh schema of the test server.

Permissions and improve() do not exist yet; when their end-to-end tests land, add their modules
to ``_MODULES`` so they run on both backends too.
"""

from __future__ import annotations

import pytest

from tests.integration import test_failed_runs, test_graph_ingest, test_remember_recall

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

_MODULES = (test_remember_recall, test_graph_ingest, test_failed_runs)

# Re-export every test function of those modules here: pytest collects them again in this module,
# where the autouse-like ``postgres_storage`` fixture (see pytestmark) switches the store.
for _module in _MODULES:
    for _name in dir(_module):
        if _name.startswith("test_"):
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
