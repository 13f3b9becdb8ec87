"""Turn one chunked, extracted document into its records, graph and embedding requests.

The graph of a document (reference shape, importance-weight.md):

* ``Document`` (id = data id) ← ``is_part_of`` — ``Chunk`` (one per chunk)
* ``Summary`` —``summarizes``→ ``Chunk``
* ``Chunk`` —``contains``→ ``Entity`` —``is_a``→ ``EntityType``
* ``Entity`` —<relation>→ ``Entity`` for every extracted relation

Every element carries the document's ``importance_weight``. Entities are identified by their
normalised name and type within the dataset (deterministic ids), so the same entity named by
several documents is one node whose provenance lists each of them; ``EntityType`` nodes are shared
per dataset and take the weight of the last ingest that touched them (upsert semantics).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from engramdb.extract.resolve import entity_key
from engramdb.extract.types import ChunkExtraction
from engramdb.graph_schema import CHUNK_COLLECTION, ENTITY_COLLECTION, SUMMARY_COLLECTION
from engramdb.ingest.data_point_graph import add_model_graph
from engramdb.ingest.types import ChunkDraft, LoadedDocument
from engramdb.models.records import (
    DataRecord,
    Dataset,
    Edge,
    Node,
    NodeType,
    edge_id,
    stable_id,
    utcnow,
)
from engramdb.models.records import (
    chunk_id as chunk_node_id,
)

__all__ = [
    "DocumentPlan",
    "GraphBuilder",
    "PreparedDocument",
    "add_extraction",
    "entity_id",
    "entity_text",
    "entity_type_id",
    "normalise_name",
    "plan_document",
    "plan_extension",
]

#: Node types several documents share (see :func:`plan_document`).
_SHARED = frozenset({NodeType.ENTITY, NodeType.ENTITY_TYPE})
_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['’]s$")
_SPACE = re.compile(r"\s+")


def normalise_name(name: str) -> str:
    """Identity form of an entity name: NFKC, case-folded, whitespace collapsed, leading article
    and trailing possessive removed ("The Louvre's" → "louvre")."""
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    text = _POSSESSIVE.sub("", _ARTICLE.sub("", text))
    return text.casefold().strip(" .,:;!?\"'()[]{}")


def entity_id(dataset_id: UUID, name: str, type_: str) -> UUID:
    """An entity's id: from its identity key (:func:`~engramdb.extract.resolve.entity_key`,
    so "Dr. Jane Smith" and "Jane Smith" are one node) and type, within the dataset."""
    return stable_id("entity", dataset_id, entity_key(name, type_), type_.upper())


def entity_text(name: str, description: str | None) -> str:
    """An entity node's text: "name: description", or the name alone. (Its vector in
    ``ENTITY_COLLECTION`` is of the name alone.)"""
    return f"{name}: {description}" if description else name


def entity_type_id(dataset_id: UUID, type_: str) -> UUID:
    return stable_id("entity_type", dataset_id, type_.upper())


@dataclass(slots=True)
class PreparedDocument:
    """A document after loading, chunking and extraction, before embedding and writing."""

    doc: LoadedDocument
    data_id: UUID
    chunks: list[ChunkDraft]
    #: One extraction per chunk, or empty when graph extraction is off.
    extractions: list[ChunkExtraction] = field(default_factory=list)


@dataclass(slots=True)
class DocumentPlan:
    """What to write for one document, with the texts still to embed."""

    data: DataRecord
    nodes: list[Node]
    edges: list[Edge]
    lexical: dict[str, list[tuple[UUID, str]]]
    #: (node id, collection, text) to embed before writing.
    to_embed: list[tuple[UUID, str, str]]


def plan_document(
    dataset: Dataset,
    prepared: PreparedDocument,
    *,
    importance_weight: float,
    external_metadata: dict[str, Any],
    node_set: list[str],
    existing: MutableMapping[UUID, Node],
) -> DocumentPlan:
    """Build the records and graph of one document.

    ``existing`` holds stored nodes this document may share (entities, entity types): their
    node sets and aliases are merged rather than overwritten, an entity keeps the name it is
    stored with, and entities already embedded are not embedded again. The shared nodes this
    document writes are added to ``existing``, so the next document planned with it (one
    ingestion window) merges with them too.
    """
    doc, data_id, weight = prepared.doc, prepared.data_id, importance_weight
    builder = GraphBuilder(dataset.id, weight, node_set, existing)
    data = DataRecord(
        id=data_id,
        dataset_id=dataset.id,
        name=doc.name,
        content_hash=doc.content_hash,
        mime_type=doc.mime_type,
        importance_weight=weight,
        external_metadata=external_metadata,
        node_set=node_set,
        size_bytes=doc.size_bytes,
        chunk_count=len(prepared.chunks),
        created_at=utcnow(),
    )
    builder.node(
        data_id,
        NodeType.DOCUMENT,
        doc.name,
        "",
        {
            "mime_type": doc.mime_type,
            "source_path": doc.source_path,
            "chunk_count": len(prepared.chunks),
            "external_metadata": external_metadata,
            **{f"loader_{k}": v for k, v in doc.metadata.items()},
        },
    )
    extractions = prepared.extractions or [ChunkExtraction() for _ in prepared.chunks]
    for chunk, extraction in zip(prepared.chunks, extractions, strict=True):
        _add_chunk(builder, doc, data_id, chunk, extraction)
    if doc.data_points:
        locator = {"data_id": str(data_id), "document_name": doc.name}
        add_model_graph(builder, doc.data_points, locator=locator, passage=True)
    return DocumentPlan(
        data=data,
        nodes=list(builder.nodes.values()),
        edges=list(builder.edges.values()),
        lexical={CHUNK_COLLECTION: builder.lexical},
        to_embed=builder.to_embed,
    )


def _add_chunk(
    b: GraphBuilder,
    doc: LoadedDocument,
    data_id: UUID,
    chunk: ChunkDraft,
    extraction: ChunkExtraction,
) -> None:
    chunk_id = chunk_node_id(data_id, chunk.index)
    locator = {"chunk_index": chunk.index, "data_id": str(data_id), "document_name": doc.name}
    b.node(
        chunk_id,
        NodeType.CHUNK,
        f"{doc.name}#{chunk.index}",
        chunk.text,
        {
            **locator,
            "token_count": chunk.token_count,
            "start": chunk.start,
            "end": chunk.end,
            **chunk.properties,
        },
        weight=chunk.importance_weight,
    )
    b.edge(chunk_id, "is_part_of", data_id, weight=chunk.importance_weight)
    b.lexical.append((chunk_id, chunk.text))
    b.to_embed.append((chunk_id, CHUNK_COLLECTION, chunk.text))
    add_extraction(b, chunk_id, locator, chunk.importance_weight, extraction)


def add_extraction(
    b: GraphBuilder,
    chunk_id: UUID,
    locator: dict[str, Any],
    weight: float,
    extraction: ChunkExtraction,
) -> None:
    """The graph one chunk's extraction adds: its summary, entities, types and relations.
    ``locator`` is the chunk's (chunk_index, data_id, document_name); ``weight`` its weight."""
    doc_name, index = locator["document_name"], locator["chunk_index"]
    if extraction.summary.strip():
        summary_id = stable_id("summary", chunk_id)
        b.node(
            summary_id,
            NodeType.SUMMARY,
            f"summary of {doc_name}#{index}",
            extraction.summary.strip(),
            {**locator, "chunk_id": str(chunk_id), "extractor": extraction.source},
            weight=weight,
        )
        b.edge(summary_id, "summarizes", chunk_id, weight=weight)
        b.to_embed.append((summary_id, SUMMARY_COLLECTION, extraction.summary.strip()))

    names: dict[str, UUID] = {}
    for entity in extraction.entities:
        type_ = entity.type.upper()
        eid = entity_id(b.dataset_id, entity.name, type_)
        names.setdefault(normalise_name(entity.name), eid)
        tid = entity_type_id(b.dataset_id, type_)
        b.node(tid, NodeType.ENTITY_TYPE, type_.lower(), type_.lower(), {})
        props: dict[str, Any] = {
            "entity_type": type_,
            "normalized_name": entity_key(entity.name, type_),
            "extractor": extraction.source,
        }
        if entity.description:
            props["description"] = entity.description
        stored = b.existing.get(eid)
        # The first name an entity was stored with stays; later spellings become aliases.
        name = stored.name if stored is not None else entity.name
        aliases = _aliases(stored, name, [entity.name, *entity.aliases])
        if aliases:
            props["aliases"] = aliases
        text = entity_text(name, entity.description)
        if b.node(eid, NodeType.ENTITY, name, text, props):
            b.to_embed.append((eid, ENTITY_COLLECTION, name))
        b.edge(chunk_id, "contains", eid)
        b.edge(eid, "is_a", tid)
    for relation in extraction.relations:
        source = names.get(normalise_name(relation.source))
        target = names.get(normalise_name(relation.target))
        if source is None or target is None or source == target or not relation.relation:
            continue
        properties = {**relation.properties, "chunk_id": str(chunk_id)}
        b.edge(source, relation.relation, target, properties)
    if extraction.data_points:
        located = {**locator, "chunk_id": str(chunk_id)}
        add_model_graph(
            b, extraction.data_points, locator=located, passage=False, linked_from=chunk_id
        )


