"""Running the stages: the dataset lock, session claims, failure rules.

An improve run holds the dataset's cross-process lock (``dataset:<id>``, the same lock remember
and forget take) from its first stage to its last, and claims every session it bridges
(``improve-session:<user id>:<session id>``), so concurrent improves of one dataset or one
session queue instead of skipping. Locks are always taken dataset first, then sessions in sorted
order, so two improves cannot deadlock.

Failure rules (improve.md): a stage that raises is ``errored`` and the next stages still run —
except that ``persist_session_qa`` failing re-raises its exception after the remaining stages
are marked ``aborted_by_fatal_stage`` (the partial result is attached as
``exc.improve_result``), and an exhausted LLM budget (HTTP 402) stops the run with the remaining
stages skipped as ``budget_exhausted``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING
from uuid import UUID

from engramdb.access.permissions import dataset_for_write
from engramdb.errors import LLMPaymentRequiredError, scrub_secrets
from engramdb.improvement.context import ImproveContext, ImproveOptions
from engramdb.improvement.stages import STAGES, Stage, disabled_stages, stages_of
from engramdb.ingest.queue import extract_queue
from engramdb.models.improve import ImproveResult, StageResult
from engramdb.models.records import Dataset, RunStatus, User
from engramdb.observability.context import log_context
from engramdb.observability.metrics import observe_stage
from engramdb.observability.tracing import mark_error, set_attributes, span
from engramdb.storage.lending import dataset_lock

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["IMPROVE_PIPELINE", "STAGE_SPAN", "improve_dataset", "improve_resolved", "run_improve"]

logger = logging.getLogger(__name__)

_FATAL_STAGE = "persist_session_qa"

#: The name improve() records its runs under (``pipeline_runs.pipeline``; list_improve_runs).
IMPROVE_PIPELINE = "improve"

#: Each stage's span is ``engramdb.improve.<stage>`` (skipped stages too, with their reason).
STAGE_SPAN = "engramdb.improve."


async def run_improve(ctx: ImproveContext, result: ImproveResult) -> ImproveResult:
    """Take the locks, run the nine stages (and ``custom_tasks``), fill ``result`` in and
    return it."""
    store, timeout = ctx.store, ctx.settings.engramdb_lock_timeout
    # every stage reads the graph: queued extraction first (engramdb.ingest.queue)
    await extract_queue(ctx.engine, ctx.dataset, improve_after=False)
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(store.lock(dataset_lock(ctx.dataset.id), timeout=timeout))
        for sid in sorted(set(ctx.session_ids)):
            name = f"improve-session:{ctx.user.id}:{sid}"
            await stack.enter_async_context(store.lock(name, timeout=timeout))
        return await _run_locked(ctx, result)
    raise AssertionError("unreachable")  # pragma: no cover - the stack never swallows


async def _run_locked(ctx: ImproveContext, result: ImproveResult) -> ImproveResult:
    store = ctx.store
    run = await store.start_run(ctx.dataset.id, IMPROVE_PIPELINE, graph_writing=False)
    stages: list[StageResult] = []
    stop_reason: str | None = None
    fatal: BaseException | None = None
    with log_context(dataset_id=ctx.dataset.id, run_id=run.id):
        try:
            disabled = disabled_stages(ctx.settings.improve_stages_disabled)
            for stage in stages_of(ctx, STAGES):
                record, exc = await _traced_stage(ctx, stage, disabled, stop_reason)
                stages.append(record)
                if exc is None:
                    continue
                if isinstance(exc, LLMPaymentRequiredError):
                    stop_reason = "budget_exhausted"
                elif stage.name == _FATAL_STAGE:
                    stop_reason = "aborted_by_fatal_stage"
                if stage.name == _FATAL_STAGE:
                    fatal = exc
        except BaseException as exc:  # cancelled or killed: the run is recorded, then re-raised
            await store.fail_run(run.id, exc)
            raise
    result.finish(stages, memify_run=ctx.memify_run)
    errored = next((s for s in stages if s.status == "errored"), None)
    await store.finish_run(
        run.id,
        RunStatus.ERRORED if errored else RunStatus.COMPLETED,
        error_class=None if errored is None else errored.stage,
        error_message=None if errored is None else errored.error,
        counts={s.stage: 1 for s in stages if s.status == "completed"},
        stages=stages,
    )
    if fatal is not None:
        fatal.improve_result = result  # type: ignore[attr-defined]
        raise fatal
    return result


async def _traced_stage(
    ctx: ImproveContext, stage: Stage, disabled: set[str], stop_reason: str | None
) -> tuple[StageResult, Exception | None]:
    """:func:`_run_stage` in its span and log context, its latency observed."""
    attrs = {"engramdb.stage": stage.name, "engramdb.dataset_id": str(ctx.dataset.id)}
    with log_context(stage=stage.name), span(STAGE_SPAN + stage.name, attrs) as current:
        record, exc = await _run_stage(ctx, stage, disabled, stop_reason)
        set_attributes(current, **{"stage.status": record.status}, reason=record.reason)
        if record.status == "errored":
            mark_error(current, record.error or "stage failed")
    if record.duration_ms is not None:
        observe_stage(stage.name, record.status, record.duration_ms / 1000)
    return record, exc


async def _run_stage(
    ctx: ImproveContext, stage: Stage, disabled: set[str], stop_reason: str | None
) -> tuple[StageResult, Exception | None]:
    """Run (or skip) one stage: its result, and the exception it raised (recorded, not
    raised)."""
    if stop_reason is not None:
        return StageResult(stage=stage.name, status="skipped", reason=stop_reason), None
    only = ctx.options.only_stages
    if only is not None and stage.name not in only:
        reason: str | None = "not_requested"
    elif stage.name in disabled:
        reason = "disabled_by_config"
    else:
        reason = stage.gate(ctx)
    if reason is None and stage.run is None:
        reason = "not_implemented"
    if reason is not None or stage.run is None:
        return StageResult(stage=stage.name, status="skipped", reason=reason), None
    started = time.perf_counter()
    try:
        outcome = await stage.run(ctx)
    except Exception as exc:  # the stage boundary: recorded on the result, and logged
        elapsed = (time.perf_counter() - started) * 1000
        message = scrub_secrets(f"{type(exc).__name__}: {exc}")
        logger.warning("improve stage %s failed: %s", stage.name, message)
        failed = StageResult(stage=stage.name, status="errored", error=message, duration_ms=elapsed)
        return failed, exc
    elapsed = (time.perf_counter() - started) * 1000
    if outcome.status == "errored":  # partly done: its counts say what was
        partial = StageResult(
            stage=stage.name,
            status="errored",
            error=scrub_secrets(outcome.reason or "stage failed"),
            counts=outcome.counts,
            duration_ms=elapsed,
        )
        return partial, None
    done = StageResult(
        stage=stage.name,
        status="completed" if outcome.status == "completed" else "already_completed",
        reason=outcome.reason,
        counts=outcome.counts,
        duration_ms=elapsed,
    )
    return done, None


async def improve_dataset(
    dataset: str | UUID,
    options: ImproveOptions,
    *,
    user: User | None = None,
    run_in_background: bool = False,
    engine: Engine,
) -> ImproveResult:
    """improve() after argument checks (also used by the automatic improve after remember)."""
    eng = engine
    disabled_stages(eng.settings.improve_stages_disabled)  # a bad value fails before any work
    owner = await eng.resolve_user(user)
    target = await _resolve_dataset(eng, owner, dataset)
    if not run_in_background:
        return await improve_resolved(eng, owner, target, options)
    result = ImproveResult(dataset_id=target.id, dataset_name=target.name)
    ctx = ImproveContext(engine=eng, user=owner, dataset=target, options=options)
    task = eng.spawn(run_improve(ctx, result), name=f"engramdb-improve-{target.id}")
    task.add_done_callback(_log_failure)
    result._task = task
    return result


async def improve_resolved(
    engine: Engine, owner: User, dataset: Dataset, options: ImproveOptions
) -> ImproveResult:
    """The improve of a dataset the caller already resolved for ``owner`` with write permission
    (the automatic improve after remember: no second lookup), run now."""
    disabled_stages(engine.settings.improve_stages_disabled)  # a bad value fails before any work
    result = ImproveResult(dataset_id=dataset.id, dataset_name=dataset.name)
    ctx = ImproveContext(engine=engine, user=owner, dataset=dataset, options=options)
    return await run_improve(ctx, result)


def _log_failure(task: asyncio.Task[ImproveResult]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.warning("background improve failed: %s", type(task.exception()).__name__)


async def _resolve_dataset(engine: Engine, owner: User, ref: str | UUID) -> Dataset:
    # A UUID needs write permission (engramdb.access.check: PermissionDeniedError, the same for
    # an unknown id); a name is owner-scoped: the caller's own dataset, created if missing.
    return await dataset_for_write(engine.store, owner, ref)
