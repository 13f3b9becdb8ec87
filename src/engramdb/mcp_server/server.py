"""The engramdb MCP server: remember, recall, improve, forget and feedback as MCP tools.

Built on the official ``mcp`` SDK (``MCPServer``). The tools and their schemas derive from the
verbs' request models (:mod:`engramdb.mcp_server.tools`); every call runs the verb with
``user=`` set, so the permission model is the REST server's:

* over **streamable HTTP** each request must carry an API key (``Authorization: Bearer <key>``
  or ``X-Api-Key``); a request without a valid key is refused with 401 before MCP sees it;
* over **stdio** the tools run as the user of the API key given at start (``--api-key`` /
  ``ENGRAMDB_API_KEY``), or as the local default user when none is given -- the same user the
  CLI runs as, since whoever starts a stdio server already has the data directory.

A refused or failed call comes back as an MCP tool error (``is_error``) whose text names the
error class and its HTTP status, e.g. ``PermissionDeniedError (403): ...``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from engramdb.errors import AuthenticationError, EngramError
from engramdb.mcp_server.tools import TOOLS, McpTool, run_tool, tool_function
from engramdb.models.records import User

__all__ = ["build_server"]

T = TypeVar("T")

INSTRUCTIONS = (
    "engramdb is persistent memory. Use `remember` to store facts or documents, `recall` to "
    "search memory before answering, `feedback` to rate an answer recall gave in a session, "
    "`improve` to enrich a dataset after many writes, and `forget` to delete."
)


class _Caller:
    """Finds the user of a tool call (see the module docstring)."""

    def __init__(self, *, api_key: str | None, http: bool) -> None:
        self.api_key = api_key
        self.http = http

    async def user(self, ctx: Context) -> User | None:
        from engramdb.engine import get_engine
        from engramdb.server.auth import authenticate_key

        if not self.http:
            return (
                None if self.api_key is None else await authenticate_key(get_engine(), self.api_key)
            )
        key = _key_from_headers(ctx.headers or {})
        if key is None:
            raise AuthenticationError("this MCP server needs an API key (Authorization: Bearer)")
        return await authenticate_key(get_engine(), key)


def _key_from_headers(headers: Mapping[str, str]) -> str | None:
    lowered = {k.lower(): v for k, v in headers.items()}
    auth = lowered.get("authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    key = lowered.get("x-api-key", "").strip()
    return key or None


async def _guard(call: Callable[[], Awaitable[T]]) -> T:
    """Run a tool body; engramdb errors become tool errors the model can read."""
    try:
        return await call()
    except EngramError as exc:
        raise ToolError(f"{type(exc).__name__} ({exc.status_code}): {exc.message}") from exc


def build_server(
    *, api_key: str | None = None, http: bool = False, allow_files: bool = False
) -> MCPServer[Any]:
    """The MCP server (tools registered); ``http=True`` reads the key of every request.
    A text naming a file or folder is refused unless ``allow_files`` (stdio only) lets the
    remember tool read it from this machine."""
    reads_files = allow_files and not http
    from engramdb import __version__

    caller = _Caller(api_key=api_key, http=http)
    server: MCPServer[Any] = MCPServer(
        "engramdb", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    for tool in TOOLS:

        async def run(ctx: Context, arguments: Mapping[str, Any], tool: McpTool = tool) -> Any:
            async def call() -> dict[str, Any]:
                from engramdb.engine import get_engine

                user = await caller.user(ctx)
                engine = get_engine()
                if tool.verb == "remember" and not reads_files:  # text, never paths on this host
                    from engramdb.server.uploads import refuse_server_paths

                    text = arguments.get("text")
                    texts = [text] if isinstance(text, str) else list(text or [])
                    refuse_server_paths(texts, engine.settings.max_file_bytes)
                return await run_tool(tool, engine, user, arguments)

            return await _guard(call)

        server.add_tool(tool_function(tool, run, Context), name=tool.name)

    return server


Transport = Literal["stdio", "http"]
