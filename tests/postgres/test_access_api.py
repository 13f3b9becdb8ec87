"""Users, API keys and permissions end to end on PostgreSQL: the embedded store's SDK-level
tests (``tests/integration/test_permissions.py``, ``test_users_and_keys.py``) run again,
unchanged, with ENGRAMDB_STORAGE_URL pointing at a fresh schema of the test server."""

from __future__ import annotations

import pytest

from tests.integration import test_permissions, test_users_and_keys
from tests.integration.test_permissions import world  # noqa: F401 - the tests' fixture

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

# Re-export every test function of those modules here: pytest collects them again in this module,
# where the ``postgres_storage`` fixture (see pytestmark) switches the store.
for _module in (test_permissions, test_users_and_keys):
    for _name in dir(_module):
        if _name.startswith("test_"):
            globals()[_name] = getattr(_module, _name)
