"""Remote mode: ``serve(url, api_key=...)`` sends the SDK's calls to an engramdb server.

::

    import engramdb as cognee

    await cognee.serve("http://localhost:8000", api_key="egm_...")
    await cognee.remember("Owls hunt at night.")          # POST /api/v1/remember
    results = await cognee.recall("When do owls hunt?")   # POST /api/v1/recall
    await cognee.disconnect()                             # back to in-process

The verbs keep their signatures and result types. ``serve()`` and ``disconnect()`` take effect
at once; awaiting ``serve()`` also checks that the server answers and the key is valid.
See ``docs/server.md`` for what cannot cross HTTP.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from engramdb.errors import RemoteUnavailableError
from engramdb.remote.client import RemoteClient
from engramdb.remote.switch import current_client, set_client

__all__ = [
    "Connection",
    "RemoteClient",
    "RemoteUnavailableError",
    "current_client",
    "disconnect",
    "serve",
]


class Connection:
    """What :func:`serve` returns: already connected; ``await`` it to check the server and the
    key (raises AuthenticationError for a bad key and goes back to in-process mode)."""

    def __init__(self, client: RemoteClient) -> None:
        self.client = client
        self.user: dict[str, Any] | None = None

    async def _check(self) -> Connection:
        try:
            self.user = await self.client.check()
        except BaseException:
            if current_client() is self.client:
                set_client(None)
            raise
        return self

    def __await__(self) -> Generator[Any, None, Connection]:
        return self._check().__await__()

    @property
    def url(self) -> str:
        return self.client.url


class _Disconnected:
    """What :func:`disconnect` returns; awaiting it closes the old connection pool."""

    def __init__(self, previous: RemoteClient | None) -> None:
        self.previous = previous

    async def _close(self) -> None:
        if self.previous is not None:
            await self.previous.aclose()

    def __await__(self) -> Generator[Any, None, None]:
        return self._close().__await__()


def serve(
    url: str = "http://localhost:8000", *, api_key: str | None = None, timeout: float = 300.0
) -> Connection:
    """Send every SDK verb to the engramdb server at ``url`` from now on, as the user of
    ``api_key``. Works with or without ``await`` (awaiting verifies the connection)."""
    client = RemoteClient(url, api_key, timeout=timeout)
    set_client(client)
    return Connection(client)


def disconnect() -> _Disconnected:
    """Back to in-process mode (the local data directory). Works with or without ``await``."""
    return _Disconnected(set_client(None))
