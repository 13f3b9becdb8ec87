"""A database built by the previous release's migrations opens, upgrades and keeps its data.

``fixtures/schema_4b5cf70.json`` freezes the migration SQL of both backends as released at
commit 4b5cf70. The test builds a database with those statements only -- either all of them
(the released schema) or all but the last (a database one migration behind, so that ``setup``
really applies one) -- writes records, graph and a session entry with plain SQL of that
schema, then opens it with the current store. ``setup`` must bring it to the current version
and every row must read back unchanged through the Store API. When a new migration is added,
the frozen list stays as it is and this test exercises the new migration on an old database.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

from engramdb.models.access import Grant
from engramdb.models.records import utcnow
from engramdb.storage.base import Store
from engramdb.storage.sqlite.rows import to_time

FROZEN: dict[str, Any] = json.loads(
    (Path(__file__).parent / "fixtures" / "schema_4b5cf70.json").read_text()
)

Execute = Callable[[str, tuple[Any, ...]], None]


@contextmanager
def _raw(store: Store) -> Iterator[Execute]:
    """Plain driver access to the store's (not set-up) database, committed at the end."""
    if store.dialect.name == "sqlite":
        path = Path(store.url.removeprefix("sqlite:///"))
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        try:
            yield lambda sql, params: conn.execute(sql, _sqlite_values(params)) and None
            conn.commit()
        finally:
            conn.close()
        return
    import psycopg

    from engramdb.storage.postgres.config import parse_url

    target = parse_url(store.url)
    with psycopg.connect(target.conninfo) as pg:
        pg.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        pg.execute(f"CREATE SCHEMA IF NOT EXISTS {target.schema}")
        pg.execute(f"SET search_path TO {target.schema}, public")
        yield lambda sql, params: pg.execute(sql.encode(), params) and None


def _sqlite_values(params: tuple[Any, ...]) -> tuple[Any, ...]:
    def one(value: Any) -> Any:
        if isinstance(value, UUID):
            return str(value)
        if isinstance(value, datetime):
            return to_time(value)
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, list):
            return json.dumps([str(v) for v in value])
        return value

    return tuple(one(v) for v in params)


def _build_old_database(run: Execute, backend: str, upto: int) -> None:
    frozen = FROZEN[backend]
    run(frozen["bookkeeping"], ())
    p = "?" if backend == "sqlite" else "%s"
    for migration in frozen["migrations"]:
        if migration["version"] > upto:
            break
        for statement in migration["statements"]:
            run(statement, ())
        run(
            f"INSERT INTO schema_migrations (version, name, applied_at) VALUES ({p}, {p}, {p})",
            (migration["version"], migration["name"], utcnow()),
        )


class Seed:
    """What the old database holds, written with the released schema's SQL."""

    def __init__(self) -> None:
        self.user, self.dataset, self.data = uuid4(), uuid4(), uuid4()
        self.chunk, self.entity, self.edge, self.qa = uuid4(), uuid4(), uuid4(), uuid4()
        self.at = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)

    def write(self, run: Execute, backend: str) -> None:
        p = "?" if backend == "sqlite" else "%s"

        def insert(table: str, **row: Any) -> None:
            names = ", ".join(row)
            run(
                f"INSERT INTO {table} ({names}) VALUES ({', '.join([p] * len(row))})",
                tuple(row.values()),
            )

        at = self.at
        insert("users", id=self.user, email="old@example.org", is_default=True, created_at=at)
        insert(
            "datasets",
            id=self.dataset,
            owner_id=self.user,
            name="old",
            embedding_model="m",
            embedding_dim=4,
            created_at=at,
        )
        insert(
            "data",
            id=self.data,
            dataset_id=self.dataset,
            name="notes.txt",
            content_hash="h1",
            mime_type="text/plain",
            importance_weight=0.7,
            external_metadata='{"k": "v"}',
            node_set='["hr"]',
            size_bytes=12,
            chunk_count=1,
            created_at=at,
        )
        for node, type_, name in ((self.chunk, "Chunk", ""), (self.entity, "Entity", "Ada")):
            insert(
                "nodes",
                id=node,
                dataset_id=self.dataset,
                type=type_,
                name=name,
                text=f"{type_} text",
                properties='{"chunk_index": 0}',
                importance_weight=0.7,
                feedback_weight=0.25,
                created_at=at,
                updated_at=at,
            )
            insert("node_sources", node_id=node, data_id=self.data)
        insert(
            "edges",
            id=self.edge,
            dataset_id=self.dataset,
            source_id=self.chunk,
            target_id=self.entity,
            relation="contains",
            properties="{}",
            importance_weight=0.5,
            feedback_weight=0.5,
        )
        insert("edge_sources", edge_id=self.edge, data_id=self.data)
        insert("sessions", user_id=self.user, session_id="s1", created_at=at, updated_at=at)
        insert(
            "session_qa",
            id=self.qa,
            user_id=self.user,
            session_id="s1",
            origin="recall",
            question="who?",
            context="ctx",
            answer="Ada",
            search_type="CHUNKS",
            used_node_ids=[self.chunk],
            used_edge_ids=[],
            feedback_score=4,
            feedback_source="explicit",
            rating_rev=1,
            created_at=at,
        )


def _last(backend: str) -> int:
    return int(FROZEN[backend]["migrations"][-1]["version"])


@pytest.mark.parametrize("behind", [0, 1], ids=["released", "one-migration-behind"])
async def test_an_old_database_opens_upgrades_and_keeps_its_data(
    unready_store: Store, behind: int
) -> None:
    store, backend = unready_store, unready_store.dialect.name
    seed = Seed()
    with _raw(store) as run:
        _build_old_database(run, backend, _last(backend) - behind)
        seed.write(run, backend)

    assert await store.exists()  # looking never migrates
    await store.setup()
    await store.setup()  # idempotent

    user = await store.get_default_user()
    assert user is not None and (user.id, user.email) == (seed.user, "old@example.org")
    dataset = await store.find_dataset(seed.user, "old")
    assert dataset is not None and dataset.id == seed.dataset and dataset.embedding_dim == 4
    data = await store.get_data(seed.data)
    assert data is not None and data.created_at == seed.at
    assert (data.importance_weight, data.external_metadata) == (0.7, {"k": "v"})
    chunk, entity = await store.get_nodes([seed.chunk, seed.entity])
    assert (entity.name, entity.feedback_weight, entity.properties) == (
        "Ada",
        0.25,
        {"chunk_index": 0},
    )
    assert chunk.data_ids == [seed.data] and entity.data_ids == [seed.data]
    (edge,) = await store.incident_edges([seed.chunk], direction="out")
    assert (edge.id, edge.target_id, edge.data_ids) == (seed.edge, seed.entity, [seed.data])
    qa = await store.get_qa_entry(seed.user, "s1", seed.qa)
    assert qa is not None and (qa.answer, qa.feedback_score, qa.rating_rev) == ("Ada", 4, 1)
    assert qa.used_node_ids == [seed.chunk] and qa.created_at == seed.at

    # the upgraded database takes what the newest migration added (grants) and keeps working
    other = await store.create_user("new@example.org")
    grant = Grant(
        dataset_id=seed.dataset,
        grantee_id=other.id,
        permission="read",
        granted_by=seed.user,
        created_at=utcnow(),
    )
    await store.add_grant(grant)
    assert await store.granted_permissions(seed.dataset, other.id) == frozenset({"read"})
    assert (await store.check_integrity()).ok
    assert (await store.delete_data(seed.data)).nodes == 2
