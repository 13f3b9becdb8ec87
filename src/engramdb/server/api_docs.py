"""The API documentation pages, served offline: Swagger UI at ``/docs``, ReDoc at ``/redoc``.

FastAPI's own pages load their JavaScript and CSS from a CDN; these load them from the server
itself (``/docs/assets``), from the files the ``fastapi-offline`` package ships (part of the
``server`` extra), so the pages work on a machine with no network. They need no API key, like
``/openapi.json`` they render.

:data:`UI_PATH` is where the web UI lives (:mod:`engramdb.server.routes_ui` serves it); the UI
links to :data:`DOCS_PATH`.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from engramdb.errors import FeatureNotAvailableError

__all__ = ["ASSETS_PATH", "DOCS_PATH", "REDOC_PATH", "UI_PATH", "add_api_docs", "assets_dir"]

DOCS_PATH = "/docs"
REDOC_PATH = "/redoc"
ASSETS_PATH = "/docs/assets"
#: The web UI's path (served by engramdb.server.routes_ui; it links back to DOCS_PATH).
UI_PATH = "/ui"

#: The files the pages load, as shipped by fastapi-offline.
_ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js", "favicon.png")


def assets_dir() -> Path:
    """The folder holding the Swagger UI and ReDoc files (FeatureNotAvailableError naming the
    extra when the package is missing or incomplete)."""
    try:
        folder = Path(str(files("fastapi_offline") / "static"))
    except ModuleNotFoundError as exc:
        raise FeatureNotAvailableError(
            "the offline API docs need the fastapi-offline package: pip install 'engramdb[server]'"
        ) from exc
    missing = [name for name in _ASSETS if not (folder / name).is_file()]
    if missing:
        raise FeatureNotAvailableError(
            f"fastapi-offline ships no {', '.join(missing)}; reinstall 'engramdb[server]'"
        )
    return folder


def add_api_docs(app: FastAPI, *, openapi_url: str = "/openapi.json") -> None:
    """Serve ``/docs``, ``/redoc`` and their assets on ``app``."""
    app.mount(ASSETS_PATH, StaticFiles(directory=assets_dir()), name="api-docs-assets")
    title = f"{app.title} API"
    favicon = f"{ASSETS_PATH}/favicon.png"

    @app.get(DOCS_PATH, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=title,
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=favicon,
            # no call to the public validator service (its badge is an outside request)
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(REDOC_PATH, include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=title,
            redoc_js_url=f"{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=favicon,
            with_google_fonts=False,
        )
