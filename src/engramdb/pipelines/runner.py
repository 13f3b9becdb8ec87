"""Running custom pipelines: :func:`run_tasks`, :func:`run_pipeline`, :func:`run_steps`,
:func:`run_custom_pipeline` and the deprecated :func:`memify` (cognee's shapes).

A run chains its tasks as cognee does: the first task gets the input, and every result a task
passes on (see :class:`~engramdb.pipelines.task.Task`) runs through the rest of the chain at
once, so later tasks may run once per upstream batch. ``run_tasks`` runs the chain once per
data item of one dataset, recorded as one pipeline run, and yields ``PipelineRunStarted`` then
``PipelineRunCompleted`` (each item's result in ``data_ingestion_info``) or
``PipelineRunErrored``. As in cognee, a task's error ends the run as errored WITHOUT raising
(the error is logged and its class and scrubbed message are in the event); errors before the
tasks run (an unknown dataset, no permission) raise.

What the tasks write goes through the verbs they call (``add_data_points``, ``add``,
``cognify``...), each in its own transactions under the dataset's lock; the run itself holds
no lock, so those calls never wait on it. Items run one after another (``data_per_batch`` only
tunes cognee's concurrency). While a chain runs, :func:`current_context` gives its context, so
``add_data_points`` called from inside a task writes to the run's dataset as the run's user.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from typing import Any
from uuid import UUID

from engramdb.access.permissions import check, dataset_for_write, owned_datasets
from engramdb.engine import Engine, get_engine
from engramdb.errors import (
    CogneeValidationError,
    FeatureNotAvailableError,
    error_class_name,
)
from engramdb.models.records import Dataset, RunStatus, User
from engramdb.pipelines.memify_tasks import MEMIFY_TASK_NAMES, memify_task
from engramdb.pipelines.run_info import (
    PipelineContext,
    PipelineRunCompleted,
    PipelineRunErrored,
    PipelineRunInfo,
    PipelineRunStarted,
)
from engramdb.pipelines.task import BoundTask, Task

__all__ = [
    "MEMIFY_DEPRECATION_MESSAGE",
    "current_context",
    "memify",
    "memify_runs",
    "refuse_store_configs",
    "resolve_memify_tasks",
    "run_custom_pipeline",
    "run_pipeline",
    "run_steps",
    "run_tasks",
]

logger = logging.getLogger(__name__)

DEFAULT_DATASET = "main_dataset"

MEMIFY_DEPRECATION_MESSAGE = (
    "memify() is deprecated (as in cognee 1.6.5) and will be removed: called without tasks it "
    "runs nothing. Use improve() to enrich a dataset, or run_custom_pipeline() to run your "
    "own tasks."
)

_CURRENT: ContextVar[PipelineContext | None] = ContextVar("engramdb_pipeline", default=None)


def current_context() -> PipelineContext | None:
    """The context of the pipeline chain running in this task, or None outside one."""
    return _CURRENT.get()


async def _chain(tasks: Sequence[Task], data: Any, ctx: PipelineContext) -> AsyncIterator[Any]:
    """cognee's streaming chain: each result of ``tasks[0]`` runs through the rest at once."""
    if not tasks:
        yield data
        return
    head, rest = tasks[0], tasks[1:]
    batch = rest[0].task_config["batch_size"] if rest else 1
    if head.name not in ctx.task_sequence:
        ctx.task_sequence.append(head.name)
    kwargs = {"ctx": ctx} if head.accepts_ctx else {}
    args = [data] if data is not None else []
    async for result in head.execute(args, kwargs, batch):
        async for out in _chain(rest, result, ctx):
            yield out


async def _run_chain(tasks: Sequence[Task], data: Any, ctx: PipelineContext) -> list[Any]:
    token = _CURRENT.set(ctx)
    try:
        return [out async for out in _chain(tasks, data, ctx)]
    finally:
        _CURRENT.reset(token)


def _check_tasks(tasks: object) -> list[Task]:
    if tasks is None:
        raise CogneeValidationError("a pipeline needs tasks: a list of Task instances")
    items = list(tasks) if isinstance(tasks, list | tuple) else None
    if items is None or not all(isinstance(t, Task) for t in items):
        raise CogneeValidationError(
            "tasks must be a list of Task instances (wrap each function: Task(fn))"
        )
    return items


