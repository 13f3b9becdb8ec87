"""CODING_RULES: the coding rules stored under a node set, most relevant to the query first.

Rules are ingested as ordinary texts tagged with a node set -- ``remember(rules,
node_set=["coding_agent_rules"])`` -- so each rule is a chunk whose ``properties["node_set"]``
names the set; or they are ``Rule`` nodes of that set, drawn from conversations by the
``add_rule_associations`` task (:mod:`engramdb.pipelines.coding_rules`). The set defaults to
``coding_agent_rules``; ``retriever_specific_config["node_set"]`` (a name or a list) overrides
it, else ``node_name`` (combined with ``node_name_filter_operator``: OR = in any of the sets,
AND = in all of them).

Finding the rules is an exact lookup (a Cypher query on the graph, so it is dataset-isolated
and bounded like every CYPHER query), not a vector search that could miss rules ranked below
unrelated chunks. Ranking then reuses the stored chunk vectors: one vector search over the
datasets' chunks, wide enough to cover them (up to :data:`RANK_WINDOW`), keeps the rules'
distances. Rules outside that window follow in storage order. ``score`` stays None (R-REC-8:
only CHUNKS, SUMMARIES and SKILLS report one); the distance is in ``raw["distance"]``.
An empty result lets auto-routing retry as HYBRID_COMPLETION.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from engramdb.engine import check_embedding
from engramdb.errors import EngramValidationError, FeatureNotAvailableError
from engramdb.graph_schema import CHUNK_COLLECTION
from engramdb.models.records import NodeType
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.cypher import MAX_LIMIT, backend_for, run_cypher

__all__ = [
    "DEFAULT_RULES_NODE_SET",
    "RANK_WINDOW",
    "RULE_NODE_TYPES",
    "CodingRulesRetriever",
    "rule_node_sets",
]

DEFAULT_RULES_NODE_SET = "coding_agent_rules"
#: The node types a rule can be: a remembered text's chunk, or an extracted ``Rule``.
RULE_NODE_TYPES = (NodeType.CHUNK.value, "Rule")
#: The widest chunk vector search used to rank rules.
RANK_WINDOW = 10_000


class CodingRulesRetriever(Retriever):
    """SearchType.CODING_RULES: one ``kind="coding_rule"`` entry per rule, best first."""

    search_types = frozenset({SearchType.CODING_RULES})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        sets, operator = rule_node_sets(opts)
        rules = await _rules(ctx, sets, operator)
        if not rules:
            return []
        distances = await _distances(ctx, opts.query, {UUID(r["id"]) for r in rules})
        order = {UUID(r["id"]): i for i, r in enumerate(rules)}
        rules.sort(
            key=lambda r: (
                distances.get(UUID(r["id"]), float("inf")),
                order[UUID(r["id"])],
            )
        )
        names = {d.id: d.name for d in ctx.datasets}
        return [
            _entry(rule, rank, distances.get(UUID(rule["id"])), names)
            for rank, rule in enumerate(rules[: opts.top_k])
        ]


def rule_node_sets(opts: RecallOptions) -> tuple[list[str], str]:
    """The node sets holding the rules and how to combine them ("OR" / "AND")."""
    configured = opts.retriever_specific_config.get("node_set")
    if configured is not None:
        values = [configured] if isinstance(configured, str) else configured
        if (
            not isinstance(values, list)
            or not values
            or not all(isinstance(v, str) and v for v in values)
        ):
            raise EngramValidationError(
                "retriever_specific_config['node_set'] must be a node set name or a list of them"
            )
        return list(dict.fromkeys(values)), "OR"
    if opts.node_name:
        return list(dict.fromkeys(opts.node_name)), opts.node_name_filter_operator.upper()
    return [DEFAULT_RULES_NODE_SET], "OR"


async def _rules(ctx: RetrievalContext, sets: list[str], operator: str) -> list[dict[str, Any]]:
    """The rule nodes (as node dicts) of the context's datasets: chunks, then Rule nodes, each
    in storage order."""
    if not ctx.datasets:
        return []
    joiner = " AND " if operator == "AND" else " OR "
    condition = joiner.join(f"$s{i} IN c.node_set" for i in range(len(sets)))
    params = {f"s{i}": s for i, s in enumerate(sets)}
    try:
        backend = backend_for(ctx.store)
    except FeatureNotAvailableError:  # a store without Cypher: scan its nodes instead
        test = all if operator == "AND" else any
        found = [
            {**n.model_dump(mode="json"), "dataset_id": str(n.dataset_id)}
            for label in RULE_NODE_TYPES
            for n in await ctx.store.list_nodes(ctx.dataset_ids, type=label, limit=100_000)
            if test(s in (n.properties.get("node_set") or []) for s in sets)
        ]
        return found[:MAX_LIMIT]
    rows: list[dict[str, Any]] = []
    for label in RULE_NODE_TYPES:
        query = f"MATCH (c:{label}) WHERE {condition} RETURN c LIMIT {MAX_LIMIT}"
        result = await run_cypher(backend, query, ctx.dataset_ids, params)
        rows.extend(row["c"] for row in result.rows if row.get("c"))
    return rows[:MAX_LIMIT]


async def _distances(ctx: RetrievalContext, query: str, wanted: set[UUID]) -> dict[UUID, float]:
    searchable = [d for d in ctx.datasets if d.embedding_model is not None]
    if not searchable:
        return {}
    for dataset in searchable:
        check_embedding(dataset, ctx.embedder)
    ids = [d.id for d in searchable]
    counts = [await ctx.store.count_nodes(ids, type=label) for label in RULE_NODE_TYPES]
    window = min(sum(counts), RANK_WINDOW)
    if window <= 0:
        return {}
    vector = (await ctx.embedder.embed([query]))[0]
    hits = await ctx.store.vector_search(CHUNK_COLLECTION, vector, ids, window)
    return {h.node_id: float(h.score) for h in hits if h.node_id in wanted}


def _entry(
    rule: dict[str, Any], rank: int, distance: float | None, names: dict[UUID, str]
) -> ResponseGraphEntry:
    props: dict[str, Any] = rule.get("properties") or {}
    metadata: dict[str, Any] = {"chunk_id": str(rule["id"])}
    for key in ("data_id", "chunk_index", "document_name"):
        if key in props:
            metadata[key] = props[key]
    dataset_id = UUID(str(rule["dataset_id"]))
    return ResponseGraphEntry(
        text=str(rule.get("text", "")),
        kind="coding_rule",
        search_type=SearchType.CODING_RULES.value,
        score=None,
        dataset_id=dataset_id,
        dataset_name=names.get(dataset_id),
        metadata=metadata,
        raw={
            "id": str(rule["id"]),
            "text": rule.get("text", ""),
            "node_set": props.get("node_set", []),
            "importance_weight": rule.get("importance_weight"),
            "distance": distance,
            "rank": rank,
            **metadata,
        },
    )
