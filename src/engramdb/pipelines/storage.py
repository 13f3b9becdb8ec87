"""``add_data_points`` as a pipeline task, with cognee's signature
(``cognee.tasks.storage.add_data_points``): it writes through engramdb's
:func:`engramdb.add_data_points` verb into the dataset of the run it is part of."""

from __future__ import annotations

import warnings
from typing import Any
from uuid import UUID

from engramdb.errors import CogneeValidationError, FeatureNotAvailableError
from engramdb.models.datapoints import DataPoint
from engramdb.pipelines.run_info import PipelineContext
from engramdb.pipelines.runner import DEFAULT_DATASET, current_context
from engramdb.pipelines.task import task_summary

__all__ = ["add_data_points", "dataset_of", "index_graph_edges", "user_of"]


@task_summary("Stored {n} data point(s)")
async def add_data_points(
    data_points: list[DataPoint],
    custom_edges: list[Any] | None = None,
    embed_triplets: bool | None = None,
    ctx: PipelineContext | None = None,
    graph_only: bool = False,
) -> list[DataPoint]:
    """Store ``data_points`` (and every DataPoint reachable from their fields) as nodes and
    edges, in one transaction, and return them. The dataset and user are the pipeline's
    (``ctx``, or the pipeline this call runs inside); outside a pipeline, the default user's
    ``main_dataset``. ``graph_only`` is accepted: engramdb always indexes what it writes."""
    if embed_triplets is not None:
        warnings.warn(
            "add_data_points(embed_triplets=...) is deprecated and ignored (as in cognee)",
            FutureWarning,
            stacklevel=2,
        )
    if not isinstance(data_points, list):
        raise CogneeValidationError("data_points must be a list.")
    if not all(isinstance(dp, DataPoint) for dp in data_points):
        raise CogneeValidationError("data_points: each item must be a DataPoint.")
    if custom_edges:
        raise FeatureNotAvailableError(
            "add_data_points(custom_edges=...) is not available on engramdb; put the target "
            "DataPoint in a field of the source (the field name is the relation), or use "
            "(Edge(relationship_type=...), target) for another name"
        )
    from engramdb.facade import add_data_points as add

    running = ctx or current_context()
    await add(data_points, dataset_name=dataset_of(running), user=user_of(running))
    return data_points


def dataset_of(ctx: PipelineContext | None) -> str | UUID:
    """The dataset what a task writes goes to: the run's, else main_dataset."""
    dataset = ctx.dataset if ctx is not None else None
    if isinstance(dataset, str | UUID):
        return dataset
    ident = getattr(dataset, "id", None)
    return ident if isinstance(ident, UUID) else DEFAULT_DATASET


def user_of(ctx: PipelineContext | None) -> Any:
    """The user a task writes as: the run's, else None (the default user)."""
    from engramdb.models.records import User

    user = ctx.user if ctx is not None else None
    return user if isinstance(user, User) else None


async def index_graph_edges(*_args: Any, **_kwargs: Any) -> None:
    """cognee indexes edges in a second step; engramdb indexes every edge as it writes it
    (graph searches read them), so there is nothing left to do."""
