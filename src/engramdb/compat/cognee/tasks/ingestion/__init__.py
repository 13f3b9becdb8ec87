"""``cognee.tasks.ingestion``: ``resolve_data_directories`` and ``ingest_data`` as pipeline
tasks over engramdb's ``add()`` (which reads directories, files and texts itself), and
``migrate_relational_database`` (a relational database into the graph)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from engramdb.compat.cognee.tasks.ingestion.migrate_relational_database import (
    migrate_relational_database,
)
from engramdb.models.records import User
from engramdb.pipelines.run_info import PipelineContext

__all__ = ["ingest_data", "migrate_relational_database", "resolve_data_directories"]


async def resolve_data_directories(
    data: Any,
    include_subdirectories: bool = True,
    user: User | None = None,
    dataset_id: UUID | None = None,
    branch: str | None = None,
) -> list[Any]:
    """The inputs as a list. engramdb's ``add()`` expands directories itself (with their
    sub-directories), so they are passed on as they are."""
    return list(data) if isinstance(data, list | tuple) else [data]


async def ingest_data(
    data: Any,
    dataset_name: str,
    user: User | None = None,
    node_set: list[str] | None = None,
    dataset_id: UUID | None = None,
    preferred_loaders: dict[str, dict[str, Any]] | None = None,
    importance_weight: float = 0.5,
    ctx: PipelineContext | None = None,
) -> list[Any]:
    """``add()`` the inputs to the dataset (staged for ``cognify()``); returns the added
    items (engramdb's ``RememberItem`` per input)."""
    from engramdb.facade import add

    added = await add(
        data,
        dataset_name=dataset_name,
        user=user,
        node_set=node_set,
        dataset_id=dataset_id,
        preferred_loaders=preferred_loaders,
        importance_weight=importance_weight,
    )
    return list(added.items)