def _aliases(stored: Node | None, name: str, new: Sequence[str]) -> list[str]:
    """An entity node's ``aliases``: those it is stored with, then ``new``, without its
    ``name``; first seen first."""
    previous = stored.properties.get("aliases") if stored is not None else None
    known = [a for a in previous if isinstance(a, str)] if isinstance(previous, list) else []
    return [a for a in dict.fromkeys([*known, *new]) if a != name]


def plan_extension(
    dataset: Dataset,
    data: DataRecord,
    chunks: Sequence[Node],
    extractions: Sequence[ChunkExtraction],
    existing: MutableMapping[UUID, Node],
) -> DocumentPlan:
    """The graph a stored document gains from its queued extraction (:mod:`.queue`): exactly
    what :func:`plan_document` adds on top of the document and its chunks, with the weight and
    node sets the document was stored with. ``chunks`` are its stored chunk nodes, in order."""
    builder = GraphBuilder(dataset.id, data.importance_weight, list(data.node_set), existing)
    for chunk, extraction in zip(chunks, extractions, strict=True):
        locator = {
            "chunk_index": chunk.properties["chunk_index"],
            "data_id": str(data.id),
            "document_name": data.name,
        }
        add_extraction(builder, chunk.id, locator, chunk.importance_weight, extraction)
    return DocumentPlan(
        data=data,
        nodes=list(builder.nodes.values()),
        edges=list(builder.edges.values()),
        lexical={},
        to_embed=builder.to_embed,
    )


