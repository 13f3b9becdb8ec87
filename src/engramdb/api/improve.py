"""improve(): enrich a dataset's graph after ingestion and bridge session memory into it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from uuid import UUID

from engramdb.access.permissions import dataset_for_write
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.improvement.context import ImproveContext, ImproveOptions
from engramdb.improvement.runner import run_improve
from engramdb.models.improve import ImproveResult
from engramdb.models.records import Dataset, User
from engramdb.models.requests import ImproveRequest
from engramdb.sessions.validation import validate_session_id

__all__ = ["ImproveResult", "improve", "improve_dataset"]

logger = logging.getLogger(__name__)


async def improve(engine: Engine, request: ImproveRequest) -> ImproveResult:
    """Enrich an existing dataset: run the nine improve stages in their fixed order.

    ``dataset`` is a name (owner-scoped: your dataset of that name, created if missing) or the
    UUID of a dataset you own or hold a write grant on (else :class:`PermissionDeniedError`).
    With ``session_ids`` the session stages bridge those sessions of the calling user: ratings
    become feedback weights, Q&A and agent traces become documents of the dataset, and (with
    ``PERSONALIZATION_ENABLED``) ratings and stated preferences update the user's preference
    weights. Without them only the graph stages run (``review_conflicts``,
    ``global_context_index``). The deprecated options of the reference (``node_name``,
    ``extraction_tasks``, ...) warn and are ignored.

    The call holds the dataset's lock and claims each session, so a concurrent improve,
    remember or forget of the dataset queues behind it (across processes). With
    ``run_in_background=True`` it returns at once with ``status == "running"``;
    ``await result.wait()`` gives the finished result.

    Raises the exception of ``persist_session_qa`` (with the partial result as
    ``exc.improve_result``) when that stage fails: dropping session Q&A would lose data. See
    ``docs/improve.md`` for every stage and skip reason.
    """
    feedback_alpha = request.feedback_alpha
    session_ids = request.session_ids
    build_global_context_index = request.build_global_context_index
    build_truth_subspace = request.build_truth_subspace
    review_conflicts = request.review_conflicts
    sessions = _session_ids(session_ids)
    options = ImproveOptions(
        session_ids=sessions,
        feedback_alpha=None if feedback_alpha is None else float(feedback_alpha),
        build_global_context_index=build_global_context_index,
        build_truth_subspace=bool(build_truth_subspace),
        review_conflicts=review_conflicts,
    )
    return await improve_dataset(
        request.dataset,
        options,
        user=request.user,
        run_in_background=request.run_in_background,
        engine=engine,
    )


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
    eng.settings  # noqa: B018 - reading the settings validates IMPROVE_STAGES_DISABLED now
    owner = await eng.resolve_user(user)
    target = await _resolve_dataset(eng, owner, dataset)
    result = ImproveResult(dataset_id=target.id, dataset_name=target.name)
    ctx = ImproveContext(engine=eng, user=owner, dataset=target, options=options)
    if not run_in_background:
        return await run_improve(ctx, result)
    task = eng.spawn(run_improve(ctx, result), name=f"engramdb-improve-{target.id}")
    task.add_done_callback(_log_failure)
    result._task = task
    return result


def _log_failure(task: asyncio.Task[ImproveResult]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.warning("background improve failed: %s", type(task.exception()).__name__)


def _session_ids(value: Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        raise EngramValidationError("session_ids must be a list of session ids, not one string")
    return tuple(dict.fromkeys(validate_session_id(s) for s in value))


async def _resolve_dataset(engine: Engine, owner: User, ref: str | UUID) -> Dataset:
    # A UUID needs write permission (engramdb.access.check: PermissionDeniedError, the same for
    # an unknown id); a name is owner-scoped: the caller's own dataset, created if missing.
    return await dataset_for_write(engine.store, owner, ref)
