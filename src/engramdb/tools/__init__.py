"""Recall's ``tools`` scope: registered SQL databases answered through guarded text-to-SQL, and
approval-gated write proposals (``docs/tools.md``; cognee's ``cognee.tools``).

``engramdb.tools.register_sql_connection(...)`` and the other verbs here are the same functions
as ``engramdb.register_sql_connection(...)``; the implementation lives in the sub-modules
(:mod:`.connections`, :mod:`.text_to_sql`, :mod:`.proposals`, :mod:`.guard`, :mod:`.lane`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "apply_write_proposal",
    "list_sql_connections",
    "list_write_proposals",
    "propose_corrections",
    "propose_sql_write",
    "register_sql_connection",
    "reject_write_proposal",
    "remove_sql_connection",
]

_VERBS = frozenset(__all__) - {"propose_corrections"}


async def propose_corrections(
    connection: str, *, limit: int = 10, user: object | None = None
) -> list[dict[str, Any]]:
    """cognee drafts one proposal per ``contradicts`` edge of its graph; engramdb keeps no such
    edges, so this raises FeatureNotAvailableError. Draft each correction with
    :func:`propose_sql_write` instead."""
    from engramdb.errors import FeatureNotAvailableError

    raise FeatureNotAvailableError(
        "propose_corrections() is not available: engramdb records no contradiction edges to "
        "draft from; call propose_sql_write(connection, instruction) for each correction"
    )


def __getattr__(name: str) -> Any:
    if name in _VERBS:
        from engramdb import facade

        value = getattr(facade, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'engramdb.tools' has no attribute {name!r}")
