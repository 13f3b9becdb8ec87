"""The extraction contract shared by the LLM and offline extractors and the pipeline."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

__all__ = [
    "ENTITY_TYPES",
    "ChunkExtraction",
    "ExtractedEntity",
    "ExtractedRelation",
    "Extractor",
    "Usage",
]

#: Entity types the offline extractors emit (an LLM may add others; they are kept as given,
#: upper-cased).
ENTITY_TYPES = (
    "PERSON",
    "PLACE",
    "ORGANIZATION",
    "DATE",
    "TIME",
    "MONEY",
    "NUMBER",
    "EVENT",
    "PRODUCT",
    "WORK",
    "CONCEPT",
)


@dataclass(frozen=True, slots=True)
class ExtractedEntity:
    """An entity mentioned in a chunk. ``name`` is the surface form (e.g. "Andreas");
    ``type`` one of :data:`ENTITY_TYPES` or an LLM's own upper-case label; ``aliases`` the
    other spellings the chunk or its document names it by ("Smith", "Dr. Jane Smith" for
    "Jane Smith"; see :mod:`engramdb.extract.resolve`)."""

    name: str
    type: str
    description: str = ""
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExtractedRelation:
    """``source`` —relation→ ``target``; both are names of entities in the same extraction.
    ``relation`` is a short snake_case verb phrase ("born_in", "settled_in", "works_for")."""

    source: str
    relation: str
    target: str
    #: Facts about the relation itself, kept on its edge (an imported fact's validity:
    #: ``valid_at``, ``invalid_at``); extractors leave it empty.
    properties: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class ChunkExtraction:
    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)
    #: A one- to three-sentence summary of the chunk (extractive when offline).
    summary: str = ""
    #: Which extractor produced this ("llm", "heuristic", "spacy", or "<name>-fallback").
    source: str = ""
    #: Instances of a custom graph model extracted from the chunk (``cognify(graph_model=)``).
    data_points: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class Usage:
    """LLM accounting for one operation."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    #: Chunks whose LLM extraction failed and fell back to the offline extractor.
    fallbacks: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cache_hits += other.cache_hits
        self.fallbacks += other.fallbacks

    def as_dict(self) -> dict[str, int]:
        return {
            "llm_calls": self.calls,
            "llm_prompt_tokens": self.prompt_tokens,
            "llm_completion_tokens": self.completion_tokens,
            "llm_cache_hits": self.cache_hits,
            "extraction_fallbacks": self.fallbacks,
        }


class Extractor(ABC):
    """Turns chunk texts into entities, relations and a summary per chunk.

    Contract: returns exactly one :class:`ChunkExtraction` per input text, in order; never
    raises for odd input (empty text, prompt-injection text, huge entity counts) — outputs are
    bounded (at most ``max_entities`` entities and ``max_relations`` relations per chunk) and
    relation endpoints always name entities of the same extraction.
    """

    name: str
    max_entities: int = 50
    max_relations: int = 100

    @abstractmethod
    async def extract(self, texts: Sequence[str]) -> list[ChunkExtraction]: ...

    async def extract_with_usage(
        self, texts: Sequence[str], *, data_id: UUID | None = None
    ) -> tuple[list[ChunkExtraction], Usage]:
        """Extract and report LLM usage; ``data_id`` tags cached answers so they are forgotten
        with the item. Offline extractors use no LLM: their usage is zero."""
        return await self.extract(texts), Usage()

    async def extract_documents(
        self, documents: Sequence[tuple[UUID | None, Sequence[str]]]
    ) -> tuple[list[list[ChunkExtraction]], Usage]:
        """Extract the chunks of several documents (``(data_id, chunk texts)`` each); one list
        of extractions per document, in order. The LLM extractor batches across documents;
        this default extracts each document on its own."""
        total = Usage()
        results: list[list[ChunkExtraction]] = []
        for data_id, texts in documents:
            found, usage = await self.extract_with_usage(texts, data_id=data_id)
            results.append(found)
            total.add(usage)
        return results, total