async def run_tasks(
    tasks: list[Task],
    dataset_id: UUID,
    data: Any = None,
    user: User | None = None,
    pipeline_name: str = "unknown_pipeline",
    incremental_loading: bool = False,
    data_per_batch: int = 20,
    extras: dict[str, Any] | None = None,
    *,
    engine: Engine | None = None,
    **_tuning: Any,
) -> AsyncIterator[PipelineRunInfo]:
    """Run ``tasks`` over each item of ``data`` (a list, or one item) in the dataset
    ``dataset_id`` (write permission needed), as one recorded run; yields the run's events."""
    chain = _check_tasks(tasks)
    eng = engine or get_engine()
    owner = await eng.resolve_user(user)
    dataset = await check(owner, dataset_id, "write", store=eng.store)
    items = list(data) if isinstance(data, list) else [data]
    async for info in _run_dataset(eng, owner, dataset, chain, items, pipeline_name, extras):
        yield info


async def _run_dataset(
    eng: Engine,
    owner: User,
    dataset: Dataset,
    tasks: list[Task],
    items: list[Any],
    pipeline_name: str,
    extras: dict[str, Any] | None,
) -> AsyncIterator[PipelineRunInfo]:
    """One recorded run over ``items``; each runs the chain on its own, passed as ``[item]``
    (cognee hands each task chain a one-item list)."""
    store = eng.store
    record = await store.start_run(dataset.id, pipeline_name, graph_writing=False)
    ids: dict[str, Any] = {
        "pipeline_run_id": record.id,
        "dataset_id": dataset.id,
        "dataset_name": dataset.name,
    }
    yield PipelineRunStarted(**ids, payload=items)
    results: list[dict[str, Any]] = []
    for item in items:
        ctx = PipelineContext(
            user=owner,
            data_item=item,
            dataset=dataset,
            pipeline_run_id=record.id,
            pipeline_name=pipeline_name,
            extras=dict(extras or {}),
        )
        try:
            outputs = await _run_chain(tasks, [item], ctx)
        except Exception as exc:
            logger.exception("pipeline %r: a task failed", pipeline_name)
            message = await store.fail_run(record.id, exc)
            yield PipelineRunErrored(
                **ids,
                payload=repr(exc),
                data_ingestion_info=results,
                error_class=error_class_name(exc),
                error_message=message,
            )
            return
        del outputs  # cognee reports what ran, not what the tasks returned
        results.append({"run_info": PipelineRunCompleted(**ids)})
    await store.finish_run(record.id, RunStatus.COMPLETED, counts={"data_items": len(items)})
    yield PipelineRunCompleted(**ids, data_ingestion_info=results)


async def run_pipeline(
    tasks: list[Task] | None = None,
    data: Any = None,
    datasets: str | UUID | list[str] | list[UUID] | None = None,
    user: User | None = None,
    pipeline_name: str = "custom_pipeline",
    vector_db_config: dict[str, Any] | None = None,
    graph_db_config: dict[str, Any] | None = None,
    incremental_loading: bool = False,
    data_per_batch: int = 20,
    extras: dict[str, Any] | None = None,
    *,
    engine: Engine | None = None,
    **_tuning: Any,
) -> AsyncIterator[PipelineRunInfo]:
    """cognee's pipeline orchestrator: run ``tasks`` over ``data`` in each dataset named (a
    name is the caller's own dataset, created if missing; a UUID needs write permission; None:
    every dataset of the caller), yielding each run's events. Without ``data`` the tasks run
    once per data item of the dataset (its records, then its added inputs)."""
    chain = _check_tasks(tasks)
    refuse_store_configs(vector_db_config, graph_db_config)
    eng = engine or get_engine()
    owner = await eng.resolve_user(user)
    for dataset in await _datasets(eng, owner, datasets):
        items = await _dataset_items(eng, dataset) if data is None else data
        items = list(items) if isinstance(items, list) else [items]
        async for info in _run_dataset(eng, owner, dataset, chain, items, pipeline_name, extras):
            yield info


async def _dataset_items(eng: Engine, dataset: Dataset) -> list[Any]:
    """What a run without ``data`` goes over: the dataset's data records, then its added but
    not built inputs (cognee: the dataset's Data rows)."""
    return [*await eng.store.list_data(dataset.id), *await eng.store.list_staged(dataset.id)]


async def _datasets(
    eng: Engine, owner: User, ref: str | UUID | Sequence[str | UUID] | None
) -> list[Dataset]:
    if ref is None:
        return await owned_datasets(eng.store, owner)
    refs: list[str | UUID] = [ref] if isinstance(ref, str | UUID) else list(ref)
    return [await dataset_for_write(eng.store, owner, _as_ref(r)) for r in refs]


