"""LangGraph long-term memory on engramdb (``pip install 'engramdb[langgraph]'``).

:class:`EngramdbStore` is a ``langgraph.store.base.BaseStore``: pass it to
``graph.compile(store=...)`` (or ``create_react_agent(..., store=...)``) and the graph's nodes
remember across threads in engramdb.
"""

try:
    import langgraph.store.base  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "engramdb.integrations.langgraph needs LangGraph: pip install 'engramdb[langgraph]'"
    ) from exc

from engramdb.integrations.langgraph.store import EngramdbStore

__all__ = ["EngramdbStore"]
