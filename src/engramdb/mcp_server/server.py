"""The engramdb MCP server: remember, recall, improve, forget and feedback as MCP tools.

Built on the official ``mcp`` SDK (``MCPServer``). Every tool call runs the SDK verb with
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
from typing import Annotated, Any, Literal, TypeVar
from uuid import UUID

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from engramdb.errors import AuthenticationError, EngramError
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


def build_server(*, api_key: str | None = None, http: bool = False) -> MCPServer[Any]:
    """The MCP server (tools registered); ``http=True`` reads the key of every request."""
    from engramdb import __version__

    caller = _Caller(api_key=api_key, http=http)
    server: MCPServer[Any] = MCPServer(
        "engramdb", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    @server.tool()
    async def remember(
        ctx: Context,
        text: Annotated[str | list[str], Field(description="A text or a list of texts.")],
        dataset_name: str = "main_dataset",
        importance_weight: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """Store text in memory (a dataset), or as notes of a session when session_id is given."""
        from engramdb.facade import remember as do_remember
        from engramdb.server.uploads import refuse_server_paths

        async def run() -> dict[str, Any]:
            user = await caller.user(ctx)
            if http:  # a remote caller sends text, never paths on this machine
                from engramdb.engine import get_engine

                texts = [text] if isinstance(text, str) else list(text)
                refuse_server_paths(texts, get_engine().settings.max_file_bytes)
            result = await do_remember(
                text,
                dataset_name,
                importance_weight=importance_weight,
                session_id=session_id,
                user=user,
            )
            dumped: dict[str, Any] = result.model_dump(mode="json")
            return dumped

        return await _guard(run)

    @server.tool()
    async def recall(
        ctx: Context,
        query: str,
        query_type: str | None = None,
        datasets: list[str] | None = None,
        top_k: Annotated[int, Field(ge=1, le=1000)] = 10,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """Search memory; results best first. query_type pins a search type (e.g. CHUNKS)."""
        from engramdb.facade import recall as do_recall

        async def run() -> dict[str, Any]:
            user = await caller.user(ctx)
            results = await do_recall(
                query,
                query_type,
                datasets=datasets,
                top_k=top_k,
                session_id=session_id,
                user=user,
            )
            return {"results": [r.model_dump(mode="json") for r in results]}

        return await _guard(run)

    @server.tool()
    async def improve(
        ctx: Context,
        dataset: str = "main_dataset",
        session_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        """Enrich a dataset (and bridge the given sessions into it)."""
        from engramdb.facade import improve as do_improve

        async def run() -> dict[str, Any]:
            user = await caller.user(ctx)
            result = await do_improve(dataset, session_ids=session_ids, user=user)
            dumped: dict[str, Any] = result.model_dump(mode="json")
            return dumped

        return await _guard(run)

    @server.tool()
    async def forget(
        ctx: Context,
        dataset: str | None = None,
        data_id: str | None = None,
        everything: bool = False,
    ) -> dict[str, Any]:
        """Delete one dataset (by name or id), one data item, or everything you own."""
        from engramdb.facade import forget as do_forget

        async def run() -> dict[str, Any]:
            user = await caller.user(ctx)
            ref: str | UUID | None = dataset
            if dataset is not None:
                try:
                    ref = UUID(dataset)
                except ValueError:
                    ref = dataset
            result = await do_forget(everything=everything, dataset=ref, data_id=data_id, user=user)
            dumped: dict[str, Any] = result.model_dump(mode="json")
            return dumped

        return await _guard(run)

    @server.tool()
    async def feedback(
        ctx: Context,
        session_id: str,
        qa_id: str,
        score: Annotated[int | None, Field(ge=1, le=5)] = None,
        text: str | None = None,
    ) -> dict[str, Any]:
        """Rate an answer recall gave in a session: 1 (bad) .. 5 (good), 3 is neutral."""
        from engramdb import session

        async def run() -> dict[str, Any]:
            user = await caller.user(ctx)
            saved = await session.add_feedback(
                session_id, qa_id, feedback_score=score, feedback_text=text, user=user
            )
            return {"saved": saved}

        return await _guard(run)

    return server


Transport = Literal["stdio", "http"]
