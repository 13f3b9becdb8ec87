"""Graph-aware chunk ranking: personalized PageRank over the entity–chunk graph of a query.

A multi-hop question names one entity and is answered by a paragraph about a second entity
that the first one's paragraph mentions (HotpotQA's "bridge" questions). Dense and lexical
search find the first paragraph; the second shares few words with the question. Following the
approach of HippoRAG 2 (Gutiérrez et al., 2025), relevance is spread from what the question
matches over the bipartite graph of chunks and the entities they ``contain``:

* **Seeds.** The best fused chunks of the dense and lexical lanes (weighted by their fused
  score), and the entities the question names: entity vector hits (weighted by similarity) and
  entities of the seed chunks whose name occurs in the question (all of its words, or its last
  word when that is a capitalised name in the question: "Tokarev" for "Sergei Tokarev").
* **Subgraph.** Only the seed chunks, their entities, and the chunks containing those entities
  (at most ``fan_out`` per entity: an entity named in more chunks is a hub that points at none
  of them and is left out) — two bounded ``incident_edges`` reads, whatever the store size.
* **Walk.** A few iterations of personalized PageRank (restart probability ``restart``) on that
  subgraph; an edge weighs ``1 / chunks containing the entity`` so that specific entities carry
  more relevance than common ones. The chunks are returned by their PageRank mass: the
  paragraph about a bridge entity, reachable only through the first paragraph, is ranked just
  after the seeds, and a lane of the caller's rank fusion brings it into the context.

No LLM and no embedding beyond the query's; importance weights and feedback still apply to
the passages the caller scores (the walk only chooses and orders candidates).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar
from uuid import UUID

from engramdb.extract.resolve import name_core, text_words
from engramdb.models.records import Node, NodeType
from engramdb.storage.base import Store

__all__ = [
    "DEFAULT_WALK",
    "GraphWalk",
    "KnownGraph",
    "bridge_second",
    "name_in_question",
    "personalized_pagerank",
    "walk_chunks",
]

K = TypeVar("K", bound=Hashable)


class _HasChunk(Protocol):
    @property
    def chunk(self) -> Node: ...


P = TypeVar("P", bound=_HasChunk)


@dataclass(frozen=True, slots=True)
class GraphWalk:
    """Bounds and weights of the walk (defaults measured on HotpotQA-50, bench/hotpotqa.py)."""

    #: Best fused chunks used as seeds.
    seed_chunks: int = 8
    #: Entities read per seed chunk.
    entities_per_chunk: int = 24
    #: Chunks read per entity; an entity in more chunks than this is a hub and left out.
    fan_out: int = 6
    #: Restart (teleport) probability of the walk.
    restart: float = 0.4
    iterations: int = 4
    #: Share of the teleport mass on question entities (the rest on seed chunks).
    entity_share: float = 0.8
    #: Entity vector hits below this similarity are not seeds.
    min_similarity: float = 0.55
    #: Chunks returned.
    limit: int = 30
    #: Walk only when the question names an entity of the subgraph (by name, or by a vector
    #: hit): without one there is no first hop to follow, and the walk would only reorder what
    #: the searches found (on LoCoMo, where the speakers are hubs, it cost ~1.5 points @750).
    require_named: bool = True


DEFAULT_WALK = GraphWalk()


@dataclass(frozen=True, slots=True)
class KnownGraph:
    """What the caller has read already, so the walk does not read it again. Each mapping holds
    the first ``*_limit`` ``contains`` edges a node has in the store's order (what an
    ``incident_edges`` read with that ``limit_per_node`` returns); the walk uses a node's list
    only when that limit covers its own."""

    #: chunk id -> the entities it contains (outgoing ``contains``).
    contains: Mapping[UUID, Sequence[UUID]] = field(default_factory=dict)
    contains_limit: int = 0
    #: entity id -> the chunks containing it (incoming ``contains``).
    contained_in: Mapping[UUID, Sequence[UUID]] = field(default_factory=dict)
    contained_in_limit: int = 0
    #: Nodes by id.
    nodes: Mapping[UUID, Node] = field(default_factory=dict)


_NOTHING_KNOWN = KnownGraph()


def personalized_pagerank(
    graph: Mapping[K, Mapping[K, float]],
    personalization: Mapping[K, float],
    *,
    restart: float = 0.4,
    iterations: int = 4,
) -> dict[K, float]:
    """Personalized PageRank by ``iterations`` steps of power iteration on ``graph``
    (node -> {neighbour: weight}, read as directed; pass both directions for an undirected
    graph). ``personalization`` is the teleport distribution (normalised here; non-positive
    entries ignored). Mass of nodes without out-edges returns to the teleport distribution.
    Returns each reached node's mass (they sum to 1)."""
    total = sum(v for v in personalization.values() if v > 0)
    if total <= 0:
        return {}
    teleport = {k: v / total for k, v in personalization.items() if v > 0}
    out_weight = {node: sum(w for w in nbrs.values() if w > 0) for node, nbrs in graph.items()}
    rank = dict(teleport)
    for _ in range(max(0, iterations)):
        dangling = 0.0
        nxt: dict[K, float] = {k: restart * v for k, v in teleport.items()}
        for node, mass in rank.items():
            weight = out_weight.get(node, 0.0)
            if weight <= 0:
                dangling += mass
                continue
            share = (1.0 - restart) * mass / weight
            for neighbour, w in graph[node].items():
                if w > 0:
                    nxt[neighbour] = nxt.get(neighbour, 0.0) + share * w
        if dangling:
            for k, v in teleport.items():
                nxt[k] = nxt.get(k, 0.0) + (1.0 - restart) * dangling * v
        rank = nxt
    return rank


