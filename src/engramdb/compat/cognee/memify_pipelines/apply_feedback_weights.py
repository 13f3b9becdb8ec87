"""``cognee.memify_pipelines.apply_feedback_weights``: spend session ratings on graph weights."""

from __future__ import annotations

from engramdb.errors import EngramValidationError
from engramdb.models.improve import ImproveResult
from engramdb.models.records import User

__all__ = ["apply_feedback_weights_pipeline"]


async def apply_feedback_weights_pipeline(
    user: User,
    session_ids: list[str],
    dataset: str = "main_dataset",
    alpha: float | None = None,
    batch_size: int = 100,
    run_in_background: bool = False,
) -> ImproveResult:
    """Move the ``feedback_weight`` of the graph elements each rated answer of the sessions
    used toward its rating, as improve()'s ``feedback_weights`` stage does (each rating spent
    once; ``alpha`` the step, IMPROVE_FEEDBACK_ALPHA when None), and nothing else: the other
    improve stages are skipped as ``not_requested``. ``batch_size`` is validated as cognee's;
    engramdb spends a dataset's ratings in one transaction, so it bounds nothing. Needs write
    permission on ``dataset``. Returns the ImproveResult (its ``feedback_weights`` stage counts
    what moved). In-process only."""
    from engramdb.engine import get_engine
    from engramdb.improvement.context import ImproveOptions
    from engramdb.improvement.runner import improve_dataset
    from engramdb.sessions.validation import validate_session_id
    from engramdb.verbs import verb

    if not isinstance(session_ids, list) or not session_ids:
        raise EngramValidationError("session_ids must be a non-empty list of session ids")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise EngramValidationError("batch_size must be a positive integer")
    checked = verb("improve").build(  # the same validation as improve()'s
        {"dataset": dataset, "session_ids": session_ids, "feedback_alpha": alpha, "user": user}
    )
    options = ImproveOptions(
        session_ids=tuple(dict.fromkeys(validate_session_id(s) for s in session_ids)),
        feedback_alpha=checked.feedback_alpha,
        stages=frozenset({"feedback_weights"}),
    )
    return await improve_dataset(
        checked.dataset,
        options,
        user=user,
        run_in_background=run_in_background,
        engine=get_engine(),
    )
