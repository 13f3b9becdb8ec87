"""``cognee.modules.memify.skill_improvement``: propose, review and apply a better procedure
for a skill from its failed runs (engramdb's :mod:`engramdb.api.skill_runs`).

``improve_skill(name, dataset=..., user=...)`` drafts a proposal from the skill's runs recorded
with ``remember(SkillRunEntry(...))`` that failed (an error, or ``success_score`` below
``score_threshold``), or returns None when there is none; with ``apply=True`` and a
``proposal_id`` it makes the proposal's procedure the skill's current one. ``user`` (default:
the default user) needs write permission on the dataset (PermissionDeniedError).
"""

from __future__ import annotations

from typing import Any

from engramdb.access.permissions import dataset_for_read, dataset_for_write
from engramdb.api.remember_skills import improve_skill as _improve_skill
from engramdb.api.remember_skills import improve_skill_from_config as _from_config
from engramdb.api.skill_runs import (
    DEFAULT_MAX_RUNS,
    DEFAULT_SCORE_THRESHOLD,
    get_skill_proposal,
)
from engramdb.compat.cognee.modules.users._engine import ready_engine
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.models.records import Dataset, User
from engramdb.models.skills import SkillImprovementProposal

__all__ = ["get_proposal", "improve_skill", "improve_skill_from_config"]


async def improve_skill(
    skill_name: str,
    *,
    dataset: Dataset,
    user: User | None = None,
    proposal_id: str | None = None,
    apply: bool = False,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    max_runs: int = DEFAULT_MAX_RUNS,
) -> SkillImprovementProposal | None:
    """Propose (or with ``apply=True``, apply) an improvement of the skill; see the module
    docstring."""
    engine, target = await _writable(dataset, user)
    return await _improve_skill(
        engine,
        target,
        skill_name,
        proposal_id=proposal_id,
        apply=apply,
        score_threshold=score_threshold,
        max_runs=max_runs,
    )


async def improve_skill_from_config(
    config: dict[str, Any], *, dataset: Dataset, user: User | None = None
) -> SkillImprovementProposal | None:
    """:func:`improve_skill` from a ``skill_improvement`` dict (``skill_name``, ``apply``,
    ``proposal_id``, ``score_threshold``, ``max_runs``)."""
    engine, target = await _writable(dataset, user)
    return await _from_config(engine, target, config, None)


async def get_proposal(
    proposal_id: str, *, dataset: Dataset, user: User | None = None
) -> SkillImprovementProposal | None:
    """The stored proposal (to review ``old_procedure`` / ``proposed_procedure`` /
    ``rationale`` before applying it), or None; needs read permission."""
    engine = await ready_engine()
    owner = user if user is not None else await engine.resolve_user(None)
    target = await dataset_for_read(engine.store, owner, _dataset_id(dataset))
    return await get_skill_proposal(engine, target, proposal_id)


async def _writable(dataset: Dataset, user: User | None) -> tuple[Engine, Dataset]:
    engine = await ready_engine()
    owner = user if user is not None else await engine.resolve_user(None)
    return engine, await dataset_for_write(engine.store, owner, _dataset_id(dataset))


def _dataset_id(dataset: object) -> Any:
    ident = getattr(dataset, "id", None)
    if ident is None:
        raise EngramValidationError("Skill improvement requires one explicit dataset.")
    return ident
