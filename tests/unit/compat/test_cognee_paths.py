"""The cognee module paths engramdb mirrors are engramdb's own objects (no copies)."""

from __future__ import annotations

import importlib
import inspect

import pytest

import engramdb
from engramdb import pipelines
from engramdb.compat import cognee
from engramdb.models import datapoints


def test_the_top_level_has_engramdb_and_the_classic_verbs() -> None:
    for name in ("add", "cognify", "search", "remember", "recall", "forget", "config"):
        assert getattr(cognee, name) is getattr(engramdb, name)
    assert cognee.SearchType is engramdb.SearchType
    assert cognee.prune.prune_system is engramdb.prune.prune_system
    assert set(engramdb.__all__) | {"add", "cognify", "prune", "search"} == set(dir(cognee))
    assert cognee.memify is engramdb.memify
    assert cognee.run_custom_pipeline is engramdb.run_custom_pipeline
    with pytest.raises(AttributeError, match="no attribute 'no_such_verb'"):
        cognee.no_such_verb  # noqa: B018


@pytest.mark.parametrize(
    ("path", "name", "expected"),
    [
        ("engramdb.compat.cognee.modules.search.types", "SearchType", engramdb.SearchType),
        ("engramdb.compat.cognee.api.v1.search", "SearchType", engramdb.SearchType),
        ("engramdb.compat.cognee.api.v1.search", "search", engramdb.search),
        ("engramdb.compat.cognee.api.v1.add", "add", engramdb.add),
        ("engramdb.compat.cognee.api.v1.cognify", "cognify", engramdb.cognify),
        ("engramdb.compat.cognee.api.v1.prune", "prune", engramdb.prune),
        ("engramdb.compat.cognee.api.v1.cognify.cognify", "cognify", engramdb.cognify),
        ("engramdb.compat.cognee.low_level", "DataPoint", engramdb.DataPoint),
        ("engramdb.compat.cognee.infrastructure.engine", "DataPoint", engramdb.DataPoint),
        ("engramdb.compat.cognee.infrastructure.engine.models.Edge", "Edge", datapoints.Edge),
        ("engramdb.compat.cognee.modules.pipelines", "Task", engramdb.Task),
        ("engramdb.compat.cognee.modules.pipelines", "run_tasks", engramdb.run_tasks),
        ("engramdb.compat.cognee.modules.pipelines", "run_pipeline", pipelines.run_pipeline),
        ("engramdb.compat.cognee.modules.pipelines.tasks.task", "task", pipelines.task),
        (
            "engramdb.compat.cognee.modules.pipelines.operations.run_pipeline",
            "run_pipeline",
            pipelines.run_steps,
        ),
        ("engramdb.compat.cognee.pipelines", "run_pipeline", pipelines.run_steps),
        ("engramdb.compat.cognee.pipelines", "Drop", engramdb.Drop),
        ("engramdb.compat.cognee.tasks.storage", "add_data_points", pipelines.add_data_points),
    ],
)
def test_module_paths(path: str, name: str, expected: object) -> None:
    assert getattr(importlib.import_module(path), name) is expected


def test_signatures_follow_cognee() -> None:
    prune = inspect.signature(engramdb.prune.prune_system)
    assert [(p.name, p.default) for p in prune.parameters.values()] == [
        ("graph", True),
        ("vector", True),
        ("metadata", False),
        ("cache", True),
    ]
    assert list(inspect.signature(engramdb.prune.prune_data).parameters) == []
    add = inspect.signature(engramdb.add).parameters
    assert list(add)[:4] == ["data", "dataset_name", "user", "node_set"]
    assert add["dataset_name"].default == "main_dataset"
    search = inspect.signature(engramdb.search).parameters
    assert list(search)[:3] == ["query_text", "query_type", "user"]
    assert search["query_type"].default is engramdb.SearchType.HYBRID_COMPLETION
    assert search["top_k"].default == 15
    assert inspect.signature(engramdb.cognify).parameters["datasets"].default is None


async def test_get_default_user_is_the_user_the_verbs_run_as() -> None:
    from engramdb.compat.cognee.modules.engine.operations.setup import setup
    from engramdb.compat.cognee.modules.users.methods import get_default_user
    from engramdb.engine import get_engine

    await setup()
    assert await get_engine().store.exists() is False  # tables only, as cognee's setup()
    user = await get_default_user()
    assert user.is_default
    added = await engramdb.add("Owls hunt at night.", user=user)
    (dataset,) = await engramdb.list_datasets()
    assert dataset.id == added.dataset_id and dataset.owner_id == user.id
    assert await get_default_user() == user
