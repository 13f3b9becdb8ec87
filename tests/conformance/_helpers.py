"""Builders of documents for the conformance suite (small dimensions, deterministic ids)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from uuid import UUID, uuid4

import numpy as np
import numpy.typing as npt

from engramdb.models.records import DataRecord, Edge, Node, NodeType, stable_id, utcnow
from engramdb.storage.base import DocumentWrite, VectorRow

DIM = 16
FloatArray = npt.NDArray[np.float32]


def unit_rows(rng: np.random.Generator, n: int, dim: int = DIM) -> FloatArray:
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def data_record(dataset_id: UUID, content_hash: str | None = None, **fields: object) -> DataRecord:
    values: dict[str, object] = {
        "id": uuid4(),
        "dataset_id": dataset_id,
        "name": "doc.txt",
        "content_hash": content_hash or uuid4().hex,
        "mime_type": "text/plain",
        "created_at": utcnow(),
    }
    values.update(fields)
    return DataRecord.model_validate(values)


def entity(dataset_id: UUID, name: str, **fields: object) -> Node:
    values: dict[str, object] = {
        "id": stable_id(dataset_id, "entity", name),
        "dataset_id": dataset_id,
        "type": NodeType.ENTITY.value,
        "name": name,
        "text": name,
    }
    values.update(fields)
    return Node.model_validate(values)


def edge(source: Node, target: Node, relation: str = "mentions") -> Edge:
    return Edge(
        id=stable_id(source.id, relation, target.id),
        dataset_id=source.dataset_id,
        source_id=source.id,
        target_id=target.id,
        relation=relation,
    )


@dataclass
class Doc:
    """A document write plus handles on what it contains."""

    write: DocumentWrite
    chunks: list[Node]
    vectors: FloatArray
    entities: list[Node] = field(default_factory=list)

    @property
    def data(self) -> DataRecord:
        return self.write.data


def make_doc(
    dataset_id: UUID,
    texts: Sequence[str],
    *,
    rng: np.random.Generator | None = None,
    vectors: FloatArray | None = None,
    entities: Sequence[Node] = (),
    entity_vectors: FloatArray | None = None,
    content_hash: str | None = None,
    collection: str = "chunks",
    extra_edges: Sequence[Edge] = (),
) -> Doc:
    """Chunks with vectors and full text, chained by 'next' edges, each pointing at every entity
    ('mentions'); entities get vectors in 'entities' and full text in 'entities'."""
    rng = rng or np.random.default_rng()
    record = data_record(dataset_id, content_hash)
    chunks = [
        Node(id=uuid4(), dataset_id=dataset_id, type=NodeType.CHUNK.value, text=text)
        for text in texts
    ]
    if vectors is None:
        vectors = unit_rows(rng, len(chunks))
    edges = [edge(a, b, "next") for a, b in itertools.pairwise(chunks)]
    edges += [edge(c, e) for c in chunks for e in entities]
    edges += list(extra_edges)
    rows = [VectorRow(c.id, collection, vectors[i]) for i, c in enumerate(chunks)]
    lexical: dict[str, list[tuple[UUID, str]]] = {collection: [(c.id, c.text) for c in chunks]}
    if entities:
        ev = entity_vectors if entity_vectors is not None else unit_rows(rng, len(entities))
        rows += [VectorRow(e.id, "entities", ev[i]) for i, e in enumerate(entities)]
        lexical["entities"] = [(e.id, e.name) for e in entities]
    write = DocumentWrite(
        data=record, nodes=[*chunks, *entities], edges=edges, vectors=rows, lexical=lexical
    )
    return Doc(write=write, chunks=chunks, vectors=vectors, entities=list(entities))


def brute_force(
    ids: Sequence[UUID], rows: FloatArray, query: FloatArray, k: int
) -> list[tuple[UUID, float]]:
    sims = rows @ query / (np.linalg.norm(rows, axis=1) * np.linalg.norm(query))
    order = np.argsort(1.0 - sims, kind="stable")[:k]
    return [(ids[i], float(1.0 - sims[i])) for i in order]
