"""The engramdb MCP server (``engramdb mcp``): memory tools for agents over stdio or HTTP.

Needs the ``server`` extra (``pip install 'engramdb[server]'``). See ``docs/server.md``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["ApiKeyMiddleware", "build_server", "http_app", "run"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def build_server(
    *, api_key: str | None = None, http: bool = False, allow_files: bool = False
) -> Any:
    """The ``MCPServer`` with engramdb's tools (see :mod:`engramdb.mcp_server.server`)."""
    try:
        from engramdb.mcp_server.server import build_server as build
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        from engramdb.errors import FeatureNotAvailableError

        raise FeatureNotAvailableError(
            "the MCP server needs the official mcp SDK: pip install 'engramdb[server]'"
        ) from exc
    return build(api_key=api_key, http=http, allow_files=allow_files)


class ApiKeyMiddleware:
    """Refuses HTTP requests without a valid API key (401 problem JSON) before MCP runs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from engramdb.engine import get_engine
        from engramdb.errors import AuthenticationError, EngramError
        from engramdb.mcp_server.server import _key_from_headers
        from engramdb.server.auth import authenticate_key
        from engramdb.server.problems import error_response

        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        key = _key_from_headers(headers)
        try:
            if key is None:
                raise AuthenticationError(
                    "this MCP server needs an API key: send 'Authorization: Bearer <key>'"
                )
            await authenticate_key(get_engine(), key)
        except EngramError as exc:
            await error_response(exc)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def http_app(*, path: str = "/mcp", stateless: bool = True) -> ApiKeyMiddleware:
    """The streamable-HTTP MCP application, behind API-key authentication."""
    server = build_server(http=True)
    inner = server.streamable_http_app(
        streamable_http_path=path, stateless_http=stateless, json_response=True
    )
    return ApiKeyMiddleware(inner)


def run(
    transport: str = "stdio",
    *,
    host: str = "127.0.0.1",
    port: int = 8001,
    api_key: str | None = None,
    allow_files: bool = False,
) -> None:
    """Serve MCP over ``stdio`` (as ``api_key``'s user, or the default user) or ``http``.
    ``allow_files`` lets stdio's remember tool read local files and folders named in a text
    (off by default; never over HTTP)."""
    if transport == "stdio":
        build_server(api_key=api_key, allow_files=allow_files).run("stdio")
        return
    if transport != "http":
        from engramdb.errors import EngramValidationError

        raise EngramValidationError("transport must be 'stdio' or 'http'")
    import uvicorn

    uvicorn.run(http_app(), host=host, port=port, log_level="warning")
