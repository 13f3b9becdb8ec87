"""cognee's tool-connection paths resolve to engramdb's functions: ``cognee.tools``,
``cognee.api.v1.tools`` and ``cognee.api.v1.tools.tools``."""

from __future__ import annotations

import importlib

import pytest

import engramdb

NAMES = [
    "register_sql_connection",
    "list_sql_connections",
    "remove_sql_connection",
    "propose_sql_write",
    "list_write_proposals",
    "apply_write_proposal",
    "reject_write_proposal",
]


@pytest.mark.parametrize("name", NAMES)
def test_every_path_is_the_same_function(name: str) -> None:
    cognee = importlib.import_module("engramdb.compat.cognee")
    api = importlib.import_module("engramdb.compat.cognee.api.v1.tools")
    module = importlib.import_module("engramdb.compat.cognee.api.v1.tools.tools")
    expected = getattr(engramdb, name)
    assert getattr(cognee.tools, name) is expected
    assert getattr(api, name) is expected
    assert getattr(module, name) is expected
    assert getattr(engramdb.tools, name) is expected


async def test_propose_corrections_says_what_to_use_instead() -> None:
    from engramdb.compat.cognee.api.v1.tools import propose_corrections

    with pytest.raises(engramdb.FeatureNotAvailableError, match="propose_sql_write"):
        await propose_corrections("shop")
