"""One chunk per indexed field of a store item, as LangGraph's stores embed one vector per
field.

An item's document text is its field texts joined by
:data:`~engramdb.integrations.langgraph._mapping.FIELD_SEPARATOR`; the document's ``metadata``
holds their spans (``field_spans``). Each span becomes its own chunk (a span longer than
``max_tokens`` is split by :class:`~engramdb.TextChunker` within the span), so a search ranks an
item by its best field, never by an average of unrelated fields.
"""

from __future__ import annotations

import dataclasses

from engramdb.ingest.chunkers import TextChunker
from engramdb.ingest.types import ChunkDraft, Chunker, LoadedDocument, TokenCounter

__all__ = ["FIELD_SPANS", "FieldChunker", "field_spans"]

#: The key of ``LoadedDocument.metadata`` that holds the ``[start, end]`` span of each field.
FIELD_SPANS = "field_spans"


def field_spans(texts: list[str], separator: str) -> list[list[int]]:
    """The span of each text in ``separator.join(texts)``."""
    spans, at = [], 0
    for text in texts:
        spans.append([at, at + len(text)])
        at += len(text) + len(separator)
    return spans


class FieldChunker(Chunker):
    """Chunks at the field spans a document names; a document without them as a TextChunker."""

    def chunk(
        self,
        document: LoadedDocument,
        *,
        importance_weight: float,
        count_tokens: TokenCounter,
    ) -> list[ChunkDraft]:
        inner = TextChunker(max_tokens=self.max_tokens)
        spans = document.metadata.get(FIELD_SPANS)
        if not spans:
            return inner.chunk(
                document, importance_weight=importance_weight, count_tokens=count_tokens
            )
        chunks: list[ChunkDraft] = []
        for start, end in spans:
            part = dataclasses.replace(document, text=document.text[start:end], metadata={})
            for piece in inner.chunk(
                part, importance_weight=importance_weight, count_tokens=count_tokens
            ):
                chunks.append(
                    dataclasses.replace(
                        piece,
                        index=len(chunks),
                        start=piece.start + start,
                        end=piece.end + start,
                    )
                )
        return chunks
