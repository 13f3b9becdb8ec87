"""The switch between in-process and remote verbs.

``engramdb.<verb>`` (resolved through the lazy map of ``engramdb/__init__.py``) is the local
function wrapped by :func:`switchable`: with no server connected it calls the local function
unchanged; after :func:`engramdb.serve` it binds the call against the local signature (so an
unknown keyword is the same ``TypeError``) and sends the bound arguments to the server.
``engramdb.session`` is wrapped as a module whose verbs switch the same way.
"""

from __future__ import annotations

import functools
import inspect
import threading
import types
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

if TYPE_CHECKING:
    from engramdb.client import Client
    from engramdb.remote.client import RemoteClient

__all__ = [
    "REMOTE_VERBS",
    "active_client",
    "current_client",
    "set_client",
    "switchable",
    "wrap_public",
]

P = ParamSpec("P")
R = TypeVar("R")

#: Public names without a request model yet that switch to the server in remote mode (the verbs
#: of :mod:`engramdb.verbs` go through :func:`active_client`). Verbs without a route raise
#: FeatureNotAvailableError in remote mode instead of silently writing to local data.
REMOTE_VERBS = frozenset(
    {
        "list_conflicts",
        "resolve_conflict",
        "load_skill",
        "visualize_graph",
        "get_graph",
        "get_node",
        "remember_skill",
        "remember_skills",
    }
)
#: Verbs of ``engramdb.session`` that switch.
SESSION_VERBS = frozenset(
    {
        "add_feedback",
        "get_session",
        "delete_feedback",
        "list_sessions",
        "delete_session",
        "add_qa",
        "add_trace",
        "get_traces",
        "add_guidance",
    }
)


class _Remote:
    """The remote-mode registry: the connected client, if any (like the engine registry, the
    one other piece of module-level state)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.client: RemoteClient | None = None


_remote = _Remote()


def current_client() -> RemoteClient | None:
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


def set_client(client: RemoteClient | None) -> RemoteClient | None:
    """Install ``client`` (None: back to in-process); returns the previous one."""
    with _remote.lock:
        previous, _remote.client = _remote.client, client
    return previous


def switchable(name: str, local: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """``local``, or the server's ``name`` verb while a server is connected."""
    signature = inspect.signature(local)

    @functools.wraps(local)
    async def verb(*args: P.args, **kwargs: P.kwargs) -> R:
        client = current_client()
        if client is None:
            return await local(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)  # TypeError for unknown keywords, as locally
        bound.apply_defaults()
        return cast(R, await client.call_args(name, dict(bound.arguments)))

    verb.__signature__ = signature  # type: ignore[attr-defined]
    verb.__engramdb_switchable__ = True  # type: ignore[attr-defined]
    return verb


def _switch_session_module(module: types.ModuleType) -> types.ModuleType:
    proxy = types.ModuleType(module.__name__, module.__doc__)
    proxy.__dict__.update(
        {k: v for k, v in vars(module).items() if k not in ("__name__", "__doc__")}
    )
    for verb in SESSION_VERBS:
        local = getattr(module, verb, None)
        if callable(local):
            setattr(proxy, verb, switchable(verb, local))
    return proxy


def wrap_public(name: str, value: Any) -> Any:
    """The public object for ``engramdb.<name>``: switchable verbs, the switching session
    module, anything else unchanged."""
    if name == "session" and isinstance(value, types.ModuleType):
        return _switch_session_module(value)
    if name in REMOTE_VERBS and inspect.iscoroutinefunction(value):
        return switchable(name, value)
    return value