def _as_ref(ref: str | UUID) -> str | UUID:
    if isinstance(ref, str):
        try:
            return UUID(ref)
        except ValueError:
            return ref
    return ref


def refuse_store_configs(vector: object, graph: object) -> None:
    for name, value in (("vector_db_config", vector), ("graph_db_config", graph)):
        if value is not None:
            raise FeatureNotAvailableError(
                f"{name} is not available on engramdb: one store holds the graph and the "
                "vectors, set ENGRAMDB_STORAGE_URL (see docs/migrating-from-cognee.md)"
            )


async def _execute(
    eng: Engine, runs: AsyncIterator[PipelineRunInfo], run_in_background: bool
) -> dict[UUID, PipelineRunInfo]:
    """cognee's executors: blocking gives ``{dataset_id: last event}``; in the background,
    ``{dataset_id: PipelineRunStarted}`` of the first dataset at once, the rest runs on."""
    if not run_in_background:
        return {info.dataset_id: info async for info in runs}
    try:
        first = await anext(runs)
    except StopAsyncIteration:
        return {}

    async def rest() -> None:
        """Drive the remaining runs; each records its own outcome in its run record."""
        async for _ in runs:
            continue

    eng.spawn(rest(), name=f"engramdb-pipeline-{first.pipeline_run_id}")
    return {first.dataset_id: first.model_copy(update={"payload": []})}


async def run_custom_pipeline(
    tasks: list[Task] | None = None,
    data: Any = None,
    dataset: str | UUID = DEFAULT_DATASET,
    user: User | None = None,
    vector_db_config: dict[str, Any] | None = None,
    graph_db_config: dict[str, Any] | None = None,
    incremental_loading: bool = False,
    data_per_batch: int = 20,
    run_in_background: bool = False,
    pipeline_name: str = "custom_pipeline",
    data_cache: bool = False,
    skip_connection_test: bool = False,
) -> dict[UUID, PipelineRunInfo]:
    """Run your tasks over ``data`` in ``dataset`` (cognee's ``run_custom_pipeline``): returns
    ``{dataset_id: PipelineRunCompleted | PipelineRunErrored}``, or with
    ``run_in_background=True`` the ``PipelineRunStarted`` event at once."""
    eng = get_engine()
    runs = run_pipeline(
        tasks=tasks,
        data=data,
        datasets=dataset,
        user=user,
        pipeline_name=pipeline_name,
        vector_db_config=vector_db_config,
        graph_db_config=graph_db_config,
        incremental_loading=incremental_loading,
        data_per_batch=data_per_batch,
        engine=eng,
    )
    return await _execute(eng, runs, run_in_background)


async def run_steps(
    steps: list[BoundTask],
    *,
    data: Any = None,
    user: User | None = None,
    dataset: str | None = None,
    pipeline_name: str = "pipeline",
    context: dict[str, Any] | None = None,
) -> list[Any]:
    """cognee's lightweight ``run_pipeline`` (``cognee.modules.pipelines.operations.
    run_pipeline``): chain ``task()`` steps over ``data`` and return the last step's results.
    No run record; ``add_data_points`` inside writes to ``dataset`` (default main_dataset)."""
    if not steps:
        return [data] if data is not None else []
    for i, step in enumerate(steps):
        if not isinstance(step, BoundTask):
            raise TypeError(
                f"Step {i} is {type(step).__name__}, expected BoundTask. "
                "Did you forget to call the task? Use task_name() not task_name"
            )
    owner = await get_engine().resolve_user(user)
    tasks = [s.task.with_config(**s.kwargs) if s.kwargs else s.task for s in steps]
    ctx = PipelineContext(
        user=owner,
        dataset=dataset,
        pipeline_name=pipeline_name,
        extras=context if isinstance(context, dict) else {},
    )
    return await _run_chain(tasks, data, ctx)


