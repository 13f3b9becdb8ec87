"""``cognee.memify_pipelines.apply_feedback_weights``: session ratings become feedback weights."""

from __future__ import annotations

from engramdb.compat.cognee.memify_pipelines._stage import run_stage
from engramdb.errors import EngramValidationError
from engramdb.models.improve import ImproveResult
from engramdb.models.records import User

__all__ = ["apply_feedback_weights_pipeline"]


async def apply_feedback_weights_pipeline(
    user: User,
    session_ids: list[str],
    dataset: str = "main_dataset",
    alpha: float = 0.1,
    batch_size: int = 100,
    run_in_background: bool = False,
) -> ImproveResult:
    """The ``feedback_weights`` stage of improve() alone: the rated answers of ``session_ids``
    move the feedback weights of the graph elements they used, by ``alpha`` (cognee's
    streaming update). As in cognee, ``session_ids`` must be a non-empty list and
    ``batch_size`` a positive integer; engramdb applies every new rating of the sessions in one
    transaction, so ``batch_size`` bounds nothing."""
    if not isinstance(session_ids, list) or not session_ids:
        raise EngramValidationError("session_ids must be a non-empty list of session ids")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise EngramValidationError("batch_size must be a positive integer")
    return await run_stage(
        "feedback_weights",
        user=user,
        session_ids=session_ids,
        dataset=dataset,
        run_in_background=run_in_background,
        feedback_alpha=alpha,
    )
