"""The nine improve stages in their fixed order: when each runs, and what runs it; with the
deprecated custom tasks, the ``custom_tasks`` stage after them.

A stage's *gate* returns the reason to skip it under the current call and settings (or None to
run it). Stages that engramdb does not build yet are gated with ``not_implemented`` so a result
never claims work that was not done.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from engramdb.improvement import bridging, conflicts, custom, global_index, learning, truth
from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.settings import IMPROVE_STAGES, disabled_stages

__all__ = ["CUSTOM_STAGE", "STAGES", "Stage", "disabled_stages", "stages_of"]

Gate = Callable[[ImproveContext], str | None]
Runner = Callable[[ImproveContext], Awaitable[StageOutcome]]


@dataclass(frozen=True, slots=True)
class Stage:
    name: str
    gate: Gate
    run: Runner | None = None


def _needs_sessions(ctx: ImproveContext) -> str | None:
    return None if ctx.session_ids else "no_session_ids"


def _agent_context(ctx: ImproveContext) -> str | None:
    if not ctx.session_ids:
        return "no_session_ids"
    if not ctx.settings.auto_feedback:
        return "auto_feedback_disabled"
    return None


def _preferences(ctx: ImproveContext) -> str | None:
    if not ctx.session_ids:
        return "no_session_ids"
    if not ctx.settings.personalization_enabled:
        return "personalization_disabled"
    return None


def _truth_subspace(ctx: ImproveContext) -> str | None:
    """Opt-in; without session_ids it anchors the session_learnings documents instead."""
    if not ctx.options.build_truth_subspace:
        return "opt_in_disabled" if ctx.session_ids else "no_session_ids"
    return None


def _review_conflicts(ctx: ImproveContext) -> str | None:
    chosen = ctx.options.review_conflicts
    on = ctx.settings.improve_review_conflicts if chosen is None else chosen
    if not on:
        return "turned_off"
    if not ctx.settings.llm_configured:
        return "no_llm_configured"
    if not ctx.settings.edge_evidence_enabled:
        return "edge_evidence_disabled"
    return None


def _global_index(ctx: ImproveContext) -> str | None:
    chosen = ctx.options.build_global_context_index
    on = ctx.settings.improve_global_context_index if chosen is None else chosen
    return None if on else "turned_off"


async def _update_preferences(ctx: ImproveContext) -> StageOutcome:
    from engramdb.personalization.update import update_user_preferences

    return await update_user_preferences(ctx)


STAGES: tuple[Stage, ...] = (
    Stage("feedback_weights", _needs_sessions, bridging.feedback_weights),
    Stage("persist_session_qa", _needs_sessions, bridging.persist_session_qa),
    Stage("persist_agent_traces", _needs_sessions, bridging.persist_agent_traces),
    Stage("extract_agent_context", _agent_context, learning.extract_agent_context),
    Stage("distill_sessions", _needs_sessions, learning.distill_sessions),
    Stage("update_user_preferences", _preferences, _update_preferences),
    Stage("build_truth_subspace", _truth_subspace, truth.build_truth_subspace),
    Stage("review_conflicts", _review_conflicts, conflicts.review_conflicts),
    Stage("global_context_index", _global_index, global_index.build_global_context_index),
)
assert tuple(s.name for s in STAGES) == IMPROVE_STAGES

#: Appended after the nine when the call passes custom tasks (see :mod:`.custom`).
CUSTOM_STAGE = Stage(custom.CUSTOM_TASKS_STAGE, lambda ctx: None, custom.run_custom_tasks)


def stages_of(ctx: ImproveContext, registry: tuple[Stage, ...] = STAGES) -> tuple[Stage, ...]:
    """The stages one call runs, in order: ``registry``, then ``custom_tasks`` when the call
    passes custom tasks."""
    return registry if ctx.options.custom is None else (*registry, CUSTOM_STAGE)
