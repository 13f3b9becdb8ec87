"""Triplet retrieval: the shared core of the graph-completion family and TRIPLET_COMPLETION.

A query is embedded once and searched in the ``entities``, ``summaries`` and ``chunks``
collections (``wide_search_top_k`` candidates each, default 100). The hits are projected onto
*triplets* (node —edge→ node) with a bounded number of store calls, never the whole graph:

1. three vector searches (concurrently; a fourth, full-text, when passages are wanted);
2. the chunk each summary hit summarizes: known from its id for the summaries of chunk hits
   (``stable_id("summary", chunk_id)``), one ``get_nodes`` for the others (before step 3 only
   for those close enough to change which chunks it projects, else while it runs);
3. a projection of the best chunk hits (``max(20, 2 * top_k)`` of them, by the better of chunk
   and summary distance): the entities each contains (``incident_edges``) and the facts among
   the entities of one chunk (each entity's facts, ``incident_edges``, kept when the other end
   shares a chunk with it; one ``edges_between`` probe per pair for a hub entity with more
   facts than are read per entity), then one ``get_nodes``;
4. a projection of the best entity hits (up to :data:`ENTITY_SEEDS`) that step 3 did not reach:
   their facts either way and a few chunks naming them (``incident_edges``, read with step 3's
   facts), then one ``get_nodes``. Skipped when every one was reached.

Every read is capped per seed (:data:`NODES_PER_SEED` entities per chunk, half that many facts
per entity and direction, :data:`CHUNKS_PER_ENTITY` chunks per entity), and none follows a
node's whole fan-out, so a hub entity named in 100k chunks costs what a rare one does. Every hit
of the wide pool, projected or not, lends its distance to whatever element of a projected
triplet it matches: the pool sets the distances, the best seeds set the candidates.

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
import functools
import math
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from uuid import UUID

import numpy as np
import numpy.typing as npt

from engramdb.engine import check_embedding
from engramdb.graph_schema import CHUNK_COLLECTION, ENTITY_COLLECTION, SUMMARY_COLLECTION
from engramdb.models.records import Edge, Node, NodeType, stable_id
from engramdb.models.search_type import SearchType
from engramdb.personalization.lookup import PreferenceView, personal_terms
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.retrieval.ranking import (
    ScoreBreakdown,
    graph_score,
    rank_by_distance,
    similarity_only_score,
)
from engramdb.retrieval.retrievers.chunks import NodeSetFilter
from engramdb.storage.base import ScoredId, Subgraph

__all__ = [
    "CHUNKS_PER_ENTITY",
    "DEFAULT_TRIPLET_DISTANCE_PENALTY",
    "DEFAULT_WIDE_SEARCH_TOP_K",
    "ENTITY_SEEDS",
    "FACTS_PER_ENTITY",
    "MIN_PROJECTED_SEEDS",
    "NODES_PER_SEED",
    "GraphView",
    "Triplet",
    "TripletSearch",
    "as_uuid",
    "is_fact_node",
]

DEFAULT_WIDE_SEARCH_TOP_K = 100
DEFAULT_TRIPLET_DISTANCE_PENALTY = 3.5
#: Read budget per seed node; bounds what one query may read from a dense graph.
NODES_PER_SEED = 40
#: Facts read per entity and direction (an entity with more is a hub: see
#: ``TripletSearch._facts_among``).
FACTS_PER_ENTITY = NODES_PER_SEED // 2
#: The best chunk hits projected onto the graph: ``max(this, 2 * top_k)`` of them.
MIN_PROJECTED_SEEDS = 20
#: The best entity hits walked when the chunk walk did not reach them.
ENTITY_SEEDS = 10
#: Chunks naming an entity read with its facts (for facts that record no chunk of their own).
CHUNKS_PER_ENTITY = 5

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
    #: Seeds whose facts are loaded.
    expanded: set[UUID] = field(default_factory=set)
    #: Full-text (BM25) chunk hits, best first, when the search asked for them.
    lexical_hits: list[UUID] = field(default_factory=list)
    #: Chunks ranked by the walk over the entity–chunk graph (graph_rank), best first, once
    #: a graph-family retriever has walked it.
    walked: list[UUID] = field(default_factory=list)
    #: The entities each projected chunk contains (its first :data:`NODES_PER_SEED`
    #: ``contains`` edges, in the store's order), for the walk to reuse.
    contained: dict[UUID, list[UUID]] = field(default_factory=dict)

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
        projected: int = MIN_PROJECTED_SEEDS,
        node_filter: NodeSetFilter | None = None,
        preferences: PreferenceView | None = None,
    ) -> None:
        self.ctx = ctx
        #: The user's preference weights (personalization); None or empty: no personal factor.
        self.preferences = preferences
        self.wide_top_k = max(1, wide_top_k)
        self.projected = max(1, projected)
        self.penalty = penalty
        self.use_importance = use_importance
        self.feedback_influence = feedback_influence
        self.node_filter = node_filter
        #: Full-text chunk hits to find for the passages (0: none; they never rank triplets).
        self.lexical_k = 0
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
            projected=max(MIN_PROJECTED_SEEDS, 2 * opts.top_k),
            node_filter=(
                NodeSetFilter(tuple(opts.node_name), opts.node_name_filter_operator)
                if opts.node_name
                else None
            ),
            preferences=opts.preferences,
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

    async def lexical(self, query: str) -> list[ScoredId]:
        """The best full-text chunk hits for ``query`` (``lexical_k`` of them, widened under a
        ``node_name`` filter; none for ``lexical_k`` 0). It needs no embedding: a caller may
        start it first and pass it to :meth:`search`, so that it overlaps the embedding."""
        datasets = self.searchable
        node_filter = self.node_filter
        k = node_filter.widen(self.lexical_k) if node_filter else self.lexical_k
        if k <= 0 or not query or not datasets:
            return []
        return await self.ctx.store.lexical_search(CHUNK_COLLECTION, query, datasets, k)

    async def search(
        self,
        vector: Vector,
        query: str = "",
        lexical: Awaitable[list[ScoredId]] | None = None,
    ) -> GraphView:
        """Vector hits in the three collections and the one-hop graph around them (and, with
        ``lexical_k`` > 0 and a ``query``, its best full-text chunk hits: ``lexical`` when the
        caller started :meth:`lexical` already)."""
        view = GraphView()
        datasets = self.searchable
        if not datasets:
            if lexical is not None:
                await lexical
            return view
        store, k, node_filter = self.ctx.store, self.wide_top_k, self.node_filter
        if node_filter is not None:
            k = node_filter.widen(k)
        entity_hits, summary_hits, chunk_hits, lexical_hits = await asyncio.gather(
            store.vector_search(ENTITY_COLLECTION, vector, datasets, k),
            store.vector_search(SUMMARY_COLLECTION, vector, datasets, k),
            store.vector_search(CHUNK_COLLECTION, vector, datasets, k),
            self.lexical(query) if lexical is None else lexical,
        )
        if node_filter is not None:  # node_name: only tagged nodes are candidates
            hits = [*entity_hits, *chunk_hits, *lexical_hits]
            wanted = list(dict.fromkeys(h.node_id for h in hits))
            tagged = await store.get_nodes(wanted, provenance=False)
            keep = {n.id for n in tagged if node_filter.matches(n)}
            entity_hits = [h for h in entity_hits if h.node_id in keep][: self.wide_top_k]
            chunk_hits = [h for h in chunk_hits if h.node_id in keep][: self.wide_top_k]
            lexical_hits = [h for h in lexical_hits if h.node_id in keep][: self.lexical_k]
        view.lexical_hits = [h.node_id for h in lexical_hits]
        for hit in [*entity_hits, *chunk_hits]:
            _keep_best(view.distance, hit.node_id, hit.score)
        view.entity_hits = [h.node_id for h in entity_hits]
        # The chunk a summary hit summarises lends it the hit's distance. A summary built by
        # ingestion has the id stable_id("summary", chunk_id), so the summaries of chunk hits
        # need no read; the others are read, and only those that could move a chunk into the
        # projected best ones are read before the projection (the rest while it runs).
        by_summary: dict[UUID, UUID] = {}
        if node_filter is None:  # the filter needs each summary's tags
            by_summary = {stable_id("summary", h.node_id): h.node_id for h in chunk_hits}
        for hit in summary_hits:
            if hit.node_id in by_summary:
                _keep_best(view.distance, by_summary[hit.node_id], hit.score)
        unknown = [h for h in summary_hits if h.node_id not in by_summary]
        chunks = self._best_chunks(view)
        cut = view.distance[chunks[-1]] if len(chunks) >= self.projected else math.inf
        urgent = [h for h in unknown if h.score <= cut]
        if urgent:
            self._add_summaries(view, urgent, await self._summaries_read(urgent))
            chunks = self._best_chunks(view)
        rest = [h for h in unknown if h.score > cut]
        _, read = await asyncio.gather(self._project(view, chunks), self._summaries_read(rest))
        self._add_summaries(view, rest, read)
        return view

    def _best_chunks(self, view: GraphView) -> list[UUID]:
        """The chunks to project: the best ``projected`` chunk hits by distance."""
        entity_ids = set(view.entity_hits)
        chunks = [i for i in view.distance if i not in entity_ids]
        return rank_by_distance(chunks, key=view.distance.get)[: self.projected]

    async def _summaries_read(self, hits: list[ScoredId]) -> list[Node]:
        """The summary nodes of ``hits`` (one ``get_nodes``; none for no hit)."""
        return await self.ctx.store.get_nodes([h.node_id for h in hits], provenance=False)

    def _add_summaries(self, view: GraphView, hits: list[ScoredId], nodes: list[Node]) -> None:
        """Lend each summary hit's distance to the chunk it summarises, in hit order, and keep
        the summaries (in the recall's datasets, passing the ``node_name`` filter) in the view."""
        by_id = {n.id: n for n in nodes}
        for hit in hits:
            summary = by_id.get(hit.node_id)
            if summary is None or summary.dataset_id not in self._allowed:
                continue
            chunk_id = as_uuid(summary.properties.get("chunk_id"))
            if chunk_id is None:
                continue
            if self.node_filter is None or self.node_filter.matches(summary):
                _keep_best(view.distance, chunk_id, hit.score)
                view.nodes[summary.id] = summary

    async def extend(self, view: GraphView, entity_ids: list[UUID]) -> None:
        """Load the facts around ``entity_ids`` not loaded yet (context extension)."""
        await self._project_entities(view, [i for i in entity_ids if i not in view.expanded])

    async def _project(self, view: GraphView, chunk_ids: list[UUID]) -> None:
        """Project the best chunk hits and the entity hits they do not reach.

        Each chunk's entities (at most :data:`NODES_PER_SEED`, one ``incident_edges`` read),
        then at once: the facts among the entities of one chunk (:meth:`_facts_among`), those
        entities' nodes (one ``get_nodes``), and for the best entity hits none of the chunks
        contains (their facts live in chunks that were no hits; up to :data:`ENTITY_SEEDS`)
        their facts and a few chunks naming them (:meth:`_entity_edges`), whose other nodes a
        last ``get_nodes`` loads. A hub entity's thousands of other edges are never read."""
        store = self.ctx.store
        contains = (
            await store.incident_edges(
                chunk_ids,
                direction="out",
                relations=["contains"],
                limit_per_node=NODES_PER_SEED,
                provenance=False,
            )
            if chunk_ids
            else []
        )
        for chunk_id in chunk_ids:
            view.contained.setdefault(chunk_id, [])
        for e in contains:
            view.contained[e.source_id].append(e.target_id)
        partners: dict[UUID, set[UUID]] = {}
        for chunk_id in chunk_ids:
            group = view.contained[chunk_id]
            for entity_id in group:
                partners.setdefault(entity_id, set()).update(group)
        for entity_id, others in partners.items():
            others.discard(entity_id)
        reached = {e.target_id for e in contains}
        unreached = [e for e in view.entity_hits if e not in reached][:ENTITY_SEEDS]
        wanted = [*chunk_ids, *(e.target_id for e in contains)]
        missing = [i for i in dict.fromkeys(wanted) if i not in view.nodes]
        facts, nodes, around = await asyncio.gather(
            self._facts_among(partners),
            store.get_nodes(missing, provenance=False),
            self._entity_edges(unreached),
        )
        view.merge(Subgraph(nodes=nodes, edges=[*contains, *facts]), self._allowed)
        view.expanded.update(chunk_ids)
        if unreached:
            ends = [n for e in around for n in (e.source_id, e.target_id)]
            await self._load(view, [*unreached, *ends], around)
            view.expanded.update(unreached)

    async def _facts_among(self, partners: dict[UUID, set[UUID]]) -> list[Edge]:
        """Every fact ``a —r→ b`` with ``b`` in ``partners[a]`` (the entities sharing a chunk
        with ``a``), as one probe per pair would find them, in at most two reads: each
        entity's facts (at most :data:`FACTS_PER_ENTITY`, one ``incident_edges`` read of a
        few rows per entity instead of a probe per pair: a chunk of 40 entities has 1560
        pairs), then, only for an entity with more facts than that (a hub), one probe per pair
        of it (``edges_between``)."""
        entity_ids = [e for e, others in partners.items() if others]
        if not entity_ids:
            return []
        store = self.ctx.store
        structural = sorted(_STRUCTURAL_RELATIONS)
        outgoing = await store.incident_edges(
            entity_ids,
            direction="out",
            exclude_relations=structural,
            limit_per_node=FACTS_PER_ENTITY,
            provenance=False,
        )
        read = Counter(e.source_id for e in outgoing)
        facts = [e for e in outgoing if e.target_id in partners[e.source_id]]
        hubs = [e for e in entity_ids if read[e] >= FACTS_PER_ENTITY]
        pairs = [(a, b) for a in hubs for b in partners[a]]
        if pairs:
            known = {e.id for e in facts}
            more = await store.edges_between(pairs, exclude_relations=structural, provenance=False)
            facts += [e for e in more if e.id not in known]
        return facts

    async def _project_entities(self, view: GraphView, entity_ids: list[UUID]) -> None:
        """Load each entity's facts and a few chunks naming it (:meth:`_entity_edges`) with
        their endpoints (one ``get_nodes``)."""
        if not entity_ids:
            return
        edges = await self._entity_edges(entity_ids)
        ends = [n for e in edges for n in (e.source_id, e.target_id)]
        await self._load(view, [*entity_ids, *ends], edges)
        view.expanded.update(entity_ids)

    async def _entity_edges(self, entity_ids: list[UUID]) -> list[Edge]:
        """Each entity's facts in either direction (at most :data:`FACTS_PER_ENTITY` each way)
        and a few chunks naming it: three ``incident_edges`` reads, bounded per entity however
        many chunks name it."""
        if not entity_ids:
            return []
        structural = sorted(_STRUCTURAL_RELATIONS)
        read = functools.partial(self.ctx.store.incident_edges, entity_ids, provenance=False)
        outgoing, incoming, named_in = await asyncio.gather(
            read(direction="out", exclude_relations=structural, limit_per_node=FACTS_PER_ENTITY),
            read(direction="in", exclude_relations=structural, limit_per_node=FACTS_PER_ENTITY),
            read(direction="in", relations=["contains"], limit_per_node=CHUNKS_PER_ENTITY),
        )
        return [*outgoing, *incoming, *named_in]

    async def _load(self, view: GraphView, node_ids: list[UUID], edges: list[Edge]) -> None:
        """Add ``edges`` and the nodes of ``node_ids`` not in the view yet (one ``get_nodes``),
        keeping only what lies in the recall's datasets."""
        missing = [i for i in dict.fromkeys(node_ids) if i not in view.nodes]
        nodes = await self.ctx.store.get_nodes(missing, provenance=False) if missing else []
        view.merge(Subgraph(nodes=nodes, edges=edges), self._allowed)

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
        unmatched: list[tuple[Node, Edge, Node, tuple[UUID, ...]]] = []
        hit = view.distance
        for edge in view.edges.values():
            source, target = view.nodes.get(edge.source_id), view.nodes.get(edge.target_id)
            if source is None or target is None or edge.relation in _STRUCTURAL_RELATIONS:
                continue
            if not (self._fact(source) and self._fact(target)):
                continue
            chunk_ids = _asserting_chunks(edge, contains)
            if source.id in hit or target.id in hit or any(c in hit for c in chunk_ids):
                relations.append(self._triplet(view, source, edge, target, chunk_ids))
            else:
                unmatched.append((source, edge, target, chunk_ids))
        ranked = rank_by_distance(relations, key=lambda t: t.score)
        # A triplet without any hit scores at least penalty * (1 - feedback_influence) (every
        # importance factor is >= 1): building those is skipped when they cannot rank in.
        floor = self.penalty * (1.0 - (self.feedback_influence if self.use_importance else 0.0))
        if unmatched and (top_k is None or len(ranked) < top_k or ranked[top_k - 1].score > floor):
            relations += [self._triplet(view, *u) for u in unmatched]
            ranked = rank_by_distance(relations, key=lambda t: t.score)
        if top_k is not None and len(ranked) >= top_k:
            return ranked[:top_k]
        covered = {n for t in ranked for n in (t.source.id, t.target.id)}
        fallback = []
        for entity_id in view.entity_hits:
            entity = view.nodes.get(entity_id)
            if entity is None or entity_id in covered or not self._fact(entity):
                continue
            chunks = [view.nodes[c] for c in contains.get(entity_id, []) if c in view.nodes]
            chunks = [c for c in chunks if not c.properties.get("internal") and self._tagged(c)]
            if not chunks:
                continue
            best = rank_by_distance(chunks, key=lambda c: view.distance.get(c.id))[0]
            edge = contains_edge[best.id, entity_id]
            fallback.append(self._triplet(view, best, edge, entity, (best.id,)))
        ranked += rank_by_distance(fallback, key=lambda t: t.score)
        return ranked if top_k is None else ranked[:top_k]

    def _tagged(self, node: Node) -> bool:
        return self.node_filter is None or self.node_filter.matches(node)

    def _fact(self, node: Node) -> bool:
        """A node a triplet may name: a fact node passing the ``node_name`` filter."""
        return is_fact_node(node) and self._tagged(node)

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
            personal, influence = personal_terms(self.preferences, source.id, target.id)
            breakdown = graph_score(
                distance,
                importance_weight=weight,
                feedback_weight=feedback,
                feedback_influence=self.feedback_influence,
                personal_weight=personal,
                personal_influence=influence,
            )
        else:
            breakdown = similarity_only_score(
                distance, importance_weight=weight, feedback_weight=feedback
            )
        return Triplet(source, edge, target, distance, distances, breakdown, chunk_ids)

    async def chunk_nodes(self, view: GraphView, chunk_ids: list[UUID]) -> dict[UUID, Node]:
        """The chunk nodes asked for: from the view, the rest in one ``get_nodes``."""
        missing = [c for c in chunk_ids if c not in view.nodes]
        if missing:
            for node in await self.ctx.store.get_nodes(missing, provenance=False):
                if node.dataset_id in self._allowed:
                    view.nodes[node.id] = node
        return {c: view.nodes[c] for c in chunk_ids if c in view.nodes}


def _mean(a: float, b: float, c: float) -> float:
    """Mean of three, exactly the common value when all are equal (0.7, not 0.69999...)."""
    return a if a == b == c else (a + b + c) / 3.0


def _asserting_chunks(edge: Edge, contains: dict[UUID, list[UUID]]) -> tuple[UUID, ...]:
    """The chunk the extractor recorded on the edge, else every chunk naming both endpoints."""
    recorded = _cached_uuid(edge.properties.get("chunk_id"))
    if recorded is not None:
        return (recorded,)
    both = set(contains.get(edge.target_id, []))
    return tuple(c for c in contains.get(edge.source_id, []) if c in both)


def _keep_best(distances: dict[UUID, float], node_id: UUID, distance: float) -> None:
    if node_id not in distances or distance < distances[node_id]:
        distances[node_id] = float(distance)


def _cached_uuid(value: object) -> UUID | None:
    """:func:`as_uuid` memoised for strings: thousands of edges cite the same few chunks."""
    return _parse_uuid(value) if isinstance(value, str) else as_uuid(value)


@functools.lru_cache(maxsize=4096)
def _parse_uuid(value: str) -> UUID | None:
    return as_uuid(value)


def as_uuid(value: object) -> UUID | None:
    """``value`` as a UUID (stored properties hold ids as strings), or None."""
    if isinstance(value, UUID):
        return value
    if isinstance(value, str):
        try:
            return UUID(value)
        except ValueError:
            return None
    return None
