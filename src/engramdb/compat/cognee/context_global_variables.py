"""``cognee.context_global_variables``: scope the engine objects to one dataset.

cognee gives each dataset its own graph and vector databases when backend access control is on;
``set_database_global_context_variables(dataset_id, user_id)`` points the engines it hands out
(``get_graph_engine()``...) at that dataset's databases. engramdb keeps every dataset in one
store, isolated by permission checks, so what the call means here is the same thing seen from
the program: after it, ``get_graph_engine()`` reads only that dataset, as ``user_id`` (its read
permission checked on each read; ``permission_type`` is checked on entry). Like cognee's, the
scope stays in force in the current task after an ``async with`` block ends. This is not a
no-op: a program that reads the graph after it sees that one dataset, not all it can read.
"""

from __future__ import annotations

from collections.abc import Generator
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from uuid import UUID

from engramdb.errors import FeatureNotAvailableError
from engramdb.validation import validate_uuid

__all__ = ["DatabaseScope", "current_scope", "set_database_global_context_variables"]


@dataclass(frozen=True, slots=True)
class DatabaseScope:
    """The dataset (and the user reading it) the engine objects are pointed at."""

    dataset_id: UUID
    user_id: UUID | None = None
    permission_type: str | None = None


_scope: ContextVar[DatabaseScope | None] = ContextVar("engramdb_cognee_scope", default=None)


def current_scope() -> DatabaseScope | None:
    """The scope the current task set, or None (every dataset the user can read)."""
    return _scope.get()


class DatabaseContext:
    """What :func:`set_database_global_context_variables` returns: awaitable (cognee's legacy
    form) and an async context manager (its scoped form); both apply the scope."""

    def __init__(self, scope: DatabaseScope | None) -> None:
        self._scope = scope

    async def _apply(self) -> None:
        if self._scope is not None and self._scope.permission_type is not None:
            from engramdb.compat.cognee.infrastructure.databases.graph.engine_adapter import (
                scoped_datasets,
            )

            await scoped_datasets(self._scope)  # refuses now, as cognee checks on entry
        _scope.set(self._scope)

    def __await__(self) -> Generator[Any, None, None]:
        return self._apply().__await__()

    async def __aenter__(self) -> DatabaseContext:
        await self._apply()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None  # the scope persists after the block, as cognee's per-dataset configs do


def set_database_global_context_variables(
    dataset: UUID | str | None,
    user_id: UUID | str | None = None,
    llm_config: object | None = None,
    embedding_config: object | None = None,
    permission_type: str | None = None,
) -> DatabaseContext:
    """Point the engine objects at ``dataset``, read as ``user_id`` (see the module docstring).

    ``dataset=None`` clears the scope. ``permission_type`` ("read", "write", "delete", "share")
    is checked for ``user_id`` right away (PermissionDeniedError). Per-context ``llm_config`` /
    ``embedding_config`` overrides are refused: engramdb's providers belong to an engine, so
    use ``engramdb.Engine(settings=...)`` (or ``engramdb.config.set``) instead."""
    if llm_config is not None or embedding_config is not None:
        raise FeatureNotAvailableError(
            "set_database_global_context_variables(llm_config=..., embedding_config=...) is "
            "not supported: engramdb's LLM and embedder belong to an engine; configure them "
            "with engramdb.config.set(...) or use an engramdb.Engine(settings=...) of its own"
        )
    if dataset is None:
        return DatabaseContext(None)
    owner = None if user_id is None else validate_uuid(user_id, "user_id")
    return DatabaseContext(
        DatabaseScope(validate_uuid(dataset, "dataset"), owner, permission_type=permission_type)
    )
