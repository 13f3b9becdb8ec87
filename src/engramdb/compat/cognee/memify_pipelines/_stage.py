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
    """:func:`engramdb.api.improve.improve_stage` on the default engine."""
    from engramdb.api.improve import improve_stage
    from engramdb.engine import get_engine

    return await improve_stage(
        get_engine(),
        stage,
        user=user,
        session_ids=session_ids,
        dataset=dataset,
        run_in_background=run_in_background,
        feedback_alpha=feedback_alpha,
    )
