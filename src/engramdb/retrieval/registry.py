"""Which retriever serves which search type (imported lazily, one instance per type)."""

from __future__ import annotations

import importlib
import threading

from engramdb.errors import FeatureNotAvailableError
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import Retriever

__all__ = ["Retrievers", "retriever_for"]

_CHUNKS = "engramdb.retrieval.retrievers.chunks"
_GRAPH = "engramdb.retrieval.retrievers.graph_completion"
_CHOSEN = "engramdb.retrieval.retrievers.chosen"

#: search type → (module, class). A type missing here is not implemented yet.
_REGISTRY: dict[SearchType, tuple[str, str]] = {
    SearchType.CHUNKS: (_CHUNKS, "ChunksRetriever"),
    SearchType.CHUNKS_LEXICAL: (_CHUNKS, "LexicalChunksRetriever"),
    SearchType.SUMMARIES: (_CHUNKS, "SummariesRetriever"),
    SearchType.RAG_COMPLETION: ("engramdb.retrieval.retrievers.rag", "RagCompletionRetriever"),
    SearchType.GRAPH_COMPLETION: (_GRAPH, "GraphCompletionRetriever"),
    SearchType.GRAPH_COMPLETION_COT: (_GRAPH, "GraphCompletionCotRetriever"),
    SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION: (
        _GRAPH,
        "GraphCompletionContextExtensionRetriever",
    ),
    SearchType.GRAPH_COMPLETION_DECOMPOSITION: (_GRAPH, "GraphCompletionDecompositionRetriever"),
    SearchType.GRAPH_SUMMARY_COMPLETION: (_GRAPH, "GraphSummaryCompletionRetriever"),
    SearchType.TRIPLET_COMPLETION: (_GRAPH, "TripletCompletionRetriever"),
    SearchType.HYBRID_COMPLETION: ("engramdb.retrieval.retrievers.hybrid", "HybridRetriever"),
    SearchType.TEMPORAL: ("engramdb.retrieval.retrievers.temporal", "TemporalRetriever"),
    SearchType.CYPHER: ("engramdb.retrieval.retrievers.cypher", "CypherRetriever"),
    SearchType.CODING_RULES: ("engramdb.retrieval.retrievers.coding_rules", "CodingRulesRetriever"),
    SearchType.CODE: ("engramdb.retrieval.retrievers.code", "CodeRetriever"),
    SearchType.SKILLS: ("engramdb.retrieval.retrievers.skills", "SkillsRetriever"),
    SearchType.AGENTIC_COMPLETION: ("engramdb.retrieval.retrievers.agentic", "AgenticRetriever"),
    SearchType.FEELING_LUCKY: (_CHOSEN, "FeelingLuckyRetriever"),
    SearchType.NATURAL_LANGUAGE: (_CHOSEN, "NaturalLanguageRetriever"),
    SearchType.GRAPH_REPORT: (_CHOSEN, "GraphReportRetriever"),
}

#: Search types of the reference engramdb does not serve, with what to use instead.
_REFUSED: dict[SearchType, str] = {
    SearchType.BROAD: (
        "SearchType.BROAD (an LLM reading the whole dataset) is not available on engramdb; use "
        "GRAPH_SUMMARY_COMPLETION, or RAG_COMPLETION with a larger top_k"
    ),
}


class Retrievers:
    """The retriever instances of one engine, built on first use of each search type."""

    def __init__(self) -> None:
        self._instances: dict[SearchType, Retriever] = {}
        self._lock = threading.Lock()

    def get(self, search_type: SearchType) -> Retriever:
        """The retriever of ``search_type``; FeatureNotAvailableError names types not built."""
        with self._lock:
            found = self._instances.get(search_type)
            if found is None:
                found = self._instances[search_type] = _build(search_type)
            return found


def retriever_for(search_type: SearchType) -> Retriever:
    """A new retriever of ``search_type`` (engines keep theirs in :class:`Retrievers`)."""
    return _build(search_type)


def _build(search_type: SearchType) -> Retriever:
    entry = _REGISTRY.get(search_type)
    if search_type in _REFUSED:
        raise FeatureNotAvailableError(_REFUSED[search_type])
    if entry is None:
        available = ", ".join(t.value for t in _REGISTRY)
        raise FeatureNotAvailableError(
            f"search type {search_type.value} is not available yet; available: {available}"
        )
    module, name = entry
    retriever: Retriever = getattr(importlib.import_module(module), name)()
    return retriever
