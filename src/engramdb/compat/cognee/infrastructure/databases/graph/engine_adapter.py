"""The object ``get_graph_engine()`` returns: cognee's graph-engine READ methods over engramdb.

Shapes follow cognee's ``GraphDBInterface`` (the embedded Ladybug adapter it ships by default):

* a node is ``(node_id, properties)`` in :meth:`GraphEngine.get_graph_data`, and a flat
  ``properties`` dict (with ``id``, ``name``, ``type``) everywhere else; its properties are
  engramdb's stored fields (``text``, ``dataset_id``, ``importance_weight``, ``feedback_weight``)
  merged with the node's own properties;
* an edge is ``(source_id, target_id, relationship_name, properties)``; ``properties`` carry
  ``relationship_name``, ``source_node_id``, ``target_node_id``, ``edge_object_id`` (the id
  ``used_graph_element_ids["edge_ids"]`` and the feedback weights use) and the edge's weights;
* ids are strings. Node ``type`` uses cognee's name where a type has a direct counterpart
  (:data:`COGNEE_NODE_TYPES`: ``DocumentChunk``, ``TextSummary``, ``TextDocument``,
  ``GlobalContextSummary``); ``Entity`` and ``EntityType`` are the same in both.

What is read: every dataset the user can read (the default user unless a scope says
otherwise), or the one dataset ``set_database_global_context_variables`` scoped the task to;
another user's per-user internal nodes are never shown. ``query()`` runs engramdb's read-only
Cypher subset (docs/cypher.md, engramdb's own labels ``Chunk``/``Summary``/``Document``) and
returns rows as tuples, as cognee's embedded adapter does.

Writes are refused with FeatureNotAvailableError: a raw node or edge written past engramdb's
transactions would have no provenance, no vectors and no way to be forgotten. The supported
calls are ``remember()`` / ``add_data_points()`` to write and ``forget()`` to delete.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NoReturn
from uuid import UUID

from engramdb.artifacts.global_index import BUCKET_TYPE, ROOT_TYPE
from engramdb.errors import EngramValidationError, FeatureNotAvailableError

if TYPE_CHECKING:
    from engramdb.compat.cognee.context_global_variables import DatabaseScope
    from engramdb.engine import Engine
    from engramdb.models.records import Dataset, Edge, Node, User

__all__ = ["COGNEE_NODE_TYPES", "WRITE_METHODS", "GraphEngine", "scoped_datasets"]

#: engramdb node type -> the name cognee gives the same kind of node (the global context
#: index's buckets and root are both cognee ``GlobalContextSummary`` nodes, the root with
#: ``is_root=True``).
COGNEE_NODE_TYPES: dict[str, str] = {
    "Chunk": "DocumentChunk",
    "Summary": "TextSummary",
    "Document": "TextDocument",
    BUCKET_TYPE: "GlobalContextSummary",
    ROOT_TYPE: "GlobalContextSummary",
}
_ENGRAMDB_NODE_TYPES = {v: k for k, v in reversed(COGNEE_NODE_TYPES.items())}

#: cognee's graph-engine write methods, each refused with the call to use instead.
WRITE_METHODS: dict[str, str] = {
    "add_node": "remember() or add_data_points()",
    "add_nodes": "remember() or add_data_points()",
    "add_edge": "remember() or add_data_points()",
    "add_edges": "remember() or add_data_points()",
    "update_node": "remember() or add_data_points()",
    "delete_node": "forget(data_id=...) or forget(dataset=...)",
    "delete_nodes": "forget(data_id=...) or forget(dataset=...)",
    "delete_graph": "forget(everything=True) or prune.prune_system()",
    "delete_edge_triples": "forget(data_id=...)",
    "set_node_feedback_weights": "session.add_feedback(...) followed by improve()",
    "set_edge_feedback_weights": "session.add_feedback(...) followed by improve()",
    "set_node_truth_state": "improve(session_ids=[...], build_truth_subspace=True)",
    "set_graph_metadata": "remember()",
}

#: How many nodes one read loads at most (get_graph_data on a larger graph is cut off there).
MAX_GRAPH_NODES = 100_000
#: Edges of one node get_edges / get_neighbors / get_connections read in each direction.
EDGES_PER_NODE = 1000


def _refuse(name: str) -> NoReturn:
    raise FeatureNotAvailableError(
        f"graph_engine.{name}() is not supported on engramdb: a node or edge written past "
        "engramdb's transactions would have no provenance, no vectors and could not be "
        f"forgotten; use {WRITE_METHODS[name]} instead"
    )


def _write_method(name: str) -> Any:
    async def refused(self: GraphEngine, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(name)

    refused.__name__ = name
    refused.__doc__ = f"Refused: use {WRITE_METHODS[name]} (see the module docstring)."
    return refused


def node_properties(node: Node) -> dict[str, Any]:
    """A node as cognee's adapters return it: one flat dict of its fields and properties."""
    extra = {"is_root": node.type == ROOT_TYPE} if node.type in (BUCKET_TYPE, ROOT_TYPE) else {}
    return {
        **node.properties,
        **extra,
        "id": str(node.id),
        "name": node.name,
        "type": COGNEE_NODE_TYPES.get(node.type, node.type),
        "text": node.text,
        "dataset_id": str(node.dataset_id),
        "importance_weight": node.importance_weight,
        "feedback_weight": node.feedback_weight,
    }


