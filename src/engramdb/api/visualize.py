"""visualize_graph(): write the knowledge graph as an interactive, offline HTML page.

The page is meant to be looked at (and attached to a CI run or a bug report), so it is one file
with no external references; hovering a node shows every stored field, including the
``importance_weight`` that is stored but not drawn.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from engramdb.access.permissions import denied, visible_nodes
from engramdb.api.recall import resolve_datasets
from engramdb.engine import Engine
from engramdb.errors import DatasetNotFoundError, EngramValidationError
from engramdb.ingest.queue import extract_for_read
from engramdb.models.records import Dataset, Edge, Node, User
from engramdb.models.requests.graph import VisualizeGraphRequest
from engramdb.paths import user_path
from engramdb.validation import validate_uuid
from engramdb.viz.html import graph_payload, render_graph_html
from engramdb.viz.select import select_graph

__all__ = [
    "DEFAULT_FILENAME",
    "DEFAULT_MAX_EDGES",
    "DEFAULT_MAX_NODES",
    "GraphView",
    "cognee_scope",
    "load_view",
    "render_view",
    "visualize_graph",
    "wants_seeds",
]

#: File written in the current directory when no path is given.
DEFAULT_FILENAME = "graph.html"

#: Default bounds of one drawing: a browser lays out and draws this much smoothly, and the page
#: stays a few megabytes. Larger graphs are cut, and the page says so.
DEFAULT_MAX_NODES = 2000
DEFAULT_MAX_EDGES = 5000

#: The most nodes (and edges) read to choose the drawn ones from (the store's list bound).
READ_LIMIT = 500_000


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
    nodes and ``max_edges`` edges are drawn: the most important nodes (stored importance weight
    times a degree term) and the edges among them, so a cut leaves no ring of orphans; the page
    says how much was left out. Internal bookkeeping nodes (the "context of X" buckets) are left
    out unless ``include_internal=True``; documents stored as ``text_<hash>`` are labelled with
    their first words.

    cognee's arguments are accepted: ``destination_file_path`` (``path``), ``dataset`` (one
    name or UUID), and the seeds of a bounded view (``query``: its nearest chunks,
    ``seed_node_ids``, ``recall_result``: the nodes a recall()/search() result came from), drawn
    with their ``neighborhood_depth``-hop neighbourhood; ``full=True`` (or no seed) draws the
    whole graph up to ``max_nodes``. cognee's session timeline is not drawn
    (``include_session_events`` and ``session_ids`` change nothing).
    """
    target = _target_path(cognee_scope(request).path)
    page = render_view(await load_view(engine, request))
    await asyncio.to_thread(_write_atomically, target, page)
    return str(target)


@dataclass
class GraphView:
    """What one drawing shows: nodes, edges, their datasets and what the page must say."""

    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    datasets: list[Dataset] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        title = "engramdb memory graph"
        return title + (" — " + ", ".join(d.name for d in self.datasets) if self.datasets else "")

    def payload(self) -> dict[str, Any]:
        """The data the renderer draws (the page's data block; the web UI's graph route)."""
        data = graph_payload(
            self.nodes,
            self.edges,
            title=self.title,
            dataset_names={d.id: d.name for d in self.datasets},
        )
        data["notices"] = list(self.notices)
        return data


def render_view(view: GraphView) -> str:
    """The self-contained page of ``view``."""
    return render_graph_html(
        view.nodes,
        view.edges,
        title=view.title,
        dataset_names={d.id: d.name for d in view.datasets},
        notice=" ".join(view.notices) or None,
    )


async def load_view(engine: Engine, request: VisualizeGraphRequest) -> GraphView:
    """Read what ``request`` draws: the seeded neighbourhood or the whole graph, capped to the
    most important nodes and the edges among them, internal nodes left out unless asked for."""
    request = cognee_scope(request)
    node_limit = _check_limit(request.max_nodes, "max_nodes")
    edge_limit = _check_limit(request.max_edges, "max_edges")
    view = GraphView()
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
        return view
    owner = await engine.resolve_user(request.user)
    view.datasets = await resolve_datasets(
        engine, owner, datasets=request.datasets, dataset_ids=request.dataset_ids
    )
    ids = [d.id for d in view.datasets]
    if not ids:
        return view
    await extract_for_read(engine, view.datasets)  # the graph includes queued documents
    seeds = await _seeds(engine, owner, request, view.datasets)
    store = engine.store
    if seeds:
        graph = await store.neighbourhood(seeds, depth=request.neighborhood_depth, limit=node_limit)
        inside = set(ids)
        nodes = [n for n in graph.nodes if n.dataset_id in inside]
        edges = list(graph.edges)
        view.notices.append(
            f"The {request.neighborhood_depth}-hop neighbourhood of {len(seeds)} seed "
            "node(s); pass full=True for the whole graph."
        )
    else:
        total = await store.count_nodes(ids)
        nodes = await store.list_nodes(ids, limit=min(max(total, 1), READ_LIMIT))
        edges = await store.list_edges(ids, limit=READ_LIMIT)
    shown = visible_nodes(owner, nodes, edges)  # others' preference records stay hidden
    chosen = select_graph(
        shown.nodes,
        shown.edges,
        max_nodes=node_limit,
        max_edges=edge_limit,
        include_internal=request.include_internal,
    )
    view.nodes, view.edges = chosen.nodes, chosen.edges
    if chosen.dropped_nodes:
        view.notices.append(
            f"Showing the {len(chosen.nodes):,} most important of "
            f"{len(chosen.nodes) + chosen.dropped_nodes:,} nodes (max_nodes={node_limit:,})."
        )
    if len(chosen.edges) == edge_limit and chosen.dropped_edges:
        view.notices.append(f"Edges cut at the {edge_limit:,} heaviest (max_edges={edge_limit:,}).")
    if chosen.internal_hidden:
        view.notices.append(
            f"{chosen.internal_hidden:,} internal node(s) hidden "
            "(include_internal=True shows them)."
        )
    return view


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
    target = user_path(raw)
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
