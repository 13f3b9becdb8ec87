"""Reading the stored graph: every field of every node and edge, for inspection and tests."""

from __future__ import annotations

from engramdb.access.permissions import check, visible_nodes
from engramdb.api.recall import resolve_datasets
from engramdb.engine import Engine
from engramdb.errors import PermissionDeniedError
from engramdb.models.records import Node
from engramdb.models.requests.graph import GetGraphRequest, GetNodeRequest
from engramdb.models.snapshot import GraphSnapshot
from engramdb.validation import validate_uuid

__all__ = ["GraphSnapshot", "get_graph", "get_node"]


async def get_graph(engine: Engine, request: GetGraphRequest) -> GraphSnapshot:
    """The graph of the named datasets (every readable dataset when none are named).

    Names resolve strictly like recall() (DatasetNotFoundError for misses, own datasets only);
    ``dataset_ids`` need read permission (PermissionDeniedError, the same for unknown ids).
    At most ``limit`` nodes and ``2 * limit`` edges are returned; ``truncated`` says when more
    exist.
    """
    if not await engine.database_exists():
        return GraphSnapshot()
    owner = await engine.resolve_user(request.user)
    targets = await resolve_datasets(
        engine, owner, datasets=request.datasets, dataset_ids=request.dataset_ids
    )
    ids = [d.id for d in targets]
    nodes = await engine.store.list_nodes(ids, limit=request.limit + 1)
    edges = await engine.store.list_edges(ids, limit=2 * request.limit + 1)
    truncated = len(nodes) > request.limit or len(edges) > 2 * request.limit
    shown = visible_nodes(owner, nodes[: request.limit], edges[: 2 * request.limit])
    return GraphSnapshot(nodes=shown.nodes, edges=shown.edges, truncated=truncated)


async def get_node(engine: Engine, request: GetNodeRequest) -> Node | None:
    """One node with all its stored fields, or None -- also for a node in a dataset the user
    may not read (never told apart from a node that does not exist)."""
    wanted = validate_uuid(request.node_id, "node_id")
    if not await engine.database_exists():
        return None
    owner = await engine.resolve_user(request.user)
    found = await engine.store.get_nodes([wanted])
    if not found:
        return None
    try:
        await check(owner, found[0].dataset_id, "read", store=engine.store)
    except PermissionDeniedError:
        return None
    shown = visible_nodes(owner, found, ()).nodes  # another user's preference record: None
    return shown[0] if shown else None
