"""The heuristic (rule-based) graph extractor: no model, no network, pure Python.

It finds names as runs of capitalised words (minus sentence-initial ordinary words), dates,
times, money and numbers by pattern, types names from hand-written cue lists, and reads
subject–verb–object relations clause by clause (see :mod:`engramdb.extract.heuristic`).
Precision is favoured over recall: a wrong edge misleads graph retrieval, a missing one only
leaves the chunk's text and vectors to do the work.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from engramdb.extract.heuristic.chunk import extract_chunk
from engramdb.extract.heuristic.text import clean_input
from engramdb.extract.summaries import extractive_summary
from engramdb.extract.types import ChunkExtraction, Extractor

__all__ = ["HeuristicExtractor"]

logger = logging.getLogger(__name__)

#: Characters of one chunk that are read. Chunks are a few hundred tokens; a megabyte of text
#: handed in as one "chunk" is cut so extraction time stays bounded.
DEFAULT_MAX_CHARS = 100_000


class HeuristicExtractor(Extractor):
    """Rule-based extraction (the core offline extractor; ``source = "heuristic"``).

    Deterministic and bounded: the same text always gives the same extraction; at most
    ``max_entities`` entities and ``max_relations`` relations per chunk; only the first
    ``max_chars`` characters are read. Never raises for odd input. ``cooccurrence`` adds a
    ``mentioned_with`` edge between named entities of a sentence that no verb relates (off by
    default: it lowers relation precision, see bench/extraction.py). ``descriptions`` gives
    each entity the sentence of its first mention as its description.
    """

    name = "heuristic"

    def __init__(
        self,
        *,
        max_entities: int = 50,
        max_relations: int = 100,
        max_chars: int = DEFAULT_MAX_CHARS,
        cooccurrence: bool = False,
        descriptions: bool = True,
        summary_sentences: int = 2,
        summary_chars: int = 400,
    ) -> None:
        self.max_entities = max_entities
        self.max_relations = max_relations
        self.max_chars = max_chars
        self.cooccurrence = cooccurrence
        self.descriptions = descriptions
        self.summary_sentences = summary_sentences
        self.summary_chars = summary_chars

    async def extract(self, texts: Sequence[str]) -> list[ChunkExtraction]:
        """One extraction per text, in order. Runs in a worker thread so a large batch does
        not stall the event loop."""
        batch = list(texts)
        if not batch:
            return []
        return await asyncio.to_thread(self.extract_sync, batch)

    def extract_sync(self, texts: Sequence[str]) -> list[ChunkExtraction]:
        """The same as :meth:`extract`, for synchronous callers (benchmarks, tests)."""
        return [self.extract_one(text) for text in texts]

    def extract_one(self, text: str) -> ChunkExtraction:
        """Extract one chunk. Fail-open by contract: an internal error is logged and the chunk
        gets a summary but no entities, instead of failing the whole ingestion."""
        text = clean_input(text, self.max_chars)
        try:
            return extract_chunk(
                text,
                max_entities=self.max_entities,
                max_relations=self.max_relations,
                cooccurrence=self.cooccurrence,
                descriptions=self.descriptions,
                summary_sentences=self.summary_sentences,
                summary_chars=self.summary_chars,
            )
        except Exception:  # fail-open boundary, documented above
            logger.warning("heuristic extraction failed for one chunk", exc_info=True)
            return ChunkExtraction(
                summary=_safe_summary(text, self.summary_sentences, self.summary_chars),
                source="heuristic",
            )


def _safe_summary(text: str, sentences: int, chars: int) -> str:
    try:
        return extractive_summary(text, max_sentences=sentences, max_chars=chars)
    except Exception:  # fail-open: the summary is optional
        logger.warning("extractive summary failed for one chunk", exc_info=True)
        return text.strip()[: max(1, chars)]
