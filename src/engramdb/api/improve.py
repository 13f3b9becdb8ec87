"""improve(): enrich a dataset's graph after ingestion and bridge session memory into it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from uuid import UUID

from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.improvement.context import ImproveOptions
from engramdb.improvement.custom import custom_tasks_of
from engramdb.improvement.runner import improve_dataset
from engramdb.models.improve import ImproveResult
from engramdb.models.records import User
from engramdb.models.requests import ImproveRequest
from engramdb.sessions.validation import validate_session_id

__all__ = ["ImproveResult", "improve", "improve_stage", "validated_session_ids"]

logger = logging.getLogger(__name__)


async def improve(engine: Engine, request: ImproveRequest) -> ImproveResult:
    """Enrich an existing dataset: run the nine improve stages in their fixed order.

    ``dataset`` is a name (owner-scoped: your dataset of that name, created if missing) or the
    UUID of a dataset you own or hold a write grant on (else :class:`PermissionDeniedError`).
    With ``session_ids`` the session stages bridge those sessions of the calling user: ratings
    become feedback weights, Q&A and agent traces become documents of the dataset, and (with
    ``PERSONALIZATION_ENABLED``) ratings and stated preferences update the user's preference
    weights. Without them only the graph stages run (``review_conflicts``,
    ``global_context_index``). The deprecated ``extraction_tasks``/``enrichment_tasks``
    (Task instances, memify task names, or a mix) warn and run after those as one more stage,
    ``custom_tasks``, over ``data`` or the dataset's graph scoped by ``node_name`` and
    ``node_type``; ``result.memify_run`` holds that run's raw return. Without custom tasks
    those scoping options warn and are ignored.

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
    sessions = validated_session_ids(session_ids)
    custom = custom_tasks_of(
        request.extraction_tasks,
        request.enrichment_tasks,
        data=request.data,
        node_name=request.node_name,
        node_type=request.node_type,
        vector_db_config=request.vector_db_config,
        graph_db_config=request.graph_db_config,
    )
    options = ImproveOptions(
        session_ids=sessions,
        feedback_alpha=None if feedback_alpha is None else float(feedback_alpha),
        build_global_context_index=build_global_context_index,
        build_truth_subspace=bool(build_truth_subspace),
        review_conflicts=review_conflicts,
        custom=custom,
    )
    return await improve_dataset(
        request.dataset,
        options,
        user=request.user,
        run_in_background=request.run_in_background,
        engine=engine,
    )


def validated_session_ids(value: Sequence[str] | None) -> tuple[str, ...]:
    """``session_ids`` checked and de-duplicated, in order (empty for None)."""
    if value is None:
        return ()
    if isinstance(value, str):
        raise EngramValidationError("session_ids must be a list of session ids, not one string")
    return tuple(dict.fromkeys(validate_session_id(s) for s in value))


async def improve_stage(
    engine: Engine,
    stage: str,
    *,
    user: User | None,
    session_ids: Sequence[str] | None,
    dataset: str | UUID,
    run_in_background: bool = False,
    feedback_alpha: float | None = None,
) -> ImproveResult:
    """``improve(dataset, session_ids=...)`` with only ``stage`` run (the others are reported
    skipped, reason ``not_requested``), validated as improve() validates its options. Used by
    the reference's memify pipelines and by agent_memory's periodic trace persistence."""
    from engramdb.verbs import verb

    checked = verb("improve").build(
        {
            "dataset": dataset,
            "session_ids": session_ids,
            "feedback_alpha": feedback_alpha,
            "run_in_background": run_in_background,
            "user": user,
        }
    )
    options = ImproveOptions(
        session_ids=validated_session_ids(checked.session_ids),
        feedback_alpha=checked.feedback_alpha,
        only_stages=frozenset({stage}),
    )
    return await improve_dataset(
        checked.dataset, options, user=user, run_in_background=run_in_background, engine=engine
    )
