"""The framework integrations on PostgreSQL: the OpenAI Agents SDK session and tool tests and
the LlamaIndex retriever and memory-block tests run again, unchanged, with
ENGRAMDB_STORAGE_URL pointing at a fresh schema of the test server."""

from __future__ import annotations

import pytest

pytest.importorskip("agents", reason="needs the openai-agents extra")
pytest.importorskip("llama_index.core", reason="needs the llamaindex extra")

from tests.integration import test_llamaindex_integration, test_openai_agents_integration

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

#: Tests that run elsewhere whatever the storage URL says: a subprocess with its own
#: environment, and an explicit engine on its own data directory.
_NOT_STORAGE = frozenset(
    {
        "test_the_example_runs",
        "test_an_explicit_engine_holds_the_session",
        "test_an_explicit_engine_and_user_are_used",
    }
)
for _module in (test_openai_agents_integration, test_llamaindex_integration):
    for _name in dir(_module):
        if _name.startswith("test_") and _name not in _NOT_STORAGE:
            assert _name not in globals(), f"two integration tests are called {_name}"
            globals()[_name] = getattr(_module, _name)
