"""Entity resolution end to end on PostgreSQL: the embedded store's tests
(tests/integration/test_entity_resolution.py) run again, unchanged, on a fresh schema."""

from __future__ import annotations

import pytest

from tests.integration import test_entity_resolution

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

for _name in dir(test_entity_resolution):
    if _name.startswith("test_"):
        globals()[_name] = getattr(test_entity_resolution, _name)
