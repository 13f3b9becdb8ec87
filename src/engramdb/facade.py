"""The module-level verbs: ``engramdb.remember``, ``engramdb.recall``, ...

Each is derived from its verb (:mod:`engramdb.verbs`): its signature is the request model's, a
call validates its arguments into that model and hands the request to the current client: the
in-process default engine, or the server connected with :func:`engramdb.serve`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any

from engramdb.client import LocalClient
from engramdb.ingest.pipeline import ProgressCallback
from engramdb.remote.switch import active_client
from engramdb.verbs import VERBS
from engramdb.verbs.spec import Verb

__all__ = [
    "forget",
    "improve",
    "list_datasets",
    "recall",
    "remember",
    "remember_with_progress",
    "verb_function",
]


def verb_function(
    verb: Verb[Any, Any], call: Callable[[Verb[Any, Any], Any], Coroutine[Any, Any, Any]]
) -> Callable[..., Coroutine[Any, Any, Any]]:
    """A coroutine function with ``verb``'s signature that validates its arguments into the
    verb's request and awaits ``call(verb, request)``; documented by the verb's handler."""

    async def run(*args: Any, **kwargs: Any) -> Any:
        return await call(verb, verb.bind(args, kwargs))

    run.__name__ = run.__qualname__ = verb.name
    run.__signature__ = verb.signature  # type: ignore[attr-defined]
    run.__doc__ = inspect.getdoc(verb.handler)
    run.__engramdb_verb__ = verb.name  # type: ignore[attr-defined]
    return run


async def _call_current(verb: Verb[Any, Any], request: Any) -> Any:
    return await active_client().call(verb, request)


remember = verb_function(VERBS["remember"], _call_current)
recall = verb_function(VERBS["recall"], _call_current)
improve = verb_function(VERBS["improve"], _call_current)
forget = verb_function(VERBS["forget"], _call_current)
list_datasets = verb_function(VERBS["list_datasets"], _call_current)


async def remember_with_progress(
    *args: Any, progress: ProgressCallback | None = None, **kwargs: Any
) -> Any:
    """``remember(...)`` with a progress callback where the call runs in-process (the CLI's
    progress bar); over HTTP the server reports no progress, so the callback is not called."""
    verb = VERBS["remember"]
    request = verb.bind(args, kwargs)
    client = active_client()
    if isinstance(client, LocalClient):
        from engramdb.api.remember import remember as handler

        return await handler(client.engine, request, progress=progress)
    return await client.call(verb, request)
