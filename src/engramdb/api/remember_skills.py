"""remember() for skills: ``content_type="skills"`` and ``SkillRunEntry`` (the reference's
spellings), with ``skill_improvement={...}`` to propose or apply a better procedure.

``skill_improvement`` keys: ``skill_name`` (or ``name``; for a run, default: the run's skill),
``apply`` (default False), ``proposal_id`` (needed with ``apply=True``), ``score_threshold``
(default 0.5) and ``max_runs`` (default 5); see :mod:`engramdb.api.skill_runs`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from engramdb.access.permissions import dataset_for_write
from engramdb.api.skill_runs import (
    DEFAULT_MAX_RUNS,
    DEFAULT_SCORE_THRESHOLD,
    apply_skill_proposal,
    propose_skill_improvement,
    record_skill_run,
)
from engramdb.api.skills import read_skill_sources, write_skills
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.models.records import Dataset
from engramdb.models.requests import RememberRequest
from engramdb.models.results import RememberItem, RememberResult
from engramdb.models.skills import SkillImprovementProposal
from engramdb.sessions.entries import SkillRunEntry
from engramdb.sessions.validation import validate_session_id
from engramdb.validation import validate_dataset_name, validate_node_set

__all__ = [
    "SKILL_IMPROVEMENT_KEYS",
    "improve_skill",
    "remember_skill_files",
    "remember_skill_run",
    "wants_skill_input",
]

#: The keys ``remember(..., skill_improvement={...})`` takes.
SKILL_IMPROVEMENT_KEYS = frozenset(
    {"skill_name", "name", "apply", "proposal_id", "score_threshold", "max_runs"}
)


def wants_skill_input(request: RememberRequest) -> bool:
    """Whether remember() stores skills or a skill run (this module) rather than documents;
    ``skill_improvement`` with any other input is an EngramValidationError."""
    skills = request.content_type == "skills" or isinstance(request.data, SkillRunEntry)
    if request.skill_improvement is not None and not skills:
        raise EngramValidationError(
            "skill_improvement applies only to remember(SkillRunEntry(...)) or "
            "remember(..., content_type='skills')"
        )
    return skills


async def remember_skill_files(engine: Engine, request: RememberRequest) -> RememberResult:
    """``remember(paths_or_texts, content_type="skills")``: store the skills (SKILL.md files,
    directories of them, or markdown text) in the dataset; every input is read and checked
    before anything is stored."""
    if request.session_id is not None:
        raise EngramValidationError(
            "session_id does not apply to content_type='skills': skills belong to the "
            "dataset, not a session; drop session_id"
        )
    tags = validate_node_set(request.node_set)
    inputs = request.data if isinstance(request.data, list | tuple) else [request.data]
    parsed = [skill for item in inputs for skill in read_skill_sources(item)]
    dataset = await _dataset(engine, request)
    records = await write_skills(engine, dataset, parsed, tags)
    result = RememberResult(
        status="completed",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        data_ids=[r.data_id for r in records],
        items=[
            RememberItem(data_id=r.data_id, name=r.name, status=r.status, kind="skill")
            for r in records
        ],
        counts={"skills": sum(r.status == "ingested" for r in records)},
    )
    if request.skill_improvement is None:
        return result
    proposal = await improve_skill_from_config(engine, dataset, request.skill_improvement, None)
    return _with_proposal(result, proposal)


async def remember_skill_run(engine: Engine, request: RememberRequest) -> RememberResult:
    """``remember(SkillRunEntry(...))``: record the run in the dataset (``session_id`` is kept
    with it, and is optional), then act on ``skill_improvement``."""
    entry = request.data
    if not isinstance(entry, SkillRunEntry):
        raise TypeError("remember_skill_run takes a SkillRunEntry")
    sid = None if request.session_id is None else validate_session_id(request.session_id)
    config = _check_config(request.skill_improvement)
    dataset = await _dataset(engine, request)
    run = await record_skill_run(engine, dataset, entry, session_id=sid)
    result = RememberResult(
        status="completed",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        data_ids=[run.data_id],
        items=[
            RememberItem(
                data_id=run.data_id,
                name=run.skill_name,
                status="ingested",
                kind="skill_run",
                run_id=run.run_id,
            )
        ],
        session_id=sid,
        entry_type=entry.type,
        entry_id=run.run_id,
        entry_ids=[run.run_id],
    )
    if config is None:
        return result
    proposal = await improve_skill_from_config(engine, dataset, config, run.skill_name)
    return _with_proposal(result, proposal)


async def improve_skill_from_config(
    engine: Engine, dataset: Dataset, config: Mapping[str, Any], default_skill: str | None
) -> SkillImprovementProposal | None:
    """Act on a ``skill_improvement`` dict (see the module docstring)."""
    checked = _check_config(config) or {}
    name = checked.get("skill_name") or checked.get("name") or default_skill
    if not isinstance(name, str) or not name:
        raise EngramValidationError("skill_improvement needs 'skill_name': the skill to improve")
    return await improve_skill(
        engine,
        dataset,
        name,
        proposal_id=checked.get("proposal_id"),
        apply=checked.get("apply", False),
        score_threshold=checked.get("score_threshold", DEFAULT_SCORE_THRESHOLD),
        max_runs=checked.get("max_runs", DEFAULT_MAX_RUNS),
    )


async def improve_skill(
    engine: Engine,
    dataset: Dataset,
    skill_name: str,
    *,
    proposal_id: str | None = None,
    apply: bool = False,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    max_runs: int = DEFAULT_MAX_RUNS,
) -> SkillImprovementProposal | None:
    """Propose an improvement of the skill from its failed runs (None: it has none), or with
    ``apply=True`` apply the proposal ``proposal_id``. The caller checked write permission."""
    if apply:
        if not proposal_id:
            raise EngramValidationError(
                "skill improvement with apply=True needs proposal_id: the proposal to apply"
            )
        return await apply_skill_proposal(engine, dataset, skill_name, str(proposal_id))
    return await propose_skill_improvement(
        engine, dataset, skill_name, score_threshold=score_threshold, max_runs=max_runs
    )


def _check_config(config: object) -> dict[str, Any] | None:
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise EngramValidationError("skill_improvement must be a dict, e.g. {'skill_name': ...}")
    unknown = sorted(set(map(str, config)) - SKILL_IMPROVEMENT_KEYS)
    if unknown:
        raise EngramValidationError(
            f"skill_improvement has unknown key(s) {', '.join(map(repr, unknown))}; it takes "
            f"{', '.join(sorted(SKILL_IMPROVEMENT_KEYS))}"
        )
    checked = dict(config)
    if not isinstance(checked.get("apply", False), bool):
        raise EngramValidationError("skill_improvement['apply'] must be True or False")
    threshold = checked.get("score_threshold", DEFAULT_SCORE_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise EngramValidationError("skill_improvement['score_threshold'] must be a number")
    runs = checked.get("max_runs", DEFAULT_MAX_RUNS)
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise EngramValidationError("skill_improvement['max_runs'] must be a positive integer")
    checked["score_threshold"] = float(threshold)
    return checked


async def _dataset(engine: Engine, request: RememberRequest) -> Dataset:
    target = request.dataset_id or request.dataset_name
    name = target if isinstance(target, UUID) else validate_dataset_name(target)
    owner = await engine.resolve_user(request.user)
    return await dataset_for_write(engine.store, owner, name)


def _with_proposal(
    result: RememberResult, proposal: SkillImprovementProposal | None
) -> RememberResult:
    if proposal is None:
        return result
    item = RememberItem(
        data_id=proposal.data_id,
        name=proposal.skill_name,
        status=proposal.status,
        kind="skill_improvement_proposal",
        proposal_id=proposal.proposal_id,
    )
    return result.model_copy(
        update={"items": [*result.items, item], "data_ids": [*result.data_ids, proposal.data_id]}
    )