def edge_properties(edge: Edge) -> dict[str, Any]:
    return {
        **edge.properties,
        "relationship_name": edge.relation,
        "source_node_id": str(edge.source_id),
        "target_node_id": str(edge.target_id),
        "edge_object_id": str(edge.id),
        "dataset_id": str(edge.dataset_id),
        "importance_weight": edge.importance_weight,
        "feedback_weight": edge.feedback_weight,
    }


def edge_tuple(edge: Edge) -> tuple[str, str, str, dict[str, Any]]:
    return (str(edge.source_id), str(edge.target_id), edge.relation, edge_properties(edge))


def _uuids(values: Iterable[object]) -> list[UUID]:
    """The ids among ``values`` that are UUIDs (others cannot name an engramdb node: skipped,
    as cognee's adapters skip ids they do not find)."""
    out: list[UUID] = []
    for value in values:
        if isinstance(value, UUID):
            out.append(value)
        elif isinstance(value, str):
            try:
                out.append(UUID(value))
            except ValueError:
                continue
    return list(dict.fromkeys(out))


async def scoped_datasets(scope: DatabaseScope | None) -> tuple[Engine, User, list[Dataset]]:
    """The default engine, the reading user and the datasets a graph read covers (their
    queued extraction done first: engramdb.ingest.queue)."""
    from engramdb.access.permissions import check
    from engramdb.api.recall import resolve_datasets
    from engramdb.engine import get_engine
    from engramdb.errors import PermissionDeniedError
    from engramdb.ingest.queue import extract_for_read

    engine = get_engine()
    user = await engine.resolve_user(None)
    if scope is None:
        if not await engine.database_exists():
            return engine, user, []
        readable = await resolve_datasets(engine, user, datasets=None, dataset_ids=None)
        await extract_for_read(engine, readable)
        return engine, user, readable
    if scope.user_id is not None and scope.user_id != user.id:
        found = await engine.store.get_user(scope.user_id)
        if found is None:
            raise PermissionDeniedError(f"no user {scope.user_id} may read this dataset")
        user = found
    dataset = await check(
        user, scope.dataset_id, scope.permission_type or "read", store=engine.store
    )
    await extract_for_read(engine, [dataset])
    return engine, user, [dataset]


