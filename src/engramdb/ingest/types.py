"""Types shared by loaders, chunkers and the pipeline."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from engramdb.errors import EngramValidationError

__all__ = ["ChunkDraft", "Chunker", "LoadedDocument", "TokenCounter"]

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
    #: The data id to store it under, when it replaces an item (``update()`` keeps the id);
    #: None: derived from the dataset and ``content_hash``.
    data_id: UUID | None = None
    #: Custom graph models (DataPoints) the document consists of, instead of a text to chunk
    #: (``add_data_points``); see :mod:`engramdb.ingest.data_point_graph`.
    data_points: tuple[Any, ...] = ()


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
