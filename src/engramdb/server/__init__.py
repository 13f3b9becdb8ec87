"""The engramdb REST server (``engramdb serve``): a thin FastAPI layer over the SDK verbs.

Needs the ``server`` extra (``pip install 'engramdb[server]'``). See ``docs/server.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from engramdb.engine import Engine
    from engramdb.server.limits import Limits

__all__ = ["create_app", "run"]


def create_app(engine: Engine | None = None, *, limits: Limits | None = None) -> FastAPI:
    """The REST application serving ``engine`` (see :func:`engramdb.server.app.create_app`)."""
    try:
        from engramdb.server.app import create_app as build
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        from engramdb.errors import FeatureNotAvailableError

        raise FeatureNotAvailableError(
            "the engramdb server needs FastAPI and uvicorn: pip install 'engramdb[server]'"
        ) from exc
    return build(engine, limits=limits)


def run(host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "info") -> None:
    """Serve the REST API with uvicorn until interrupted, on an engine of the current settings
    that is closed (its WAL checkpointed) when the server stops. With ``LOG_FORMAT=json`` every
    log line (uvicorn's too) is a JSON object."""
    import uvicorn

    from engramdb.engine import Engine
    from engramdb.observability.logs import configure_logging
    from engramdb.server.limits import Limits
    from engramdb.settings import config

    limits = Limits()
    options = limits.uvicorn_options()

    if config.settings.log_format == "json":
        # uvicorn's own loggers then propagate to the root logger's JSON handler.
        configure_logging(config.settings)
        options["log_config"] = None
    app = create_app(Engine(), limits=limits)
    uvicorn.run(app, host=host, port=port, log_level=log_level, **options)
