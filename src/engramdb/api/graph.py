"""Reading the stored graph: every field of every node and edge, for inspection and tests."""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel, Field

from engramdb.access.permissions import check, visible_nodes
from engramdb.api.recall import resolve_datasets
from engramdb.engine import get_engine
from engramdb.errors import PermissionDeniedError
from engramdb.models.records import Edge, Node, User
from engramdb.validation import validate_uuid

__all__ = ["GraphSnapshot", "get_graph", "get_node"]


class GraphSnapshot(BaseModel):
    """Nodes and edges of some datasets, each with all its stored fields."""

    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    truncated: bool = False

    def nodes_of_type(self, type_: str) -> list[Node]:
        return [n for n in self.nodes if n.type == type_]

    def node_named(self, name: str, type_: str | None = None) -> Node | None:
        """The first node whose name matches case-insensitively (optionally of one type)."""
        wanted = name.casefold()
        for node in self.nodes:
            if node.name.casefold() == wanted and (type_ is None or node.type == type_):
                return node
        return None


async def get_graph(
    datasets: list[str] | None = None,
    *,
    dataset_ids: list[UUID] | None = None,
    user: User | None = None,
    limit: int = 10_000,
) -> GraphSnapshot:
    """The graph of the named datasets (every readable dataset when none are named).

    Names resolve strictly like recall() (DatasetNotFoundError for misses, own datasets only);
    ``dataset_ids`` need read permission (PermissionDeniedError, the same for unknown ids).
    At most ``limit`` nodes and ``2 * limit`` edges are returned; ``truncated`` says when more
    exist.
    """
    engine = get_engine()
    if not await engine.database_exists():
        return GraphSnapshot()
    owner = await engine.resolve_user(user)
    targets = await resolve_datasets(engine, owner, datasets=datasets, dataset_ids=dataset_ids)
    ids = [d.id for d in targets]
    nodes = await engine.store.list_nodes(ids, limit=limit + 1)
    edges = await engine.store.list_edges(ids, limit=2 * limit + 1)
    truncated = len(nodes) > limit or len(edges) > 2 * limit
    shown = visible_nodes(owner, nodes[:limit], edges[: 2 * limit])
    return GraphSnapshot(nodes=shown.nodes, edges=shown.edges, truncated=truncated)


async def get_node(node_id: UUID, *, user: User | None = None) -> Node | None:
    """One node with all its stored fields, or None -- also for a node in a dataset the user
    may not read (never told apart from a node that does not exist)."""
    wanted = validate_uuid(node_id, "node_id")
    engine = get_engine()
    if not await engine.database_exists():
        return None
    owner = await engine.resolve_user(user)
    found = await engine.store.get_nodes([wanted])
    if not found:
        return None
    try:
        await check(owner, found[0].dataset_id, "read", store=engine.store)
    except PermissionDeniedError:
        return None
    shown = visible_nodes(owner, found, ()).nodes  # another user's preference record: None
    return shown[0] if shown else None
