"""The web UI at :data:`~engramdb.server.api_docs.UI_PATH` and the one route only it needs.

The UI is a static single-page app built from ``ui/`` (``scripts/build-ui.sh``) and shipped in
the package under ``ui_dist/``, so serving it needs no network and no npm. It signs in with an
API key and talks to the same ``/api/v1`` routes as any client. ``GET /api/v1/graph/view`` is
the graph the way ``visualize_graph()`` draws it (most important nodes first, the edges among
them, internal nodes hidden, human names), so the page and the explorer show the same picture.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

from engramdb.api.visualize import load_view
from engramdb.models.requests.common import DatasetIds, DatasetNames
from engramdb.models.requests.graph import VisualizeGraphRequest
from engramdb.server.api_docs import UI_PATH
from engramdb.server.auth import CurrentUser
from engramdb.server.bodies import EngineDep
from engramdb.verbs.spec import API_PREFIX

__all__ = ["add_ui", "router", "ui_dir"]

router = APIRouter(prefix=API_PREFIX)

_LIMITS = VisualizeGraphRequest.model_fields


def ui_dir() -> Path:
    """The folder of the built web UI inside the installed package."""
    return Path(str(files("engramdb.server") / "ui_dist"))


@router.get("/graph/view", tags=["graph"], response_model=dict[str, Any])
async def graph_view_route(
    user: CurrentUser,
    engine: EngineDep,
    datasets: Annotated[DatasetNames, Query()] = None,
    dataset_ids: Annotated[DatasetIds, Query()] = None,
    max_nodes: Annotated[int, Query(ge=1, le=100_000)] = _LIMITS["max_nodes"].default,
    max_edges: Annotated[int, Query(ge=1, le=500_000)] = _LIMITS["max_edges"].default,
    include_internal: bool = False,
) -> dict[str, Any]:
    """The graph as ``visualize_graph()`` draws it: ``nodes`` and ``edges`` with every stored
    field, a human ``label`` per node, ``types`` with their colours, ``notices`` about what was
    left out. Names resolve like recall(); ids need read permission."""
    request = VisualizeGraphRequest(
        datasets=datasets,
        dataset_ids=dataset_ids,
        max_nodes=max_nodes,
        max_edges=max_edges,
        include_internal=include_internal,
        full=True,
        user=user,
    )
    return (await load_view(engine, request)).payload()


def add_ui(app: FastAPI) -> None:
    """Serve the built UI at ``/ui/`` (``/ui`` redirects there) when the package ships it."""
    folder = ui_dir()
    if not (folder / "index.html").is_file():
        return

    @app.get(UI_PATH, include_in_schema=False)
    async def ui_root() -> RedirectResponse:
        return RedirectResponse(f"{UI_PATH}/")

    app.mount(f"{UI_PATH}/", StaticFiles(directory=folder, html=True), name="ui")
