"""Types shared by loaders, chunkers and the pipeline."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

__all__ = [
    "ChunkDraft",
    "Chunker",
    "LoadedDocument",
    "TokenCounter",
    "document_extras",
    "with_extras",
]

#: Counts model tokens in a text (the embedder's ``count_tokens``).
TokenCounter = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class LoadedDocument:
    """One input item after loading: its extracted text plus where it came from.

    ``content_hash`` is the sha256 hex digest of the raw content (the file's bytes, or the UTF-8
    bytes of a text), the identity used for per-dataset dedupe.
    """

    name: str
    text: str
    mime_type: str
    content_hash: str
    size_bytes: int
    source_path: str | None = None
    #: Loader-specific facts (CSV header, JSON keys, PDF page count, ...).
    metadata: dict[str, Any] = field(default_factory=dict)
    #: This document's own ``external_metadata``, merged over the call's (an imported memory's
    #: ids and timestamps, :mod:`engramdb.migration`); its keys win.
    external_metadata: dict[str, Any] = field(default_factory=dict)
    #: This document's own node-set tags, added to the call's.
    node_set: tuple[str, ...] = ()
    #: False keeps the document verbatim: chunks only, the extractor is not run on it.
    derive_graph: bool = True
    #: The graph the document's source already holds (an imported entity or fact): written
    #: with its first chunk instead of running the extractor.
    given_graph: ChunkExtraction | None = None
    #: The data id to store it under, when it replaces an item (``update()`` keeps the id);
    #: None: derived from the dataset and ``content_hash``.
    data_id: UUID | None = None
    #: Custom graph models (DataPoints) the document consists of, instead of a text to chunk
    #: (``add_data_points``); see :mod:`engramdb.ingest.data_point_graph`.
    data_points: tuple[Any, ...] = ()


def document_extras(doc: LoadedDocument) -> dict[str, Any]:
    """The per-document fields of ``doc`` beyond its text, JSON-serialisable (``add()`` stages
    them with the text; :func:`with_extras` restores them)."""
    extras: dict[str, Any] = {}
    if doc.external_metadata:
        extras["external_metadata"] = doc.external_metadata
    if doc.node_set:
        extras["node_set"] = list(doc.node_set)
    if not doc.derive_graph:
        extras["derive_graph"] = False
    if doc.given_graph is not None:
        g = doc.given_graph
        extras["given_graph"] = {
            "entities": [[e.name, e.type, e.description] for e in g.entities],
            "relations": [[r.source, r.relation, r.target, r.properties] for r in g.relations],
            "source": g.source,
        }
    return extras


def with_extras(doc: LoadedDocument, extras: Any) -> LoadedDocument:
    """``doc`` with the fields :func:`document_extras` recorded (anything else is ignored)."""
    if not isinstance(extras, dict) or not extras:
        return doc
    graph = extras.get("given_graph")
    given = None
    if isinstance(graph, dict):
        given = ChunkExtraction(
            entities=[ExtractedEntity(*e) for e in graph.get("entities", [])],
            relations=[
                ExtractedRelation(s, r, t, properties=dict(p))
                for s, r, t, p in graph.get("relations", [])
            ],
            source=str(graph.get("source", "")),
        )
    metadata = extras.get("external_metadata")
    return replace(
        doc,
        external_metadata=dict(metadata) if isinstance(metadata, dict) else {},
        node_set=tuple(str(t) for t in extras.get("node_set", ())),
        derive_graph=extras.get("derive_graph", True) is not False,
        given_graph=given,
    )


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A chunk before it is written: text, position and the weight it carries."""

    text: str
    index: int
    token_count: int
    importance_weight: float
    #: Character offsets of the chunk in the document text (start inclusive, end exclusive).
    start: int = 0
    end: int = 0
    properties: dict[str, Any] = field(default_factory=dict)


class Chunker(ABC):
    """Splits a document into chunks.

    A chunker must copy ``importance_weight`` onto every chunk it returns (the reference's rule:
    "a chunker you write yourself has to copy the weight onto its chunks explicitly"). Chunks are
    numbered from 0 in document order, never empty, and at most ``max_tokens`` tokens as
    measured by ``count_tokens`` (a single token-run longer than that is split hard).
    """

    def __init__(self, max_tokens: int = 256) -> None:
        if max_tokens < 8:
            raise EngramValidationError(f"max_tokens must be at least 8, got {max_tokens}")
        self.max_tokens = max_tokens

    @abstractmethod
    def chunk(
        self,
        document: LoadedDocument,
        *,
        importance_weight: float,
        count_tokens: TokenCounter,
    ) -> list[ChunkDraft]: ...
