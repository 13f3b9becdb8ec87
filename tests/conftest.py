"""Shared test setup.

Every test gets its own data directory and a clean configuration; no test reads the developer's
~/.engramdb or .env. ``--fast`` skips tests marked slow or postgres (CI runs them all).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from engramdb import register_improve_admission_check
from engramdb.engine import set_engine
from engramdb.settings import Settings, config

pytest_plugins = ["tests.support.openai_server"]

# Variables a developer may have exported that would change what the tests exercise.
_ENV_PREFIXES = (
    "LLM_",
    "EMBEDDING_",
    "ENGRAMDB_",
    "PERSONALIZATION_",
    "PREFERENCE_",
    "IMPROVE_",
    "ONTOLOGY_",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        default=False,
        help="skip tests marked slow or postgres (CI runs everything)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--fast"):
        return
    skip = pytest.mark.skip(reason="--fast given: slow/postgres tests skipped locally")
    for item in items:
        if "slow" in item.keywords or "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def isolated_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A fresh data dir and default settings (fake embedder) for every test."""
    for key in list(os.environ):
        if key.upper().startswith(_ENV_PREFIXES):
            monkeypatch.delenv(key, raising=False)
    data_dir = tmp_path_factory.mktemp("engramdb-data")
    monkeypatch.setenv("ENGRAMDB_DATA_DIR", str(data_dir))
    monkeypatch.setenv("EMBEDDING_PROVIDER", "fake")
    monkeypatch.setenv("EMBEDDING_DIMENSIONS", "64")
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))  # no stray .env file
    config.reset()
    set_engine(None)
    yield data_dir
    set_engine(None)
    config.reset()
    register_improve_admission_check(None)  # process-wide: a test's check must not outlive it


@pytest.fixture
def settings() -> Settings:
    return config.settings
