"""Recall's ``tools`` lane: each registered connection answers the question through text-to-SQL.

Opt-in twice: the scope is never implied by "auto" or "all", and the deployment must set
TOOL_CALLS_ENABLED (otherwise the recall is refused with ToolCallsDisabledError before any lane
runs, rather than answering an empty list that would read as "no data"). ``tool_connections``
names the connections to ask (None: every connection of the acting user; an unknown or
another user's name is refused). With ``tools_trigger="on_empty"`` the lane runs last and only
when every other lane returned nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engramdb.errors import ToolCallsDisabledError
from engramdb.models.records import User
from engramdb.models.results import RecallResponse, ResponseToolEntry
from engramdb.providers.llm.base import LLM
from engramdb.tools.connections import connection_for, visible_connections
from engramdb.tools.text_to_sql import TOOL_NAME, run_text_to_sql

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.settings import Settings

__all__ = ["check_tools_enabled", "order_lanes", "run_tools_lane"]


def check_tools_enabled(settings: Settings) -> None:
    if not settings.tool_calls_enabled:
        raise ToolCallsDisabledError(
            "Recall scope 'tools' requested but tool calls are disabled. Set "
            "TOOL_CALLS_ENABLED=true and register a connection with "
            "register_sql_connection(...) to enable it."
        )


def order_lanes(lanes: list[str], tools_trigger: str) -> list[str]:
    """``on_empty``: the tools lane observes every other lane first, so it runs last."""
    if tools_trigger == "on_empty" and "tools" in lanes:
        return [lane for lane in lanes if lane != "tools"] + ["tools"]
    return lanes


async def run_tools_lane(
    engine: Engine,
    owner: User,
    llm: LLM | None,
    question: str,
    tool_connections: Sequence[str] | None,
) -> list[RecallResponse]:
    """One ResponseToolEntry per connection asked (success=False, with the reason, when no SQL
    answered; without an LLM the error names the LLM settings)."""
    if tool_connections:
        connections = [await connection_for(engine, owner.id, n) for n in tool_connections]
    else:
        connections = await visible_connections(engine, owner.id)
    entries: list[RecallResponse] = []
    for connection in connections:
        result = await run_text_to_sql(engine.settings, llm, connection, question)
        entries.append(
            ResponseToolEntry(
                tool_name=TOOL_NAME,
                question=question,
                text=result.render_text(),
                success=result.success,
                error=result.error,
                structured=result.structured(),
            )
        )
    return entries
