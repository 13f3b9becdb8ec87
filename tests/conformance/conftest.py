"""Fixtures of the backend-agnostic Store conformance suite.

Every test gets a fresh, set-up store from the ``store`` fixture, parametrised over
:data:`BACKENDS`. To run the suite against another backend, register a :class:`Backend` whose
factory returns a store for the given per-test directory; calling the factory twice with the
same directory must give two store objects on the SAME database (tests use that to play
"another process"); ``fixtures`` names fixtures the backend needs before its factory runs (the
PostgreSQL backend: the session's test server, see ``tests/postgres/server.py``). Tests never
name a backend.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engramdb.models.records import Dataset, User
from engramdb.storage.base import Store
from engramdb.storage.sqlite import SqliteStore
from tests.postgres import server
from tests.postgres.server import PostgresServer


@dataclass(frozen=True)
class Backend:
    name: str
    factory: Callable[[Path], Store]
    marks: tuple[Any, ...] = field(default_factory=tuple)
    fixtures: tuple[str, ...] = ()


def _sqlite(directory: Path) -> Store:
    return SqliteStore(directory / "data" / "engram.db")


postgres_server = server.postgres_server  # the session fixture, visible to this directory

#: The PostgreSQL test server, set by the ``backend`` fixture before the factory runs.
_postgres_server: list[PostgresServer] = []


def _postgres(directory: Path) -> Store:
    from engramdb.storage.postgres import PostgresStore

    # One schema per test directory: a fresh, empty store per test, shared by its store objects.
    return PostgresStore(_postgres_server[-1].schema_url(str(directory)))


BACKENDS: list[Backend] = [
    Backend("sqlite", _sqlite),
    Backend("postgres", _postgres, marks=(pytest.mark.postgres,), fixtures=("postgres_server",)),
]


@pytest.fixture(params=[pytest.param(b, id=b.name, marks=b.marks) for b in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    chosen: Backend = request.param
    for name in chosen.fixtures:
        value = request.getfixturevalue(name)
        if isinstance(value, PostgresServer) and value not in _postgres_server:
            _postgres_server.append(value)
    return chosen


@pytest.fixture
def open_store(backend: Backend, tmp_path: Path) -> Callable[[], Store]:
    """Open another (not set-up) store object on this test's database."""
    return lambda: backend.factory(tmp_path)


@pytest.fixture
async def unready_store(open_store: Callable[[], Store]) -> AsyncIterator[Store]:
    store = open_store()
    yield store
    await store.close()


@pytest.fixture
async def store(open_store: Callable[[], Store]) -> AsyncIterator[Store]:
    """A set-up store; every test also proves the integrity invariants hold afterwards."""
    opened = open_store()
    await opened.setup()
    yield opened
    report = await opened.check_integrity()
    await opened.close()
    assert report.ok, report.violations


@pytest.fixture
async def user(store: Store) -> User:
    return await store.get_or_create_default_user()


@pytest.fixture
async def dataset(store: Store, user: User) -> Dataset:
    return await store.get_or_create_dataset(user.id, "main")


@pytest.fixture
async def other_dataset(store: Store, user: User) -> Dataset:
    return await store.get_or_create_dataset(user.id, "other")
