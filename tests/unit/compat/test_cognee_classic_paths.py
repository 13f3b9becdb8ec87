"""cognee's module paths for delete, update, datasets, visualize, config and ontologies are
engramdb's own objects."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest

import engramdb
from engramdb.ontology.resolver import FuzzyMatchingStrategy, OntologyResolver


@pytest.mark.parametrize(
    ("path", "name", "expected"),
    [
        ("engramdb.compat.cognee.api.v1.delete", "delete", engramdb.delete),
        ("engramdb.compat.cognee.api.v1.delete.delete", "delete", engramdb.delete),
        ("engramdb.compat.cognee.api.v1.update", "update", engramdb.update),
        ("engramdb.compat.cognee.api.v1.update.update", "update", engramdb.update),
        ("engramdb.compat.cognee.api.v1.datasets", "datasets", engramdb.datasets),
        ("engramdb.compat.cognee.api.v1.datasets.datasets", "datasets", engramdb.datasets),
        ("engramdb.compat.cognee.api.v1.visualize", "visualize_graph", engramdb.visualize_graph),
        (
            "engramdb.compat.cognee.api.v1.visualize.visualize",
            "visualize_graph",
            engramdb.visualize_graph,
        ),
        ("engramdb.compat.cognee.api.v1.config", "config", engramdb.config),
        ("engramdb.compat.cognee.api.v1.config.config", "config", engramdb.config),
        (
            "engramdb.compat.cognee.modules.ontology.rdf_xml.RDFLibOntologyResolver",
            "RDFLibOntologyResolver",
            OntologyResolver,
        ),
        (
            "engramdb.compat.cognee.modules.ontology.matching_strategies",
            "FuzzyMatchingStrategy",
            FuzzyMatchingStrategy,
        ),
    ],
)
def test_module_paths(path: str, name: str, expected: object) -> None:
    assert getattr(importlib.import_module(path), name) is expected


def test_top_level_names_and_signatures_follow_cognee() -> None:
    from engramdb.compat import cognee

    assert cognee.visualize is engramdb.visualize_graph
    assert cognee.datasets.delete_data is engramdb.datasets.delete_data
    assert cognee.wait_for_background_tasks is engramdb.wait_for_background_tasks
    assert list(inspect.signature(engramdb.delete).parameters) == [
        "data_id",
        "dataset_id",
        "mode",
        "user",
    ]
    update = list(inspect.signature(engramdb.update).parameters)
    assert update[:5] == ["data_id", "data", "dataset_id", "user", "node_set"]
    delete_data = inspect.signature(engramdb.datasets.delete_data).parameters
    assert list(delete_data)[:4] == ["dataset_id", "data_id", "user", "mode"]
    assert delete_data["mode"].default == "soft"
    visualize = inspect.signature(engramdb.visualize_graph).parameters
    assert {"destination_file_path", "dataset", "full", "query", "seed_node_ids"} <= set(visualize)
    assert "ontology_file_path" in inspect.signature(engramdb.cognify).parameters
    for setter in ("set_llm_config", "set_vector_db_config", "set_graph_db_config"):
        assert callable(getattr(engramdb.config, setter))


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("engramdb.compat.cognee.api.v1.delete", "delete"),
        ("engramdb.compat.cognee.api.v1.update", "update"),
        ("engramdb.compat.cognee.api.v1.datasets", "datasets"),
        ("engramdb.compat.cognee.api.v1.config", "config"),
        ("engramdb.compat.cognee.modules.pipelines.operations", "run_tasks"),
        ("engramdb.compat.cognee.infrastructure.engine.models", "DataPoint"),
    ],
)
def test_importing_the_same_named_submodule_first_keeps_the_package_name(
    package: str, name: str
) -> None:
    """``import cognee.api.v1.config.config`` before ``from cognee.api.v1.config import config``
    (a program's imports in any order) still gives the object, not the submodule: Python sets a
    package attribute to a submodule when that submodule is first imported."""
    code = (
        "import importlib\n"
        f"sub = importlib.import_module({package + '.' + name!r})\n"
        f"found = getattr(importlib.import_module({package!r}), {name!r})\n"
        f"assert found is getattr(sub, {name!r}), found\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=60)
