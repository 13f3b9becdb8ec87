"""The FastAPI application: routes, authentication, problem JSON, request limits, runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi

from engramdb.server.api_docs import add_api_docs
from engramdb.server.bodies import components
from engramdb.server.limits import BodyLimitMiddleware, Limits
from engramdb.server.metrics import MetricsMiddleware
from engramdb.server.metrics import router as metrics_router
from engramdb.server.problems import install_problem_handlers
from engramdb.server.runs import RunRegistry
from engramdb.server.schemas import HealthOut, Problem
from engramdb.server.verb_routes import add_verb_routes
from engramdb.verbs.spec import API_PREFIX

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["create_app"]

_ERRORS = {
    "401": "no or an invalid API key",
    "403": "not permitted (or no such object: never told apart)",
    "404": "not found",
    "413": "request body too large",
    "422": "invalid input; nothing was written",
    "501": "not available yet: a feature or option combination that is not built",
}


def create_app(engine: Engine | None = None, *, limits: Limits | None = None) -> FastAPI:
    """A new engramdb REST application (``uvicorn`` serves it; see :func:`engramdb.server.run`).

    It serves ``engine`` and closes it when the application shuts down; without one, the
    default engine of the current settings (``ENGRAMDB_DATA_DIR`` / ``ENGRAMDB_STORAGE_URL``).
    """
    from engramdb import __version__
    from engramdb.server import (
        routes_admin,
        routes_classic,
        routes_data,
        routes_memory,
        routes_ui,
    )

    runs = RunRegistry()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from engramdb.engine import get_engine
        from engramdb.settings import check_deferred

        check_deferred((engine or get_engine()).settings)  # improve.md: "at startup"
        app.state.runs = runs
        try:
            yield
        finally:
            await runs.shutdown()
            if engine is not None:
                await engine.close()

    app = FastAPI(
        title="engramdb",
        version=__version__,
        description=(
            "Persistent memory for AI agents. Every route except /health needs an API key "
            "(Authorization: Bearer <key> or X-Api-Key). Errors are RFC 9457 problem documents."
        ),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.runs = runs
    app.state.engine = engine
    install_problem_handlers(app)
    ref = {"$ref": "#/components/schemas/Problem"}
    problem = {"content": {"application/problem+json": {"schema": ref}}}
    errors: dict[int | str, dict[str, Any]] = {
        code: {"description": text, **problem} for code, text in _ERRORS.items()
    }
    verbs = APIRouter(prefix=API_PREFIX)
    add_verb_routes(verbs)
    for router in (
        routes_memory.router,
        routes_classic.router,
        verbs,
        routes_data.router,
        routes_ui.router,
        routes_admin.router,
    ):
        app.include_router(router, responses=errors)

    @app.get("/health", response_model=HealthOut, tags=["health"])
    async def health() -> HealthOut:
        """Liveness: answers without authentication and without touching the store."""
        return HealthOut(version=__version__)

    app.include_router(metrics_router)
    add_api_docs(app)
    routes_ui.add_ui(app)
    app.openapi = _openapi_builder(app)  # type: ignore[method-assign]
    app.add_middleware(BodyLimitMiddleware, limits=limits or Limits())
    app.add_middleware(MetricsMiddleware)  # outermost: counts the limits' refusals too
    return app


def _openapi_builder(app: FastAPI) -> Any:
    """``app.openapi`` with the hand-documented remember bodies added to the components."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        from engramdb.server.routes_classic import ADD_UPLOAD_SCHEMA
        from engramdb.server.routes_memory import REMEMBER_UPLOAD_SCHEMA

        document = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
        )
        schemas = document.setdefault("components", {}).setdefault("schemas", {})
        schemas.update(components())
        schemas["RememberUpload"] = REMEMBER_UPLOAD_SCHEMA
        schemas["AddUpload"] = ADD_UPLOAD_SCHEMA
        schemas["Problem"] = Problem.model_json_schema()
        app.openapi_schema = document
        return document

    return build
