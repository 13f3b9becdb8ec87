"""Very common query words are left out of large BM25 queries (they cost every row they match
and weigh almost nothing); small stores are never pruned."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from functools import partial
from uuid import uuid4

from engramdb.models.records import DataRecord, Dataset, Node, utcnow
from engramdb.storage.base import DocumentWrite
from engramdb.storage.sqlite import SqliteStore
from engramdb.storage.sqlite.graph import prune_common_terms

Work = Callable[[sqlite3.Connection], list[str]]


async def _write(store: SqliteStore, dataset: Dataset, texts: list[str]) -> None:
    nodes = [Node(id=uuid4(), dataset_id=dataset.id, type="Chunk", text=t) for t in texts]
    data = DataRecord(
        id=uuid4(),
        dataset_id=dataset.id,
        name="d",
        content_hash=uuid4().hex,
        mime_type="text/plain",
        created_at=utcnow(),
    )
    await store.write_document(
        DocumentWrite(data=data, nodes=nodes, lexical={"chunks": [(n.id, n.text) for n in nodes]})
    )


async def test_common_words_are_pruned_only_past_the_budget(
    store: SqliteStore, dataset: Dataset
) -> None:
    texts = [f"harbor boats number {i}" for i in range(40)] + ["harbor lighthouse keeper"]
    await _write(store, dataset, texts)
    tokens = ["harbor", "lighthouse"]
    read = store._db.read  # SQLite-specific helper under test
    assert await _run(read, partial(prune_common_terms, tokens=tokens)) == tokens
    pruned = await _run(read, partial(prune_common_terms, tokens=tokens, budget=10))
    assert pruned == ["lighthouse"]  # the rarest word stays, the one in every row goes
    only_common = await _run(
        read, partial(prune_common_terms, tokens=["harbor", "boats"], budget=5)
    )
    assert len(only_common) == 1  # at least one word always remains

    hits = await store.lexical_search("chunks", "harbor lighthouse", [dataset.id], 3)
    top = await store.get_nodes([hits[0].node_id])
    assert top[0].text == "harbor lighthouse keeper"


async def _run(read: Callable[[Work], list[str]], work: Work) -> list[str]:
    return await asyncio.to_thread(read, work)