def resolve_memify_tasks(tasks: Sequence[Task | str] | None) -> list[Task]:
    """``tasks`` (Task instances, memify task names, or a mix) as Task instances; None or an
    empty list gives ``[]``. Raises before anything runs for an unknown name or another type."""
    if isinstance(tasks, str | Task):
        raise CogneeValidationError(
            f"Memify tasks must be a list of Task instances or task names, got one "
            f"{type(tasks).__name__}; wrap it in a list."
        )
    resolved: list[Task] = []
    for item in tasks or []:
        if isinstance(item, Task):
            resolved.append(item)
        elif isinstance(item, str) and (named := memify_task(item)) is not None:
            resolved.append(named)
        elif isinstance(item, str):
            raise FeatureNotAvailableError(
                f"memify task {item!r} is not available on engramdb; the task names it runs "
                f"are {', '.join(MEMIFY_TASK_NAMES)}. Pass other tasks as Task instances, or "
                "use improve() for engramdb's enrichment (see docs/migrating-from-cognee.md)"
            )
        else:
            raise CogneeValidationError(
                f"Memify tasks must be Task instances or task names, got {type(item).__name__}."
            )
    return resolved


async def memify(
    extraction_tasks: Sequence[Task | str] | None = None,
    enrichment_tasks: Sequence[Task | str] | None = None,
    data: Any = None,
    dataset: str | UUID = DEFAULT_DATASET,
    user: User | None = None,
    node_type: Any = None,
    node_name: list[str] | None = None,
    vector_db_config: dict[str, Any] | None = None,
    graph_db_config: dict[str, Any] | None = None,
    run_in_background: bool = False,
) -> dict[UUID, PipelineRunInfo]:
    """Deprecated (as in cognee): run extraction then enrichment tasks over a dataset. Warns
    with a FutureWarning. Without tasks nothing runs and ``{}`` is returned (cognee 1.6.5).
    Without ``data`` the first task gets the dataset's graph (a
    :class:`~engramdb.GraphSnapshot`; only nodes tagged or named in ``node_name`` when given).
    """
    warnings.warn(MEMIFY_DEPRECATION_MESSAGE, FutureWarning, stacklevel=2)
    tasks = [*resolve_memify_tasks(extraction_tasks), *resolve_memify_tasks(enrichment_tasks)]
    refuse_store_configs(vector_db_config, graph_db_config)
    eng = get_engine()
    owner = await eng.resolve_user(user)
    (target,) = await _datasets(eng, owner, dataset)
    if not tasks:
        logger.warning("memify() was called without tasks; nothing ran (use improve())")
        return {}
    runs = await memify_runs(
        eng, owner, target, tasks, data=data, node_name=node_name, node_type=node_type
    )
    return await _execute(eng, runs, run_in_background)


async def memify_runs(
    eng: Engine,
    owner: User,
    dataset: Dataset,
    tasks: list[Task],
    *,
    data: Any = None,
    node_name: Sequence[str] | None = None,
    node_type: Any = None,
) -> AsyncIterator[PipelineRunInfo]:
    """The events of one ``memify_pipeline`` run of ``tasks`` in ``dataset`` (memify() and
    improve()'s ``custom_tasks`` stage). Without ``data`` the first task gets the dataset's
    graph, as one item: only nodes named or tagged in ``node_name`` when given, only nodes of
    ``node_type`` (a class or a type name; cognee's default ``NodeSet`` keeps all) when
    given, and the edges touching what is kept."""
    if data is None:
        data = [await _graph_of(eng, owner, dataset, node_name, node_type)]
    items = list(data) if isinstance(data, list) else [data]
    return _run_dataset(eng, owner, dataset, tasks, items, "memify_pipeline", None)


async def _graph_of(
    eng: Engine,
    owner: User,
    dataset: Dataset,
    node_name: Sequence[str] | None,
    node_type: Any = None,
) -> Any:
    from engramdb.api.graph import get_graph
    from engramdb.models.requests.graph import GetGraphRequest

    snapshot = await get_graph(eng, GetGraphRequest(dataset_ids=[dataset.id], user=owner))
    type_name = node_type if isinstance(node_type, str) else getattr(node_type, "__name__", None)
    if type_name == "NodeSet":
        type_name = None  # cognee's default fragment type: the whole (named) graph
    if not node_name and type_name is None:
        return snapshot
    wanted = set(node_name or ())
    keep = {
        n.id
        for n in snapshot.nodes
        if (
            not wanted or n.name in wanted or bool(wanted & set(n.properties.get("node_set") or []))
        )
        and (type_name is None or n.type == type_name)
    }
    return snapshot.model_copy(
        update={
            "nodes": [n for n in snapshot.nodes if n.id in keep],
            "edges": [e for e in snapshot.edges if e.source_id in keep or e.target_id in keep],
        }
    )
