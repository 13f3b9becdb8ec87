"""Which client the module-level verbs use: in-process, or the server of :func:`engramdb.serve`.

``engramdb.recall`` and every other module-level verb (:mod:`engramdb.facade`) validate their
arguments into the verb's request and hand it to :func:`active_client`: a
:class:`~engramdb.client.LocalClient` over the default engine, or, while a server is connected,
its :class:`~engramdb.remote.client.HttpClient`. The connected client is, with the engine
registry, the only module-level state of the library.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engramdb.client import Client
    from engramdb.remote.client import HttpClient

__all__ = ["active_client", "current_client", "set_client"]


class _Remote:
    """The remote-mode registry: the connected client, if any."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.client: HttpClient | None = None


_remote = _Remote()


def current_client() -> HttpClient | None:
    """The connected server's client, or None (in-process mode)."""
    return _remote.client


def active_client() -> Client:
    """The client the module-level verbs use: the connected server's, else a local client over
    the default engine of the current settings."""
    remote = _remote.client
    if remote is not None:
        return remote
    from engramdb.client import LocalClient
    from engramdb.engine import get_engine

    return LocalClient(get_engine())


def set_client(client: HttpClient | None) -> HttpClient | None:
    """Install ``client`` (None: back to in-process); returns the previous one."""
    with _remote.lock:
        previous, _remote.client = _remote.client, client
    return previous