class GraphEngine:
    """cognee's graph engine, read-only, over the default engramdb engine (module docstring)."""

    #: cognee's capability flags: ``query()`` runs (engramdb's) Cypher subset.
    supports_cypher_queries = True
    supports_per_row_source_refs = False
    supports_incremental_chunk_updates = False

    async def _scope(self) -> tuple[Engine, User, list[Dataset]]:
        from engramdb.compat.cognee.context_global_variables import current_scope

        return await scoped_datasets(current_scope())

    async def _nodes(self, ids: Iterable[object]) -> list[Node]:
        from engramdb.access.permissions import visible_nodes

        wanted = _uuids(ids)
        if not wanted:
            return []
        _, user, datasets, store = await self._context()
        allowed = {d.id for d in datasets}
        found = [n for n in await store.get_nodes(wanted) if n.dataset_id in allowed]
        return visible_nodes(user, found, ()).nodes

    async def _context(self) -> tuple[Engine, User, list[Dataset], Any]:
        engine, user, datasets = await self._scope()
        return engine, user, datasets, engine.store

    async def _incident(self, node_id: object) -> tuple[list[Edge], dict[UUID, Node]]:
        """The edges touching ``node_id`` (both directions) and the visible nodes they join."""
        from engramdb.access.permissions import visible_nodes

        ids = _uuids([node_id])
        if not ids:
            return [], {}
        _, user, datasets, store = await self._context()
        allowed = {d.id for d in datasets}
        if not allowed:
            return [], {}
        edges = [
            e
            for direction in ("out", "in")
            for e in await store.incident_edges(
                ids, direction=direction, limit_per_node=EDGES_PER_NODE
            )
            if e.dataset_id in allowed
        ]
        ends = _uuids([x for e in edges for x in (e.source_id, e.target_id)] + ids)
        shown = visible_nodes(user, await store.get_nodes(ends, provenance=False), edges)
        by_id = {n.id: n for n in shown.nodes if n.dataset_id in allowed}
        kept = [e for e in shown.edges if e.source_id in by_id and e.target_id in by_id]
        return kept, by_id

    # --- whole graph -------------------------------------------------------------------------

    async def get_graph_data(
        self,
    ) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str, str, dict[str, Any]]]]:
        """Every node ``(id, properties)`` and edge ``(source, target, relation, properties)``
        of the datasets read (at most :data:`MAX_GRAPH_NODES` nodes)."""
        from engramdb.access.permissions import visible_nodes

        _, user, datasets, store = await self._context()
        if not datasets:
            return [], []
        ids = [d.id for d in datasets]
        nodes = await store.list_nodes(ids, limit=MAX_GRAPH_NODES)
        edges = await store.list_edges(ids, limit=4 * MAX_GRAPH_NODES)
        shown = visible_nodes(user, nodes, edges)
        return (
            [(str(n.id), node_properties(n)) for n in shown.nodes],
            [edge_tuple(e) for e in shown.edges],
        )

    async def is_empty(self) -> bool:
        _, _, datasets, store = await self._context()
        return not datasets or await store.count_nodes([d.id for d in datasets]) == 0

    async def get_graph_counts(self) -> tuple[int, int]:
        nodes, edges = await self.get_graph_data()
        return len(nodes), len(edges)

    async def get_graph_metrics(self, include_optional: bool = False) -> dict[str, Any]:
        """cognee's basic metrics (counts, mean degree, density); the optional ones are -1, as
        cognee reports metrics it did not compute."""
        num_nodes, num_edges = await self.get_graph_counts()
        metrics: dict[str, Any] = {
            "num_nodes": num_nodes,
            "num_edges": num_edges,
            "mean_degree": (2 * num_edges / num_nodes) if num_nodes else 0,
            "edge_density": (num_edges / (num_nodes * (num_nodes - 1))) if num_nodes > 1 else 0,
        }
        for name in ("num_connected_components", "sizes_of_connected_components"):
            metrics[name] = -1
        if include_optional:
            for name in ("num_selfloops", "diameter", "avg_shortest_path_length", "avg_clustering"):
                metrics[name] = -1
        return metrics

    async def get_filtered_graph_data(
        self, attribute_filters: list[dict[str, list[str | int]]]
    ) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str, str, dict[str, Any]]]]:
        """Nodes whose properties match every filter (``{"type": ["Entity"]}``...), with the
        edges between them."""
        nodes, edges = await self.get_graph_data()

        def keep(props: dict[str, Any]) -> bool:
            return all(
                props.get(key) in values
                for condition in attribute_filters
                for key, values in condition.items()
            )

        kept = [(i, p) for i, p in nodes if keep(p)]
        ids = {i for i, _ in kept}
        return kept, [e for e in edges if e[0] in ids and e[1] in ids]

    # --- nodes -------------------------------------------------------------------------------

    async def get_node(self, node_id: str) -> dict[str, Any] | None:
        found = await self._nodes([node_id])
        return node_properties(found[0]) if found else None

    async def get_nodes(self, node_ids: list[str]) -> list[dict[str, Any]]:
        return [node_properties(n) for n in await self._nodes(node_ids)]

    async def extract_node(self, node_id: str) -> dict[str, Any] | None:
        return await self.get_node(node_id)

    async def extract_nodes(self, node_ids: list[str]) -> list[dict[str, Any]]:
        return await self.get_nodes(node_ids)

    async def has_node(self, node_id: str) -> bool:
        return bool(await self._nodes([node_id]))

    async def get_node_feedback_weights(self, node_ids: list[str]) -> dict[str, float]:
        """``{node_id: feedback_weight}`` for the ids found (others left out)."""
        return {str(n.id): n.feedback_weight for n in await self._nodes(node_ids)}

    async def get_edge_feedback_weights(self, edge_object_ids: list[str]) -> dict[str, float]:
        """``{edge_object_id: feedback_weight}`` for the edge ids found (others left out)."""
        wanted = [str(i) for i in _uuids(edge_object_ids)]
        if not wanted:
            return {}
        rows = await self.query(
            "MATCH (a)-[r]->(b) WHERE r.id IN $ids RETURN r.id, r.feedback_weight", {"ids": wanted}
        )
        return {str(edge_id): float(weight) for edge_id, weight in rows}

    async def get_node_truth_state(self, node_ids: list[str]) -> dict[str, dict[str, Any]]:
        raise FeatureNotAvailableError(
            "graph_engine.get_node_truth_state() is not available: engramdb keeps what a "
            "conversation established as TruthAnchor nodes with 'anchors' edges to the "
            "entities (improve(session_ids=[...], build_truth_subspace=True)); read them with "
            'get_graph_data() or query("MATCH (t:TruthAnchor)-[:anchors]->(e) RETURN t.text, '
            'e.name", {})'
        )

    # --- edges and neighbours ----------------------------------------------------------------

    async def get_edges(self, node_id: str) -> list[tuple[dict[str, Any], str, dict[str, Any]]]:
        """``(source_node, relationship_name, target_node)`` for each edge touching the node."""
        edges, nodes = await self._incident(node_id)
        return [
            (node_properties(nodes[e.source_id]), e.relation, node_properties(nodes[e.target_id]))
            for e in edges
        ]

    async def get_neighbors(self, node_id: str) -> list[dict[str, Any]]:
        edges, nodes = await self._incident(node_id)
        me = _uuids([node_id])[0] if _uuids([node_id]) else None
        others = dict.fromkeys(x for e in edges for x in (e.source_id, e.target_id) if x != me)
        return [node_properties(nodes[i]) for i in others]

    async def get_connections(
        self, node_id: str | UUID
    ) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
        """``(source_node, {"relationship_name", ...edge properties}, target_node)``."""
        edges, nodes = await self._incident(node_id)
        return [
            (
                node_properties(nodes[e.source_id]),
                edge_properties(e),
                node_properties(nodes[e.target_id]),
            )
            for e in edges
        ]

    async def has_edge(self, source_id: str, target_id: str, relationship_name: str) -> bool:
        return bool(await self.has_edges([(source_id, target_id, relationship_name, {})]))

    async def has_edges(self, edges: list[Any]) -> list[Any]:
        """The given ``(source, target, relationship_name, ...)`` tuples that exist."""
        _, _, datasets, store = await self._context()
        allowed = {d.id for d in datasets}
        pairs = []
        for edge in edges:
            ends = _uuids([edge[0]]), _uuids([edge[1]])
            if ends[0] and ends[1]:
                pairs.append((ends[0][0], ends[1][0]))
        found = {
            (str(e.source_id), str(e.target_id), e.relation)
            for e in (await store.edges_between(pairs) if pairs and allowed else [])
            if e.dataset_id in allowed
        }
        return [e for e in edges if (str(e[0]), str(e[1]), e[2]) in found]

    async def get_neighborhood(
        self, node_ids: list[str], depth: int = 1, edge_types: list[str] | None = None
    ) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str, str, dict[str, Any]]]]:
        """Nodes within ``depth`` hops of the seeds and the edges between them (cognee's
        ``get_graph_data`` shape); ``edge_types`` keeps only those relations."""
        from engramdb.access.permissions import visible_nodes

        seeds = _uuids(node_ids)
        _, user, datasets, store = await self._context()
        allowed = {d.id for d in datasets}
        if not seeds or not allowed:
            return [], []
        sub = await store.neighbourhood(seeds, depth=depth, limit=MAX_GRAPH_NODES)
        edges = [
            e
            for e in sub.edges
            if e.dataset_id in allowed and (edge_types is None or e.relation in edge_types)
        ]
        shown = visible_nodes(user, [n for n in sub.nodes if n.dataset_id in allowed], edges)
        ids = {n.id for n in shown.nodes}
        return (
            [(str(n.id), node_properties(n)) for n in shown.nodes],
            [edge_tuple(e) for e in shown.edges if e.source_id in ids and e.target_id in ids],
        )

    async def get_nodeset_subgraph(
        self, node_type: type[Any], node_name: list[str], node_name_filter_operator: str = "OR"
    ) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str, str, dict[str, Any]]]]:
        """The nodes of type ``node_type`` named in ``node_name`` with their neighbours, and the
        edges among them. For cognee's ``NodeSet`` type the named node sets are engramdb's
        ``node_set`` tags: the chunks tagged with them (with ``"AND"``: tagged with every name)
        and their neighbours. ``"OR"`` unites the named nodes' neighbourhoods, ``"AND"`` keeps
        the neighbours every named node shares."""
        operator = node_name_filter_operator.upper()
        if operator not in ("OR", "AND"):
            raise EngramValidationError(
                "node_name_filter_operator must be 'OR' or 'AND', got "
                f"{node_name_filter_operator!r}"
            )
        names = [n for n in dict.fromkeys(node_name) if isinstance(n, str)]
        type_name = getattr(node_type, "__name__", str(node_type))
        if not names:
            return [], []
        params = {f"n{i}": name for i, name in enumerate(names)}
        if type_name == "NodeSet":
            joiner = " AND " if operator == "AND" else " OR "
            condition = joiner.join(f"$n{i} IN c.node_set" for i in range(len(names)))
            rows = await self.query(f"MATCH (c:Chunk) WHERE {condition} RETURN c.id", params)
            groups = [[str(r[0]) for r in rows]]
        else:
            label = _ENGRAMDB_NODE_TYPES.get(type_name, type_name)
            rows = await self.query(
                f"MATCH (n:`{label}`) WHERE n.name IN $names RETURN n.id, n.name",
                {"names": names},
            )
            by_name: dict[str, list[str]] = {}
            for node_id, name in rows:
                by_name.setdefault(name, []).append(str(node_id))
            if operator == "AND" and len(by_name) < len(names):
                return [], []
            groups = (
                list(by_name.values())
                if operator == "AND"
                else [[i for ids in by_name.values() for i in ids]]
            )
        parts = [await self.get_neighborhood(g, depth=1) for g in groups if g]
        if not parts:
            return [], []
        keep = set.intersection(*({i for i, _ in p[0]} for p in parts)) | {
            i for g in groups for i in g
        }
        nodes = {i: props for p in parts for i, props in p[0] if i in keep}
        edges = {
            e[3]["edge_object_id"]: e
            for p in parts
            for e in p[1]
            if e[0] in nodes and e[1] in nodes
        }
        return list(nodes.items()), list(edges.values())

    # --- queries -----------------------------------------------------------------------------

    async def query(
        self, query: str, params: dict[str, Any] | None = None
    ) -> list[tuple[Any, ...]]:
        """Rows of a read-only Cypher query (engramdb's subset, docs/cypher.md) over the
        datasets read, each a tuple in the RETURN order. Write clauses are refused
        (CypherUnsupportedError); ``$name`` reads ``params["name"]``."""
        from engramdb.retrieval.cypher import DEFAULT_TIMEOUT_S, backend_for, run_cypher

        _, user, datasets, store = await self._context()
        if not datasets:
            return []
        result = await run_cypher(
            backend_for(store),
            query,
            [d.id for d in datasets],
            params or {},
            timeout=DEFAULT_TIMEOUT_S,
            viewer=user.id,
        )
        return [tuple(row[c] for c in result.columns) for row in result.rows]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise FeatureNotAvailableError(
            f"graph_engine.{name} is not available on engramdb; the graph engine offers "
            "cognee's read methods (get_graph_data, get_nodeset_subgraph, get_node(s), "
            "get_edges, get_neighbors, get_connections, get_neighborhood, has_node, has_edge(s), "
            "query, get_node_feedback_weights, get_edge_feedback_weights); write with "
            "remember() / add_data_points() and delete with forget()"
        )


for _name in WRITE_METHODS:
    setattr(GraphEngine, _name, _write_method(_name))
