"""``cognee.modules.agent_memory``: the ``agent_memory`` decorator (engramdb's)."""

from __future__ import annotations

from engramdb.agent_memory import agent_memory, get_current_agent_memory_context

__all__ = ["agent_memory", "get_current_agent_memory_context"]