def name_in_question(name: str, question: str, type_: str = "") -> float:
    """How surely the question names the entity ``name`` (of entity type ``type_``): 1.0 when
    all the words of its name core occur in the question in order (a person's titles and
    suffixes aside: "Martin Luther King Jr." for "Where did Martin Luther King speak?"), 0.7
    when its last word (a surname, a short title) of at least 4 letters is a capitalised word
    of the question, else 0. Case, accents and punctuation fold as in entity resolution."""
    words = list(name_core(name, type_).tokens)
    if not words:
        return 0.0
    asked = text_words(question)
    n = len(words)
    for i in range(len(asked) - n + 1):
        if asked[i : i + n] == words:
            return 1.0
    last = words[-1]
    if n > 1 and len(last) >= 4:
        capitalised = {w for raw in question.split() if raw[:1].isupper() for w in text_words(raw)}
        if last in capitalised:
            return 0.7
    return 0.0


async def walk_chunks(
    store: Store,
    question: str,
    seed_chunks: Sequence[tuple[UUID, float]],
    entity_hits: Mapping[UUID, float],
    walk: GraphWalk = DEFAULT_WALK,
    known: KnownGraph = _NOTHING_KNOWN,
) -> list[tuple[UUID, float]]:
    """Chunks ranked by personalized PageRank from the question's seeds (best first, with
    their mass). ``seed_chunks`` are fused chunk hits (id, score > 0), best first;
    ``entity_hits`` entity id -> similarity (0..1) of entity vector hits. At most three store
    reads: the seed chunks' entities, those entities' names, and their containing chunks, each
    for what ``known`` does not hold already."""
    seeds = [(c, s) for c, s in seed_chunks[: walk.seed_chunks] if s > 0]
    if not seeds:
        return []
    contained = await _incident(
        store,
        [c for c, _ in seeds],
        "out",
        walk.entities_per_chunk,
        known.contains if known.contains_limit >= walk.entities_per_chunk else {},
    )
    entity_ids = list(dict.fromkeys(e for entities in contained.values() for e in entities))
    hit_ids = [e for e, s in entity_hits.items() if s >= walk.min_similarity]
    candidates = list(dict.fromkeys([*entity_ids, *hit_ids]))
    if not candidates:
        return []
    missing = [c for c in candidates if c not in known.nodes]
    read = {n.id: n for n in await store.get_nodes(missing, provenance=False)} if missing else {}
    nodes = [n for c in candidates if (n := known.nodes.get(c) or read.get(c)) is not None]
    entities = {n.id: n for n in nodes if n.type == NodeType.ENTITY}
    chunks_of = await _incident(
        store,
        list(entities),
        "in",
        walk.fan_out + 1,
        known.contained_in if known.contained_in_limit >= walk.fan_out + 1 else {},
    )
    chunks_of = {e: chunks for e, chunks in chunks_of.items() if chunks}

    graph: dict[UUID, dict[UUID, float]] = {}
    for entity_id, chunk_ids in chunks_of.items():
        if len(chunk_ids) > walk.fan_out:
            continue  # a hub: named everywhere, points nowhere
        weight = 1.0 / len(chunk_ids)
        for chunk_id in chunk_ids:
            graph.setdefault(chunk_id, {})[entity_id] = weight
            graph.setdefault(entity_id, {})[chunk_id] = weight

    teleport: dict[UUID, float] = {}
    top = max(s for _, s in seeds)
    chunk_total = sum(s / top for _, s in seeds)
    for chunk_id, score in seeds:
        teleport[chunk_id] = (1.0 - walk.entity_share) * (score / top) / chunk_total
    named: dict[UUID, float] = {}
    for entity_id, node in entities.items():
        if entity_id not in graph:
            continue
        type_ = str(node.properties.get("entity_type") or "")
        named_by = name_in_question(node.name, question, type_)
        weight = max(named_by, entity_hits.get(entity_id, 0.0))
        if weight > 0 and (entity_id in entity_hits or weight >= 0.7):
            named[entity_id] = weight
    if not named and walk.require_named:
        return []
    if named:
        total = sum(named.values())
        for entity_id, weight in named.items():
            teleport[entity_id] = teleport.get(entity_id, 0.0) + walk.entity_share * weight / total
    rank = personalized_pagerank(graph, teleport, restart=walk.restart, iterations=walk.iterations)
    # What a chunk received over the graph, its own teleport share taken out: a seed that only
    # matched the question's words receives little, the chunks of the question's entities and
    # the chunks those link to receive the most.
    scored = [
        (node_id, mass - walk.restart * teleport.get(node_id, 0.0))
        for node_id, mass in rank.items()
        if node_id not in entities
    ]
    scored = [kv for kv in scored if kv[1] > 1e-12]
    scored.sort(key=lambda kv: -kv[1])
    return scored[: walk.limit]


