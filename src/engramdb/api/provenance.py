"""``get_memory_provenance_graph()``: who owns which dataset, which file each memory came from.

cognee's function returns ``(nodes, edges)``: nodes as ``(id, {"type", "name", ...})`` with the
types ``User``, ``Dataset``, ``TextDocument`` (a data item) and, with ``include_memory``, the
extracted entities; edges as ``(source, target, relation, {})`` with ``owns`` (user → dataset),
``contains`` (dataset → data item) and ``mentions`` (data item → entity). Ids are cognee's:
``user:<uuid>``, ``dataset:<uuid>``, ``file:<uuid>``, and the entity's own id.

Unlike cognee's global read (which its docstring warns leaks across tenants unless scoped),
the graph holds only what the caller may read: their readable datasets, their own user node,
and each shared dataset's owner as an id without an e-mail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from engramdb.access.permissions import readable_datasets, visible_nodes
from engramdb.engine import Engine
from engramdb.errors import FeatureNotAvailableError
from engramdb.models.records import NodeType, User
from engramdb.storage.lending import dataset_lock

__all__ = ["get_memory_provenance_graph"]

ProvenanceNode = tuple[str, dict[str, Any]]
ProvenanceEdge = tuple[str, str, str, dict[str, Any]]
#: Entities read per dataset for the memory layer (the graph page's bound).
MEMORY_NODE_LIMIT = 2_000


async def get_memory_provenance_graph(
    engine: Engine,
    include_memory: bool = False,
    scope_tenant_ids: Sequence[Any] | None = None,
    scope_user_ids: Sequence[Any] | None = None,
    scope_dataset_ids: Sequence[Any] | None = None,
    *,
    user: User | None = None,
) -> tuple[list[ProvenanceNode], list[ProvenanceEdge]]:
    """The provenance graph described in the module docstring. ``scope_dataset_ids`` narrows it
    to those datasets (of the readable ones); ``scope_user_ids`` to datasets those users own;
    a tenant scope other than the tenant the caller works in is refused."""
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[ProvenanceEdge] = []
    if not await engine.database_exists():
        return [], []
    owner = await engine.resolve_user(user)
    store = engine.store
    datasets = await readable_datasets(store, owner)
    if scope_tenant_ids:
        working = await store.membership(owner.id)
        if {str(t) for t in scope_tenant_ids} != {str(working.tenant_id)}:
            raise FeatureNotAvailableError(
                "get_memory_provenance_graph(scope_tenant_ids=...) reads only the tenant you work "
                "in on engramdb; select_tenant() first, or leave the scope out"
            )
    if scope_user_ids:
        wanted = {str(u) for u in scope_user_ids}
        datasets = [d for d in datasets if str(d.owner_id) in wanted]
    if scope_dataset_ids:
        wanted = {str(d) for d in scope_dataset_ids}
        datasets = [d for d in datasets if str(d.id) in wanted]
    nodes[f"user:{owner.id}"] = {"type": "User", "name": owner.email or str(owner.id)}
    for dataset in datasets:
        owner_key = f"user:{dataset.owner_id}"
        nodes.setdefault(owner_key, {"type": "User", "name": str(dataset.owner_id)})
        dataset_key = dataset_lock(dataset.id)
        nodes[dataset_key] = {"type": "Dataset", "name": dataset.name}
        edges.append((owner_key, dataset_key, "owns", {}))
        for data in await store.list_data(dataset.id):
            file_key = f"file:{data.id}"
            nodes[file_key] = {
                "type": "TextDocument",
                "name": data.name,
                "source_node_set": dataset.name,
            }
            edges.append((dataset_key, file_key, "contains", {}))
        if include_memory:
            await _memory(engine, owner, dataset.id, nodes, edges)
    return list(nodes.items()), edges


async def _memory(
    engine: Engine,
    owner: User,
    dataset_id: UUID,
    nodes: dict[str, dict[str, Any]],
    edges: list[ProvenanceEdge],
) -> None:
    """The dataset's entities, each linked from the data items it was extracted from."""
    found = await engine.store.list_nodes([dataset_id], limit=MEMORY_NODE_LIMIT)
    shown = visible_nodes(owner, found, []).nodes
    for node in shown:
        if node.type != NodeType.ENTITY:
            continue
        key = str(node.id)
        nodes[key] = {
            "type": node.type,
            "name": node.name,
            "importance_weight": node.importance_weight,
        }
        for data_id in node.data_ids:
            file_key = f"file:{data_id}"
            if file_key in nodes:
                edges.append((file_key, key, "mentions", {}))
