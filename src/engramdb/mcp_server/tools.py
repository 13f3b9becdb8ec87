"""The MCP tools, derived from the verbs' request models.

A tool exposes some options of one verb under names a model reads easily (``text`` for
remember's ``data``, ``query`` for recall's ``query_text``); each parameter's type, default,
limits and description are the verb's wire option, so the tool schema cannot drift from the
SDK. A call validates into the verb's request (as the caller's ``user``) and runs its handler.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any
from uuid import UUID

from engramdb.verbs import VERBS

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.models.records import User

__all__ = ["TOOLS", "McpTool", "tool_function"]


@dataclass(frozen=True)
class McpTool:
    """One MCP tool over one verb."""

    name: str
    verb: str
    #: The verb's options the tool takes, as (tool parameter, verb option).
    options: tuple[tuple[str, str], ...]
    description: str
    #: How the verb's result is shown to the model (a JSON object).
    shape: Callable[[Any], dict[str, Any]] = field(default=lambda r: r.model_dump(mode="json"))


def _results(found: Any) -> dict[str, Any]:
    return {"results": [r.model_dump(mode="json") for r in found]}


TOOLS: tuple[McpTool, ...] = (
    McpTool(
        "remember",
        "remember",
        (
            ("text", "data"),
            ("dataset_name", "dataset_name"),
            ("importance_weight", "importance_weight"),
            ("session_id", "session_id"),
        ),
        "Store text in memory (a dataset), or as notes of a session when session_id is given.",
    ),
    McpTool(
        "recall",
        "recall",
        (
            ("query", "query_text"),
            ("query_type", "query_type"),
            ("datasets", "datasets"),
            ("top_k", "top_k"),
            ("session_id", "session_id"),
        ),
        "Search memory; results best first. query_type pins a search type (e.g. CHUNKS).",
        shape=_results,
    ),
    McpTool(
        "improve",
        "improve",
        (("dataset", "dataset"), ("session_ids", "session_ids")),
        "Enrich a dataset (by name or id) and bridge the given sessions into it.",
    ),
    McpTool(
        "forget",
        "forget",
        (("dataset", "dataset"), ("data_id", "data_id"), ("everything", "everything")),
        "Delete one dataset (by name or id), one data item, or everything you own.",
    ),
    McpTool(
        "feedback",
        "add_feedback",
        (
            ("session_id", "session_id"),
            ("qa_id", "qa_id"),
            ("score", "feedback_score"),
            ("text", "feedback_text"),
        ),
        "Rate an answer recall gave in a session: 1 (bad) .. 5 (good), 3 is neutral.",
        shape=lambda saved: {"saved": saved},
    ),
)


def tool_function(
    tool: McpTool,
    run: Callable[[Any, Mapping[str, Any]], Awaitable[dict[str, Any]]],
    context_type: type[Any],
) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A coroutine function whose signature is ``tool``'s parameters (types, defaults and limits
    from the verb's wire model) plus the MCP context; it calls ``run(ctx, arguments)``."""
    verb = VERBS[tool.verb]
    wire = verb.wire_model.model_fields
    params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=context_type)]
    for public, option in tool.options:
        info = wire[option]
        default = inspect.Parameter.empty if info.is_required() else info.get_default()
        params.append(
            inspect.Parameter(
                public,
                inspect.Parameter.KEYWORD_ONLY,
                default=default,
                annotation=Annotated[info.annotation, info],
            )
        )

    async def call(ctx: Any, **arguments: Any) -> dict[str, Any]:
        return await run(ctx, arguments)

    call.__name__ = call.__qualname__ = tool.name
    call.__doc__ = tool.description
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        params, return_annotation=dict[str, Any]
    )
    call.__annotations__ = {p.name: p.annotation for p in params} | {"return": dict[str, Any]}
    return call


async def run_tool(
    tool: McpTool, engine: Engine, user: User | None, arguments: Mapping[str, Any]
) -> dict[str, Any]:
    """Run ``tool`` with the model's ``arguments`` as ``user`` on ``engine``. A dataset given
    to a verb that takes a name or an id is taken as the id when it reads as a UUID (models
    pass what an earlier result showed them)."""
    verb = VERBS[tool.verb]
    values = {option: arguments[public] for public, option in tool.options if public in arguments}
    field_name = verb.dataset_field
    ref = values.get(field_name) if field_name else None
    if field_name and isinstance(ref, str):
        with contextlib.suppress(ValueError):  # not a UUID: a name
            values[field_name] = UUID(ref)
    values["user"] = user
    result = await verb.handler(engine, verb.build(values))
    return tool.shape(result)
