"""``engramdb.agent_memory``: give an async agent entrypoint memory, as cognee's decorator does.

::

    @engramdb.agent_memory(with_memory=True, memory_query_from_method="question")
    async def faq_bot(question: str) -> str:
        return await LLMGateway.acreate_structured_output(question, "Answer.", str)

Around each call of the decorated function:

1. **Memory is retrieved.** With ``with_session_memory`` the last ``session_memory_last_n``
   agent-trace steps of ``session_id`` (what earlier calls did); with ``with_memory`` a
   GRAPH_SUMMARY_COMPLETION recall over ``dataset_name`` (default ``main_dataset``) for the
   query (``memory_query_fixed``, else the argument named ``memory_query_from_method``; with
   ``memory_only_context`` the retrieved context instead of an LLM answer).
2. **The call runs** with that memory as the current context
   (:func:`get_current_agent_memory_context`): cognee's ``LLMGateway`` calls made inside it
   receive it ahead of their input, as in cognee.
3. **A trace step is saved** (``save_session_traces``) into the session: origin function,
   parameters, return value or error, the memory used, and a one-line summary that later calls
   read as session memory. Every ``persist_session_trace_after`` steps, the session's traces are
   bridged into the dataset's graph (improve's ``persist_agent_traces`` stage alone).

Retrieval failures (no LLM for a completion, no dataset yet) are logged and leave the memory
empty, as cognee's are, so the agent still runs; a failure of the agent itself is saved as an
``error`` step and re-raised.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engramdb.errors import EngramError, EngramValidationError
from engramdb.models.records import User

__all__ = ["AgentMemoryContext", "agent_memory", "get_current_agent_memory_context"]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])

#: The session a trace goes to when ``session_id`` is not given (cognee's default session).
DEFAULT_SESSION = "default_session"
#: Longest memory text handed to the agent, and longest value kept in a trace step.
MAX_MEMORY_CHARS = 8_000
MAX_VALUE_CHARS = 2_000


@dataclass(frozen=True, slots=True)
class AgentMemoryConfig:
    with_memory: bool = True
    with_session_memory: bool = False
    save_session_traces: bool = False
    memory_query_fixed: str | None = None
    memory_query_from_method: str | None = None
    memory_system_prompt: str | None = None
    memory_top_k: int = 5
    memory_only_context: bool = False
    session_memory_last_n: int = 5
    session_id: str | None = None
    user: User | None = None
    dataset_name: str | None = None
    persist_session_trace_after: int | None = None


@dataclass(slots=True)
class AgentMemoryContext:
    """What one decorated call knows: its memory, and (after it ran) its outcome."""

    origin_function: str
    config: AgentMemoryConfig
    method_params: dict[str, Any]
    user: User | None = None
    memory_query: str = ""
    memory_context: str = ""
    status: str = "success"
    method_return_value: Any = None
    error_message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_CURRENT: contextvars.ContextVar[AgentMemoryContext | None] = contextvars.ContextVar(
    "engramdb_agent_memory", default=None
)


def get_current_agent_memory_context() -> AgentMemoryContext | None:
    """The context of the decorated call running now, or None outside one."""
    return _CURRENT.get()


def agent_memory(
    *,
    agent_session_name: str | None = None,
    with_memory: bool = True,
    with_session_memory: bool = False,
    save_session_traces: bool = False,
    memory_query_fixed: str | None = None,
    memory_query_from_method: str | None = None,
    memory_system_prompt: str | None = None,
    memory_top_k: int = 5,
    memory_only_context: bool = False,
    session_memory_last_n: int = 5,
    session_id: str | None = None,
    user: User | None = None,
    dataset_name: str | None = None,
    session_trace_summary: bool = False,
    persist_session_trace_after: int | None = None,
    persist_session_trace_raw_content: bool = False,
    persist_session_trace_node_set_name: str | None = None,
) -> Callable[[F], F]:
    """The decorator described in the module docstring (cognee's signature).

    ``agent_session_name`` (cognee's connection registry), ``session_trace_summary`` (an extra
    LLM call per step), ``persist_session_trace_raw_content`` and
    ``persist_session_trace_node_set_name`` are cognee's tuning options; engramdb writes its
    own one-line step summary and bridges traces with improve's settings, so a value other than
    the default is refused with EngramValidationError rather than ignored."""
    tuning = {
        "session_trace_summary": session_trace_summary,
        "persist_session_trace_raw_content": persist_session_trace_raw_content,
    }
    for name, value in tuning.items():
        if value:
            raise EngramValidationError(
                f"agent_memory({name}=True) is not available on engramdb: each trace step gets "
                "engramdb's own one-line summary"
            )
    if persist_session_trace_node_set_name is not None:
        raise EngramValidationError(
            "agent_memory(persist_session_trace_node_set_name=...) is not available on engramdb: "
            "bridged traces are tagged 'agent_traces'"
        )
    for name, number in (
        ("memory_top_k", memory_top_k),
        ("session_memory_last_n", session_memory_last_n),
    ):
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise EngramValidationError(f"agent_memory({name}=...) must be a positive integer")
    if persist_session_trace_after is not None and (
        isinstance(persist_session_trace_after, bool)
        or not isinstance(persist_session_trace_after, int)
        or persist_session_trace_after < 1
    ):
        raise EngramValidationError(
            "agent_memory(persist_session_trace_after=...) must be a positive integer or None"
        )
    config = AgentMemoryConfig(
        with_memory=with_memory,
        with_session_memory=with_session_memory,
        save_session_traces=save_session_traces,
        memory_query_fixed=memory_query_fixed,
        memory_query_from_method=memory_query_from_method,
        memory_system_prompt=memory_system_prompt,
        memory_top_k=memory_top_k,
        memory_only_context=memory_only_context,
        session_memory_last_n=session_memory_last_n,
        session_id=session_id,
        user=user,
        dataset_name=dataset_name,
        persist_session_trace_after=persist_session_trace_after,
    )

    def decorate(fn: F) -> F:
        if not inspect.iscoroutinefunction(fn):
            raise EngramValidationError(f"agent_memory needs an async function, got {fn!r}")
        signature = inspect.signature(fn)
        if memory_query_from_method and memory_query_from_method not in signature.parameters:
            raise EngramValidationError(
                f"memory_query_from_method={memory_query_from_method!r} is not a parameter of "
                f"{fn.__qualname__}"
            )

        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind_partial(*args, **kwargs)
            ctx = AgentMemoryContext(fn.__qualname__, config, dict(bound.arguments))
            if with_memory or with_session_memory or save_session_traces:
                from engramdb.engine import get_engine

                ctx.user = await get_engine().resolve_user(config.user)
            ctx.memory_context = await _retrieve(ctx)
            token = _CURRENT.set(ctx)
            try:
                result = await fn(*args, **kwargs)
            except Exception as exc:
                ctx.status, ctx.error_message = "error", _short(f"{type(exc).__name__}: {exc}")
                raise
            else:
                ctx.method_return_value = result
                return result
            finally:
                _CURRENT.reset(token)
                await _persist(ctx)

        return wrapper  # type: ignore[return-value]

    return decorate


def _short(value: object, limit: int = MAX_VALUE_CHARS) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _session(config: AgentMemoryConfig) -> str:
    return config.session_id or DEFAULT_SESSION


async def _retrieve(ctx: AgentMemoryContext) -> str:
    import engramdb
    from engramdb.models.results import ResponseGraphEntry
    from engramdb.models.search_type import SearchType

    config, parts = ctx.config, []
    if config.with_session_memory:
        try:
            steps = await engramdb.session.get_traces(
                _session(config), last_n=config.session_memory_last_n, user=ctx.user
            )
        except EngramError as exc:
            logger.warning("agent_memory: no session memory for %s: %s", ctx.origin_function, exc)
            steps = []
        lines = [s.session_feedback for s in steps if s.session_feedback]
        if lines:
            parts.append("Recent Session Memory:\n" + "\n".join(lines))
    query = config.memory_query_fixed
    if query is None and config.memory_query_from_method:
        value = ctx.method_params.get(config.memory_query_from_method)
        query = None if value is None else str(value)
    if config.with_memory and query:
        ctx.memory_query = query
        try:
            found = await engramdb.recall(
                query,
                SearchType.GRAPH_SUMMARY_COMPLETION,
                datasets=[config.dataset_name or "main_dataset"],
                top_k=config.memory_top_k,
                only_context=config.memory_only_context,
                system_prompt=config.memory_system_prompt,
                user=ctx.user,
            )
        except EngramError as exc:
            logger.warning("agent_memory: no graph memory for %s: %s", ctx.origin_function, exc)
            found = []
        texts = [
            str(r.raw.get("context", r.text)) if config.memory_only_context else str(r.text)
            for r in found
            if isinstance(r, ResponseGraphEntry)  # a warming-up marker is no memory
        ]
        if texts:
            parts.append("Relevant Memory:\n" + "\n".join(texts))
    return _short("\n\n".join(parts), MAX_MEMORY_CHARS) if parts else ""


async def _persist(ctx: AgentMemoryContext) -> None:
    import engramdb

    config = ctx.config
    if not config.save_session_traces:
        return
    outcome = (
        f"returned {_short(ctx.method_return_value, 300)}"
        if ctx.status == "success"
        else f"failed: {ctx.error_message[:300]}"
    )
    params = ", ".join(f"{k}={_short(v, 200)}" for k, v in ctx.method_params.items())
    summary = f"{ctx.origin_function}({params}) {outcome}"
    session = _session(config)
    try:
        await engramdb.session.add_trace(
            session,
            ctx.origin_function,
            status=ctx.status,
            method_params={k: _short(v) for k, v in ctx.method_params.items()},
            method_return_value=_short(ctx.method_return_value),
            error_message=ctx.error_message,
            memory_query=ctx.memory_query,
            memory_context=ctx.memory_context,
            session_feedback=summary,
            user=ctx.user,
        )
        every = config.persist_session_trace_after
        if every is None:
            return
        count = len(await engramdb.session.get_traces(session, user=ctx.user))
        if count % every == 0:
            from engramdb.api.improve import improve_stage
            from engramdb.engine import get_engine

            await improve_stage(
                get_engine(),
                "persist_agent_traces",
                user=ctx.user,
                session_ids=[session],
                dataset=config.dataset_name or "main_dataset",
            )
    except EngramError as exc:  # the agent's own outcome stands; say what was not kept
        logger.warning("agent_memory: trace of %s not saved: %s", ctx.origin_function, exc)
