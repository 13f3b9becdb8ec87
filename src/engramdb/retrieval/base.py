"""The retriever contract: one typed options object and one context, shared by every search type.

``recall()`` validates its keyword arguments once, resolves datasets and the search type, and
hands each retriever a :class:`RecallOptions` (what was asked) and a :class:`RetrievalContext`
(where to look and with what). A retriever returns ``RecallResponse`` items; it never re-reads
settings from the environment and never reaches outside ``ctx.datasets``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from pydantic import BaseModel

from engramdb.models.records import Dataset, User
from engramdb.models.search_type import SearchType

if TYPE_CHECKING:
    from engramdb.models.results import RecallResponse
    from engramdb.personalization.lookup import PreferenceView
    from engramdb.providers.embedding.base import Embedder
    from engramdb.providers.llm.base import LLM
    from engramdb.retrieval.registry import Retrievers
    from engramdb.retrieval.warmup import WarmupCache
    from engramdb.settings import Settings
    from engramdb.storage.base import Store

__all__ = ["RecallOptions", "RetrievalContext", "Retriever", "refuse_ignored_node_name"]


@dataclass(frozen=True, slots=True)
class RecallOptions:
    """Everything a recall asked for, validated (see ``api/recall.py``)."""

    query: str
    search_type: SearchType
    top_k: int = 15
    only_context: bool = False
    system_prompt: str | None = None
    node_name: list[str] | None = None
    node_name_filter_operator: str = "OR"
    #: Graph-only candidate widening; None = the retriever's default (100).
    wide_search_top_k: int | None = None
    triplet_distance_penalty: float | None = None
    feedback_influence: float = 0.0
    verbose: bool = False
    retriever_specific_config: dict[str, Any] = field(default_factory=dict)
    response_model: type[BaseModel] | None = None
    include_references: bool = False
    session_id: str | None = None
    #: The session's conversation so far, rendered; completion prompts put it first.
    history: str = ""
    #: The user's preferences for the one dataset searched (personalization; None: none).
    preferences: PreferenceView | None = None
    #: The session's active guidance block (AUTO_FEEDBACK, "qa" profile) and the ids of the
    #: entries it shows; completion prompts put it in their guidance block.
    session_guidance: str = ""
    session_guidance_ids: tuple[UUID, ...] = ()

    @property
    def use_importance_weight(self) -> bool:
        return bool(self.retriever_specific_config.get("use_importance_weight", True))

    @property
    def use_truth_weight(self) -> bool:
        """``retriever_specific_config["use_truth_weight"]``: HYBRID_COMPLETION ranks toward the
        dataset's truth subspace (off unless asked, as in the reference)."""
        return bool(self.retriever_specific_config.get("use_truth_weight", False))

    @property
    def include_global_context_index(self) -> bool | None:
        """``retriever_specific_config["include_global_context_index"]`` (the reference's
        option): True for its prelude before the context, False for none, None (not given) for
        the "Dataset overview" after it."""
        value = self.retriever_specific_config.get("include_global_context_index")
        return None if value is None else bool(value)

    @property
    def global_context_index_top_k(self) -> int:
        """How many documents' buckets the prelude's "Relevant areas" shows (default 3)."""
        return int(self.retriever_specific_config.get("global_context_index_top_k", 3))


@dataclass(slots=True)
class RetrievalContext:
    """Where a retriever looks and what it may use. ``llm`` is None when none is configured."""

    store: Store
    embedder: Embedder
    llm: LLM | None
    settings: Settings
    datasets: list[Dataset]
    user: User
    #: The engine's retriever instances and warm-up verdicts (fresh ones when None).
    retrievers: Retrievers | None = None
    warmup: WarmupCache | None = None

    def retriever(self, search_type: SearchType) -> Retriever:
        """The retriever of ``search_type`` (the engine's instance when there is one)."""
        if self.retrievers is None:
            from engramdb.retrieval.registry import retriever_for

            return retriever_for(search_type)
        return self.retrievers.get(search_type)

    @property
    def dataset_ids(self) -> list[Any]:
        return [d.id for d in self.datasets]

    def dataset_name(self, dataset_id: object) -> str | None:
        for d in self.datasets:
            if d.id == dataset_id:
                return d.name
        return None


class Retriever(ABC):
    """One search type (or a family of them)."""

    #: The search types this retriever serves.
    search_types: frozenset[SearchType]
    #: Whether it honours ``node_name`` / ``node_name_filter_operator``; recall() refuses the
    #: option (FeatureNotAvailableError, see :func:`refuse_ignored_node_name`) for a retriever
    #: that would silently ignore it.
    supports_node_name: bool = False
    #: Why a node set cannot restrict this search type (its error), for one that never will.
    node_name_refusal: str | None = None

    @abstractmethod
    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        """Results for ``opts`` within ``ctx.datasets``, best first, at most ``opts.top_k``
        context items (a completion type returns one answer item)."""


def refuse_ignored_node_name(retriever: Retriever, search_type: SearchType) -> None:
    """Raise FeatureNotAvailableError when ``retriever`` would ignore ``node_name``: saying why
    a node set cannot restrict ``search_type``, or that its filter is not built."""
    if retriever.supports_node_name:
        return
    from engramdb.errors import FeatureNotAvailableError

    if retriever.node_name_refusal is not None:
        raise FeatureNotAvailableError(
            f"node_name cannot restrict {search_type.value}: {retriever.node_name_refusal}"
        )
    raise FeatureNotAvailableError(
        f"node_name filters are not available for {search_type.value} yet; recall without node_name"
    )
