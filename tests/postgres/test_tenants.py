"""Tenants and roles end to end on PostgreSQL: the embedded store's SDK-level tests
(``tests/integration/test_permissions_tenants.py``) run again, unchanged, with
ENGRAMDB_STORAGE_URL pointing at a fresh schema of the test server."""

from __future__ import annotations

import pytest

from tests.integration import test_permissions_tenants
from tests.integration.test_permissions_tenants import world  # noqa: F401 - the tests' fixture

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

for _name in dir(test_permissions_tenants):
    if _name.startswith("test_"):
        globals()[_name] = getattr(test_permissions_tenants, _name)
