"""Run one improve stage alone, as cognee's memify pipelines each run one step."""

from __future__ import annotations

from collections.abc import Sequence

from engramdb.models.improve import ImproveResult
from engramdb.models.records import User

__all__ = ["run_stage"]


async def run_stage(
    stage: str,
    *,
    user: User | None,
    session_ids: Sequence[str] | None,
    dataset: str,
    run_in_background: bool,
    feedback_alpha: float | None = None,
) -> ImproveResult:
    """``improve(dataset, session_ids=...)`` on the default engine with only ``stage`` run (the
    others are reported skipped, reason ``not_requested``)."""
    from engramdb.api.improve import validated_session_ids
    from engramdb.engine import get_engine
    from engramdb.improvement.context import ImproveOptions
    from engramdb.improvement.runner import improve_dataset

    options = ImproveOptions(
        session_ids=validated_session_ids(session_ids),
        feedback_alpha=feedback_alpha,
        only_stages=frozenset({stage}),
    )
    return await improve_dataset(
        dataset, options, user=user, run_in_background=run_in_background, engine=get_engine()
    )
