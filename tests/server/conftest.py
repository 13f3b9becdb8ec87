"""A real engramdb server on 127.0.0.1 (uvicorn in a thread, random free port) per test.

The server runs on its own event loop; :meth:`LiveServer.call` runs a coroutine there, so
bootstrap work (creating users and keys with :mod:`engramdb.access`) uses the same engine and
loop as the requests. Tests talk to it over real HTTP (httpx).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import uvicorn

from engramdb.server import create_app
from engramdb.server.limits import Limits

T = TypeVar("T")


@dataclass
class Account:
    """A user with an API key."""

    user: Any
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


class LiveServer:
    """uvicorn serving :func:`create_app` in a background thread."""

    def __init__(self, limits: Limits | None = None, app: Any = None) -> None:
        limits = limits or Limits()
        self.app = app if app is not None else create_app(limits=limits)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="on", **limits.uvicorn_options()
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.server.serve(sockets=[self.sock]))

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the server's event loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def account(self, email: str, *, is_admin: bool = False) -> Account:
        """Create a user and an API key for them."""
        from engramdb.engine import get_engine

        async def make() -> Account:  # on the served engine, whatever the remote switch says
            engine = get_engine()
            user = await engine.create_user(email, is_admin=is_admin)
            _info, key = await engine.create_api_key(user.id, name="test")
            return Account(user, key)

        return self.call(make())

    def client(self, account: Account | None = None) -> httpx.Client:
        headers = account.headers if account is not None else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


@pytest.fixture
def live_server(isolated_config: Path) -> Iterator[LiveServer]:
    server = LiveServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def alice(live_server: LiveServer) -> Account:
    return live_server.account("alice@example.com")


@pytest.fixture
def bob(live_server: LiveServer) -> Account:
    return live_server.account("bob@example.com")


@pytest.fixture
def admin(live_server: LiveServer) -> Account:
    return live_server.account("admin@example.com", is_admin=True)