class GraphBuilder:
    def __init__(
        self,
        dataset_id: UUID,
        weight: float,
        node_set: list[str],
        existing: MutableMapping[UUID, Node],
    ) -> None:
        self.dataset_id = dataset_id
        self.weight = weight
        self.node_set = node_set
        self.existing = existing
        self.nodes: dict[UUID, Node] = {}
        self.edges: dict[UUID, Edge] = {}
        self.lexical: list[tuple[UUID, str]] = []
        self.to_embed: list[tuple[UUID, str, str]] = []

    def node(
        self,
        node_id: UUID,
        type_: str,
        name: str,
        text: str,
        properties: dict[str, Any],
        *,
        weight: float | None = None,
        tags: Sequence[str] = (),
    ) -> bool:
        """Add a node once per document; True when it is new to the store (needs a vector).
        ``tags`` are node-set names of this node beside the document's."""
        if node_id in self.nodes:
            return False
        stored = self.existing.get(node_id)
        tags = list(dict.fromkeys([*self.node_set, *tags]))
        if stored is not None:
            previous = stored.properties.get("node_set") or []
            tags = list(dict.fromkeys([*previous, *tags]))
        self.nodes[node_id] = Node(
            id=node_id,
            dataset_id=self.dataset_id,
            type=type_,
            name=name,
            text=text,
            properties={**properties, "node_set": tags},
            importance_weight=self.weight if weight is None else weight,
        )
        if type_ in _SHARED:
            self.existing[node_id] = self.nodes[node_id]
        return stored is None

    def edge(
        self,
        source: UUID,
        relation: str,
        target: UUID,
        properties: dict[str, Any] | None = None,
        *,
        weight: float | None = None,
    ) -> None:
        new_id = edge_id(source, relation, target)
        if new_id in self.edges:
            return
        self.edges[new_id] = Edge(
            id=new_id,
            dataset_id=self.dataset_id,
            source_id=source,
            target_id=target,
            relation=relation,
            properties=properties or {},
            importance_weight=self.weight if weight is None else weight,
        )
