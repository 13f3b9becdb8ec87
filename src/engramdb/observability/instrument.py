"""The verb wrapper: one span, one latency observation and the log context per verb call.

:attr:`engramdb.verbs.spec.Verb.handler` returns the handler wrapped here, so every way a verb
is called (the SDK functions, ``Engine`` methods, the REST and MCP servers, the sync API) is
instrumented in this one place.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from engramdb.observability.context import log_context
from engramdb.observability.metrics import observe_verb
from engramdb.observability.tracing import span

if TYPE_CHECKING:
    from engramdb.verbs.spec import Verb

__all__ = ["SPAN_PREFIX", "instrument_verb"]

#: A verb's span is named ``engramdb.<verb>`` (``engramdb.recall``).
SPAN_PREFIX = "engramdb."

H = TypeVar("H", bound=Callable[..., Awaitable[Any]])


def _dataset_fields(verb: Verb[Any, Any]) -> tuple[str, ...]:
    """The request's options that may hold a dataset id (looked up once, at wrap time)."""
    fields = verb.request.model_fields
    names = dict.fromkeys(n for n in (verb.dataset_field, "dataset_id") if n is not None)
    return tuple(n for n in names if n in fields)


def _dataset_id(fields: tuple[str, ...], request: Any) -> str | None:
    """The dataset the call names, when it names it by id (a name is the user's text: left
    out; the pipeline's own spans carry the resolved id)."""
    for name in fields:
        value = getattr(request, name, None)
        if isinstance(value, UUID):
            return str(value)
    return None


#: verb name -> (handler, its wrapper): the wrapper is built once per handler object (a handler
#: replaced at run time, e.g. by a test's monkeypatch, gets a new one).
_WRAPPED: dict[str, tuple[Any, Any]] = {}


def instrument_verb(verb: Verb[Any, Any], handler: H) -> H:
    """``handler`` (``async def handler(engine, request)``) wrapped for ``verb``."""
    cached = _WRAPPED.get(verb.name)
    if cached is not None and cached[0] is handler:
        wrapper: H = cached[1]
        return wrapper
    wrapper = _wrap(verb, handler)
    _WRAPPED[verb.name] = (handler, wrapper)
    return wrapper


def _wrap(verb: Verb[Any, Any], handler: H) -> H:
    name = verb.name
    span_name = SPAN_PREFIX + name
    fields = _dataset_fields(verb)
    # The span's attributes without a dataset id are the same on every call: built once.
    verb_only = {"engramdb.verb": name}

    @functools.wraps(handler)
    async def run(engine: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        dataset_id = _dataset_id(fields, request) if fields else None
        started = time.perf_counter()
        outcome = "error"
        attributes = (
            verb_only if dataset_id is None else {**verb_only, "engramdb.dataset_id": dataset_id}
        )
        with log_context(verb=name, dataset_id=dataset_id), span(span_name, attributes):
            try:
                result = await handler(engine, request, *args, **kwargs)
                outcome = "ok"
            finally:
                observe_verb(name, time.perf_counter() - started, outcome)
        return result

    return run  # type: ignore[return-value]
