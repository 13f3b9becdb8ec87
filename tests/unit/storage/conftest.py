"""Fixtures of the SQLite-specific storage tests (real files under tmp_path, no mocks)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from uuid import UUID, uuid4

import numpy as np
import pytest

from engramdb.models.records import DataRecord, Dataset, Node, utcnow
from engramdb.storage.base import DocumentWrite, VectorRow
from engramdb.storage.sqlite import SqliteStore

DocBuilder = Callable[..., tuple[DocumentWrite, list[UUID]]]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "engram.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(db_path)
    await opened.setup()
    yield opened
    await opened.close()


@pytest.fixture
async def dataset(store: SqliteStore) -> Dataset:
    user = await store.get_or_create_default_user()
    return await store.get_or_create_dataset(user.id, "main")


def _chunk_doc(
    dataset_id: UUID, vectors: Sequence[np.ndarray], collection: str = "chunks"
) -> tuple[DocumentWrite, list[UUID]]:
    record = DataRecord(
        id=uuid4(),
        dataset_id=dataset_id,
        name="doc",
        content_hash=uuid4().hex,
        mime_type="text/plain",
        created_at=utcnow(),
    )
    nodes = [
        Node(id=uuid4(), dataset_id=dataset_id, type="Chunk", text=f"chunk {i}")
        for i in range(len(vectors))
    ]
    rows = [
        VectorRow(n.id, collection, np.asarray(v, dtype=np.float32))
        for n, v in zip(nodes, vectors, strict=True)
    ]
    doc = DocumentWrite(
        data=record,
        nodes=nodes,
        vectors=rows,
        lexical={collection: [(n.id, n.text) for n in nodes]},
    )
    return doc, [n.id for n in nodes]


@pytest.fixture
def chunk_doc() -> DocBuilder:
    """``chunk_doc(dataset_id, vectors, collection="chunks") -> (DocumentWrite, node ids)``."""
    return _chunk_doc


def unit_rows(seed: int, n: int, dim: int = 8) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def rows() -> Callable[[int, int], np.ndarray]:
    """``rows(seed, n)``: n random unit vectors of dimension 8."""
    return unit_rows
