"""One client interface for every way of running the verbs.

The module-level verbs (``engramdb.recall`` ...), the CLI and the MCP server call
``client.call(verb, request)`` on the current :class:`Client`: a :class:`LocalClient` over an
in-process :class:`~engramdb.Engine`, or, after :func:`engramdb.serve`, the
:class:`~engramdb.remote.client.HttpClient` of a server. Both take the same validated request
(:mod:`engramdb.models.requests`) and return the same result types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.verbs.spec import Verb

__all__ = ["Client", "LocalClient"]

Res = TypeVar("Res")


class Client(Protocol):
    """Runs verbs: in-process (:class:`LocalClient`) or over HTTP (``HttpClient``)."""

    async def call(self, verb: Verb[Any, Res], request: Any) -> Res:
        """Run ``verb`` with its validated request model; the verb's result."""
        ...

    async def close(self) -> None:
        """Release what the client holds (connections; an owned engine)."""
        ...


class LocalClient:
    """Runs verbs on an in-process engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def call(self, verb: Verb[Any, Res], request: Any) -> Res:
        return await verb.handler(self.engine, request)

    async def close(self) -> None:
        await self.engine.close()
