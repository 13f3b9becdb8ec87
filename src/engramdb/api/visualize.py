"""visualize_graph(): write the knowledge graph as an interactive, offline HTML page.

The page is meant to be looked at (and attached to a CI run or a bug report), so it is one file
with no external references; hovering a node shows every stored field, including the
``importance_weight`` that is stored but not drawn.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from uuid import UUID

from engramdb.access.permissions import denied, visible_nodes
from engramdb.api.recall import resolve_datasets
from engramdb.engine import Engine
from engramdb.errors import DatasetNotFoundError, EngramValidationError
from engramdb.models.records import Dataset, Edge, Node, User
from engramdb.models.requests.graph import VisualizeGraphRequest
from engramdb.validation import validate_uuid
from engramdb.viz.html import render_graph_html

__all__ = [
    "DEFAULT_FILENAME",
    "DEFAULT_MAX_EDGES",
    "DEFAULT_MAX_NODES",
    "cognee_scope",
    "visualize_graph",
    "wants_seeds",
]

#: File written in the current directory when no path is given.
DEFAULT_FILENAME = "graph.html"

#: Default bounds of one drawing: a browser lays out and draws this much smoothly, and the page
#: stays a few megabytes. Larger graphs are cut, and the page says so.
DEFAULT_MAX_NODES = 2000
DEFAULT_MAX_EDGES = 5000


async def visualize_graph(engine: Engine, request: VisualizeGraphRequest) -> str:
    """Write the graph of ``datasets`` (default: every dataset the user can read) to ``path``.

    ``datasets`` names resolve against the user's own datasets only; a dataset shared by another
    user is drawn when it is readable and no names are given, or by id through ``dataset_ids``
    (each needs read permission: PermissionDeniedError otherwise, the same for unknown ids).

    ``path`` defaults to ``graph.html`` in the current directory; a path to an existing
    directory writes ``graph.html`` inside it. Missing parent directories are created and the
    file is replaced atomically, so a browser reloading it never sees half a page. Returns the
    absolute path written.

    Before anything was ingested the page says the memory is empty (no exception). Dataset names
    are resolved strictly: an unknown name raises DatasetNotFoundError. At most ``max_nodes``
    nodes and ``max_edges`` edges are drawn; when the graph is larger the page says how much was
    left out.

    cognee's arguments are accepted: ``destination_file_path`` (``path``), ``dataset`` (one
    name or UUID), and the seeds of a bounded view (``query``: its nearest chunks,
    ``seed_node_ids``, ``recall_result``: the nodes a recall()/search() result came from), drawn
    with their ``neighborhood_depth``-hop neighbourhood; ``full=True`` (or no seed) draws the
    whole graph up to ``max_nodes``. cognee's session timeline is not drawn
    (``include_session_events`` and ``session_ids`` change nothing).
    """
    request = cognee_scope(request)
    target = _target_path(request.path)
    node_limit = _check_limit(request.max_nodes, "max_nodes")
    edge_limit = _check_limit(request.max_edges, "max_edges")

    nodes: list[Node] = []
    edges: list[Edge] = []
    targets: list[Dataset] = []
    notices: list[str] = []
    if not await engine.database_exists():
        # Nothing was ever ingested: do not create a database just to draw an empty page.
        if request.dataset_ids:
            raise denied(validate_uuid(request.dataset_ids[0], "dataset_ids entry"), "read")
        if request.datasets is not None:
            names = _check_names(request.datasets)
            if names:
                raise DatasetNotFoundError(
                    f"datasets not found: {', '.join(repr(n) for n in names)}; nothing has been "
                    "remembered yet",
                    missing=names,
                )
    else:
        owner = await engine.resolve_user(request.user)
        targets = await resolve_datasets(
            engine, owner, datasets=request.datasets, dataset_ids=request.dataset_ids
        )
        ids = [d.id for d in targets]
        seeds = await _seeds(engine, owner, request, targets) if ids else []
        if seeds:
            graph = await engine.store.neighbourhood(
                seeds, depth=request.neighborhood_depth, limit=node_limit
            )
            inside = set(ids)
            nodes = [n for n in graph.nodes if n.dataset_id in inside]
            kept = {n.id for n in nodes}
            edges = [e for e in graph.edges if e.source_id in kept and e.target_id in kept]
            edges = edges[:edge_limit]
            shown = visible_nodes(owner, nodes, edges)
            nodes, edges = shown.nodes, shown.edges
            notices.append(
                f"The {request.neighborhood_depth}-hop neighbourhood of {len(seeds)} seed "
                "node(s); pass full=True for the whole graph."
            )
        elif ids:
            store = engine.store
            nodes = await store.list_nodes(ids, limit=node_limit)
            total_nodes = await store.count_nodes(ids)
            if total_nodes > len(nodes):
                notices.append(
                    f"Showing the first {len(nodes):,} of {total_nodes:,} nodes "
                    f"(max_nodes={node_limit:,})."
                )
            edges = await store.list_edges(ids, limit=edge_limit + 1)
            if len(edges) > edge_limit:
                edges = edges[:edge_limit]
                notices.append(f"Edges cut at the first {edge_limit:,} (max_edges={edge_limit:,}).")
            shown = visible_nodes(owner, nodes, edges)  # others' preference records stay hidden
            nodes, edges = shown.nodes, shown.edges

    names_by_id: dict[UUID, str] = {d.id: d.name for d in targets}
    title = "engramdb memory graph"
    if targets:
        title += " — " + ", ".join(d.name for d in targets)
    page = render_graph_html(
        nodes,
        edges,
        title=title,
        dataset_names=names_by_id,
        notice=" ".join(notices) or None,
    )
    await asyncio.to_thread(_write_atomically, target, page)
    return str(target)


def cognee_scope(request: VisualizeGraphRequest) -> VisualizeGraphRequest:
    """The request with cognee's spellings folded into engramdb's: ``destination_file_path``
    into ``path``, ``dataset`` (a name or UUID) into ``datasets`` / ``dataset_ids``."""
    update: dict[str, object] = {}
    if request.destination_file_path is not None:
        if request.path is not None and request.path != request.destination_file_path:
            raise EngramValidationError("give path or destination_file_path, not both")
        update["path"] = request.destination_file_path
    if request.dataset is not None:
        if request.datasets is not None or request.dataset_ids is not None:
            raise EngramValidationError("give dataset, or datasets / dataset_ids, not both")
        if isinstance(request.dataset, UUID):
            update["dataset_ids"] = [request.dataset]
        else:
            update["datasets"] = [request.dataset]
    return request.model_copy(update=update) if update else request


def wants_seeds(request: VisualizeGraphRequest) -> bool:
    """Whether the view is seeded (a bounded neighbourhood) rather than the whole graph."""
    seeded = request.query is not None or request.seed_node_ids or request.recall_result
    return bool(seeded) and not request.full


async def _seeds(
    engine: Engine, owner: User, request: VisualizeGraphRequest, targets: list[Dataset]
) -> list[UUID]:
    if not wants_seeds(request):
        return []
    if request.seed_node_ids:
        return list(dict.fromkeys(request.seed_node_ids))
    if request.recall_result is not None:
        return _result_ids(request.recall_result)[: request.neighborhood_seed_top_k]
    from engramdb.api.search import search
    from engramdb.models.requests.classic import SearchRequest
    from engramdb.models.search_type import SearchType

    hits = await search(
        engine,
        SearchRequest(
            query_text=request.query or "",
            query_type=SearchType.CHUNKS,
            dataset_ids=[d.id for d in targets],
            top_k=request.neighborhood_seed_top_k,
            user=owner,
        ),
    )
    return [UUID(str(hit["id"])) for hit in hits if isinstance(hit, dict) and "id" in hit]


#: Keys of a result's payload that hold graph node ids.
_ID_KEYS = ("id", "node_id", "source_id", "target_id", "chunk_id", "used_graph_element_ids")


def _result_ids(result: object) -> list[UUID]:
    """The node ids a recall() or search() result came from (its entries' payloads)."""
    found: list[UUID] = []
    items = result if isinstance(result, list | tuple) else [result]
    for item in items:
        payload = getattr(item, "raw", item)
        if not isinstance(payload, dict):
            continue
        for key in _ID_KEYS:
            values = payload.get(key)
            for value in values if isinstance(values, list | tuple) else [values]:
                try:
                    found.append(UUID(str(value)))
                except ValueError:
                    continue
    return list(dict.fromkeys(found))


def _target_path(path: str | os.PathLike[str] | None) -> Path:
    if path is None:
        return Path.cwd() / DEFAULT_FILENAME
    if not isinstance(path, str | os.PathLike):
        raise EngramValidationError(
            f"path must be a file path (str or os.PathLike), got {type(path).__name__}"
        )
    raw = os.fspath(path)
    if not isinstance(raw, str) or not raw.strip():
        raise EngramValidationError("path is empty; pass a file name such as 'graph.html'")
    target = Path(raw).expanduser()
    if target.is_dir():
        target = target / DEFAULT_FILENAME
    return target.absolute()


def _check_limit(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EngramValidationError(f"{name} must be a positive integer, got {value!r}")
    return value


def _check_names(datasets: object) -> list[str]:
    if not isinstance(datasets, list | tuple) or not all(isinstance(n, str) for n in datasets):
        raise EngramValidationError("datasets must be a list of dataset names")
    return list(dict.fromkeys(datasets))


def _write_atomically(target: Path, text: str) -> None:
    """Write to a temporary sibling and rename it over ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
