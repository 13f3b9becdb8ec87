"""Triplet retrieval: the shared core of the graph-completion family and TRIPLET_COMPLETION.

A query is embedded once and searched in the ``entities``, ``summaries`` and ``chunks``
collections (``wide_search_top_k`` candidates each, default 100). The hits are projected onto
*triplets* (node —edge→ node) with a bounded number of store calls, never the whole graph:

1. three vector searches (concurrently);
2. one ``get_nodes`` for the summary hits, to learn which chunk each one summarizes;
3. two ``neighbourhood(depth=1)`` walks (concurrently): one around the chunk hits (the entities
   a chunk contains and the relations among them), one around the entity hits (their relations
   and the chunks that contain them). Each walk is capped at :data:`NODES_PER_SEED` nodes per
   seed, so a hub entity cannot pull in an unbounded part of the graph.

**Distance of a triplet.** Each of its three elements gets a distance: an endpoint its own
vector-hit distance; the edge the distance of the chunk that asserts it (``properties["chunk_id"]``,
else a chunk containing both endpoints), where a chunk's distance is the better of its own hit
and its summary's hit. An element that was not a hit gets ``triplet_distance_penalty`` (default
3.5, the reference's value: cosine distances lie in [0, 2], so a missing element always costs more
than any real match). The triplet's distance is the **mean** of the three, which keeps it on the
scale of one cosine distance (the sum would rank identically).

**Weight of a triplet.** The mean of its three elements' ``importance_weight`` (and likewise of
their ``feedback_weight``); in practice all three come from the same document and are equal.
Graph-family types rank by :func:`~engramdb.retrieval.ranking.graph_score`; TRIPLET_COMPLETION by
the distance alone (R-RANK-3), reported with every factor at 1.0.

Relation triplets (Entity —relation→ Entity) come first. When fewer than ``top_k`` exist, entity
hits not covered by them are filled in as ``Chunk —contains→ Entity`` triplets so the passages
that mention them still reach the context. Nodes whose properties mark them ``internal`` and the
structural node types (Document, Summary, EntityType) never appear in a triplet.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from uuid import UUID

import numpy as np
import numpy.typing as npt

from engramdb.engine import check_embedding
from engramdb.ingest.graph_builder import CHUNK_COLLECTION, ENTITY_COLLECTION, SUMMARY_COLLECTION
from engramdb.models.records import Edge, Node, NodeType
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.retrieval.ranking import ScoreBreakdown, graph_score, rank_by_distance
from engramdb.storage.base import Subgraph

__all__ = [
    "DEFAULT_TRIPLET_DISTANCE_PENALTY",
    "DEFAULT_WIDE_SEARCH_TOP_K",
    "NODES_PER_SEED",
    "GraphView",
    "Triplet",
    "TripletSearch",
    "is_fact_node",
]

DEFAULT_WIDE_SEARCH_TOP_K = 100
DEFAULT_TRIPLET_DISTANCE_PENALTY = 3.5
#: Neighbourhood budget per seed node; bounds what one query may read from a dense graph.
NODES_PER_SEED = 40

Vector = npt.NDArray[np.float32]

_STRUCTURAL_TYPES = frozenset(
    {NodeType.DOCUMENT, NodeType.SUMMARY, NodeType.ENTITY_TYPE, NodeType.CHUNK}
)
_STRUCTURAL_RELATIONS = frozenset({"is_part_of", "summarizes", "contains", "is_a"})


def is_fact_node(node: Node) -> bool:
    """True for a node a fact may name (an entity or a later issue's own type), False for
    internal nodes and the structural scaffolding of documents."""
    return node.type not in _STRUCTURAL_TYPES and not node.properties.get("internal")


@dataclass(frozen=True, slots=True)
class Triplet:
    """One ranked fact: ``source —edge.relation→ target`` and the chunks that assert it."""

    source: Node
    edge: Edge
    target: Node
    #: Mean of the three element distances (penalty for elements that were not hits).
    distance: float
    element_distances: tuple[float, float, float]
    breakdown: ScoreBreakdown
    chunk_ids: tuple[UUID, ...]

    @property
    def score(self) -> float:
        """The ranking distance (lower is better)."""
        return self.breakdown.final


@dataclass(slots=True)
class GraphView:
    """The part of the graph one query touched, with the vector-hit distances it found."""

    #: Hit distance per entity and per chunk (a chunk's is the better of its own and its
    #: summary's hit).
    distance: dict[UUID, float] = field(default_factory=dict)
    entity_hits: list[UUID] = field(default_factory=list)
    nodes: dict[UUID, Node] = field(default_factory=dict)
    edges: dict[UUID, Edge] = field(default_factory=dict)
    #: Nodes whose one-hop neighbourhood is loaded.
    expanded: set[UUID] = field(default_factory=set)

    def merge(self, sub: Subgraph, allowed: set[UUID]) -> None:
        for node in sub.nodes:
            if node.dataset_id in allowed:
                self.nodes.setdefault(node.id, node)
        for edge in sub.edges:
            if edge.dataset_id in allowed:
                self.edges.setdefault(edge.id, edge)


class TripletSearch:
    """Candidate search, projection and ranking for one recall (see the module docstring)."""

    def __init__(
        self,
        ctx: RetrievalContext,
        *,
        wide_top_k: int = DEFAULT_WIDE_SEARCH_TOP_K,
        penalty: float = DEFAULT_TRIPLET_DISTANCE_PENALTY,
        use_importance: bool = True,
        feedback_influence: float = 0.0,
    ) -> None:
        self.ctx = ctx
        self.wide_top_k = max(1, wide_top_k)
        self.penalty = penalty
        self.use_importance = use_importance
        self.feedback_influence = feedback_influence
        self._allowed = {d.id for d in ctx.datasets}

    @classmethod
    def for_options(cls, ctx: RetrievalContext, opts: RecallOptions) -> TripletSearch:
        """The search ``opts`` asks for; TRIPLET_COMPLETION ranks by similarity alone."""
        return cls(
            ctx,
            wide_top_k=opts.wide_search_top_k or DEFAULT_WIDE_SEARCH_TOP_K,
            penalty=(
                DEFAULT_TRIPLET_DISTANCE_PENALTY
                if opts.triplet_distance_penalty is None
                else opts.triplet_distance_penalty
            ),
            use_importance=opts.search_type is not SearchType.TRIPLET_COMPLETION,
            feedback_influence=opts.feedback_influence,
        )

    @property
    def searchable(self) -> list[UUID]:
        """Datasets holding vectors (a dataset without any has nothing to search yet)."""
        return [d.id for d in self.ctx.datasets if d.embedding_model is not None]

    async def embed(self, queries: list[str]) -> list[Vector]:
        """One embedding call for every query of this recall."""
        for dataset in self.ctx.datasets:
            if dataset.embedding_model is not None:
                check_embedding(dataset, self.ctx.embedder)
        matrix = await self.ctx.embedder.embed(queries)
        return [matrix[i] for i in range(len(queries))]

    async def search(self, vector: Vector) -> GraphView:
        """Vector hits in the three collections and the one-hop graph around them."""
        view = GraphView()
        datasets = self.searchable
        if not datasets:
            return view
        store, k = self.ctx.store, self.wide_top_k
        entity_hits, summary_hits, chunk_hits = await asyncio.gather(
            store.vector_search(ENTITY_COLLECTION, vector, datasets, k),
            store.vector_search(SUMMARY_COLLECTION, vector, datasets, k),
            store.vector_search(CHUNK_COLLECTION, vector, datasets, k),
        )
        for hit in [*entity_hits, *chunk_hits]:
            _keep_best(view.distance, hit.node_id, hit.score)
        view.entity_hits = [h.node_id for h in entity_hits]
        summary_distance = {h.node_id: h.score for h in summary_hits}
        for summary in await store.get_nodes(list(summary_distance)):
            chunk_id = _as_uuid(summary.properties.get("chunk_id"))
            if chunk_id is not None and summary.dataset_id in self._allowed:
                _keep_best(view.distance, chunk_id, summary_distance[summary.id])
                view.nodes[summary.id] = summary
        entity_ids = set(view.entity_hits)
        chunk_seeds = [i for i in view.distance if i not in entity_ids]
        await self._expand(view, [chunk_seeds, view.entity_hits])
        return view

    async def extend(self, view: GraphView, entity_ids: list[UUID]) -> None:
        """Load the one-hop neighbourhood of ``entity_ids`` not loaded yet (context extension)."""
        await self._expand(view, [[i for i in entity_ids if i not in view.expanded]])

    async def _expand(self, view: GraphView, seed_groups: list[list[UUID]]) -> None:
        groups = [g for g in seed_groups if g]
        subgraphs = await asyncio.gather(
            *(
                self.ctx.store.neighbourhood(g, depth=1, limit=NODES_PER_SEED * len(g))
                for g in groups
            )
        )
        for group, sub in zip(groups, subgraphs, strict=True):
            view.merge(sub, self._allowed)
            view.expanded.update(group)

    def triplets(self, view: GraphView, top_k: int | None = None) -> list[Triplet]:
        """Ranked triplets of ``view``: relation facts first, then (when fewer than ``top_k``)
        ``contains`` facts for uncovered entity hits. ``top_k=None`` ranks every candidate."""
        contains: dict[UUID, list[UUID]] = {}
        contains_edge: dict[tuple[UUID, UUID], Edge] = {}
        relations: list[Triplet] = []
        for edge in view.edges.values():
            if edge.relation == "contains":
                contains.setdefault(edge.target_id, []).append(edge.source_id)
                contains_edge[edge.source_id, edge.target_id] = edge
        for edge in view.edges.values():
            source, target = view.nodes.get(edge.source_id), view.nodes.get(edge.target_id)
            if source is None or target is None or edge.relation in _STRUCTURAL_RELATIONS:
                continue
            if not (is_fact_node(source) and is_fact_node(target)):
                continue
            chunk_ids = _asserting_chunks(edge, contains)
            relations.append(self._triplet(view, source, edge, target, chunk_ids))
        ranked = rank_by_distance(relations, key=lambda t: t.score)
        if top_k is not None and len(ranked) >= top_k:
            return ranked[:top_k]
        covered = {n for t in ranked for n in (t.source.id, t.target.id)}
        fallback = []
        for entity_id in view.entity_hits:
            entity = view.nodes.get(entity_id)
            if entity is None or entity_id in covered or not is_fact_node(entity):
                continue
            chunks = [view.nodes[c] for c in contains.get(entity_id, []) if c in view.nodes]
            chunks = [c for c in chunks if not c.properties.get("internal")]
            if not chunks:
                continue
            best = rank_by_distance(chunks, key=lambda c: view.distance.get(c.id))[0]
            edge = contains_edge[best.id, entity_id]
            fallback.append(self._triplet(view, best, edge, entity, (best.id,)))
        ranked += rank_by_distance(fallback, key=lambda t: t.score)
        return ranked if top_k is None else ranked[:top_k]

    def _triplet(
        self,
        view: GraphView,
        source: Node,
        edge: Edge,
        target: Node,
        chunk_ids: tuple[UUID, ...],
    ) -> Triplet:
        edge_hits = [view.distance[c] for c in chunk_ids if c in view.distance]
        distances = (
            view.distance.get(source.id, self.penalty),
            min(edge_hits) if edge_hits else self.penalty,
            view.distance.get(target.id, self.penalty),
        )
        distance = sum(distances) / 3.0
        weight = _mean(source.importance_weight, edge.importance_weight, target.importance_weight)
        feedback = _mean(source.feedback_weight, edge.feedback_weight, target.feedback_weight)
        if self.use_importance:
            breakdown = graph_score(
                distance,
                importance_weight=weight,
                feedback_weight=feedback,
                feedback_influence=self.feedback_influence,
            )
        else:
            breakdown = _similarity_only(distance, weight, feedback)
        return Triplet(source, edge, target, distance, distances, breakdown, chunk_ids)

    async def chunk_nodes(self, view: GraphView, chunk_ids: list[UUID]) -> dict[UUID, Node]:
        """The chunk nodes asked for: from the view, the rest in one ``get_nodes``."""
        missing = [c for c in chunk_ids if c not in view.nodes]
        if missing:
            for node in await self.ctx.store.get_nodes(missing):
                if node.dataset_id in self._allowed:
                    view.nodes[node.id] = node
        return {c: view.nodes[c] for c in chunk_ids if c in view.nodes}


def _similarity_only(distance: float, weight: float, feedback: float) -> ScoreBreakdown:
    """TRIPLET_COMPLETION's breakdown: the stored weights are reported, every factor is 1.0."""
    return ScoreBreakdown(
        base_distance=distance,
        importance_weight=weight,
        importance_factor=1.0,
        feedback_weight=feedback,
        feedback_factor=1.0,
        personal_weight=0.5,
        personal_factor=1.0,
        final=distance,
    )


def _mean(*values: float) -> float:
    """Arithmetic mean, exactly the common value when all are equal (0.7, not 0.69999...)."""
    if all(v == values[0] for v in values):
        return values[0]
    return sum(values) / len(values)


def _asserting_chunks(edge: Edge, contains: dict[UUID, list[UUID]]) -> tuple[UUID, ...]:
    """The chunk the extractor recorded on the edge, else every chunk naming both endpoints."""
    recorded = _as_uuid(edge.properties.get("chunk_id"))
    if recorded is not None:
        return (recorded,)
    both = set(contains.get(edge.target_id, []))
    return tuple(c for c in contains.get(edge.source_id, []) if c in both)


def _keep_best(distances: dict[UUID, float], node_id: UUID, distance: float) -> None:
    if node_id not in distances or distance < distances[node_id]:
        distances[node_id] = float(distance)


def _as_uuid(value: object) -> UUID | None:
    if isinstance(value, UUID):
        return value
    if isinstance(value, str):
        try:
            return UUID(value)
        except ValueError:
            return None
    return None