async def _incident(
    store: Store,
    node_ids: list[UUID],
    direction: Literal["out", "in"],
    limit: int,
    known: Mapping[UUID, Sequence[UUID]],
) -> dict[UUID, list[UUID]]:
    """Each node's ``contains`` neighbours (at most ``limit``, in the store's order), from
    ``known`` where it has the node, the others in one ``incident_edges`` read."""
    missing = [n for n in node_ids if n not in known]
    edges = (
        await store.incident_edges(
            missing,
            direction=direction,
            relations=["contains"],
            limit_per_node=limit,
            provenance=False,
        )
        if missing
        else []
    )
    read: dict[UUID, list[UUID]] = {}
    for edge in edges:
        if direction == "out":
            read.setdefault(edge.source_id, []).append(edge.target_id)
        else:
            read.setdefault(edge.target_id, []).append(edge.source_id)
    return {n: list(known[n])[:limit] if n in known else read.get(n, []) for n in node_ids}


def bridge_second(passages: Sequence[P], walked: Sequence[UUID]) -> list[P]:
    """``passages`` (best first) with the best passage of the walk's best chunk other than the
    first passage's moved to second place: a multi-hop question's bridge paragraph right after
    the paragraph naming the question's entity. Unchanged without such a chunk, when it is
    second already, or when the first passage's chunk holds several paragraphs (a transcript,
    where the neighbour term already ranks the next turn; kept off there for LoCoMo).
    HotpotQA-50, HYBRID @300, in one tuning run: 0.898 without, 0.918 with (bench/hotpotqa.py).
    """
    out = list(passages)
    if len(out) < 3 or not walked or "\n\n" in out[0].chunk.text.strip():
        return out
    first = out[0].chunk.id
    bridge = next((c for c in walked if c != first), None)
    index = next((i for i, p in enumerate(out) if p.chunk.id == bridge), None)
    if index is None or index <= 1:
        return out
    out.insert(1, out.pop(index))
    return out
