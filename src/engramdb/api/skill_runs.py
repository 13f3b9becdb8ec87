"""Skill runs and skill improvement: record how a skill did, let the LLM propose a better one.

The reference's feedback loop for skills (``remember(SkillRunEntry(...))`` then its
``improve_skill``), in three steps:

1. :func:`record_skill_run` stores one run of a skill -- the task, a summary of the result, a
   ``success_score`` (0.0-1.0; 0.5 when unscored), ``feedback`` (-1.0-1.0), an error if the run
   failed.
2. :func:`propose_skill_improvement` gathers the skill's *failed* runs (an error, or a score below
   ``score_threshold``; the newest ``max_runs``) and asks the LLM for a revised procedure. The
   draft is stored as a :class:`~engramdb.models.skills.SkillImprovementProposal` with status
   "proposed"; the skill itself is unchanged. No failed run: no proposal (None).
3. :func:`apply_skill_proposal` stores the proposed procedure as the skill's new version (the
   skill keeps its id) and marks the proposal "applied".

Where it lives: each run, proposal and application is one data record of the skill's dataset
(``external_metadata`` holds its fields; mime types :data:`SKILL_RUN_MIME_TYPE` and
:data:`SKILL_PROPOSAL_MIME_TYPE`), outside the graph and every search collection, like a skill's
procedure body. Records are never rewritten: a proposal is "applied" once its application record
exists. ``forget(dataset=...)`` removes them with the dataset; ``forget(data_id=...)`` one of them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from uuid import uuid4

from pydantic import BaseModel, Field

from engramdb.api.skills import write_skill
from engramdb.artifacts.skills import find_skill
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError, LLMNotConfiguredError
from engramdb.ingest.pipeline import data_id_for
from engramdb.models.records import DataRecord, Dataset, utcnow
from engramdb.models.skills import Skill, SkillImprovementProposal, SkillRun
from engramdb.sessions.entries import SkillRunEntry
from engramdb.storage.base import DocumentWrite
from engramdb.storage.lending import dataset_lock

__all__ = [
    "DEFAULT_MAX_RUNS",
    "DEFAULT_SCORE_THRESHOLD",
    "SKILL_PROPOSAL_MIME_TYPE",
    "SKILL_RUN_MIME_TYPE",
    "UNSCORED_SKILL_RUN_SCORE",
    "apply_skill_proposal",
    "get_skill_proposal",
    "list_skill_runs",
    "propose_skill_improvement",
    "record_skill_run",
]

SKILL_RUN_MIME_TYPE = "text/x-engramdb-skill-run"
SKILL_PROPOSAL_MIME_TYPE = "text/x-engramdb-skill-proposal"
#: The score of a run recorded without one (the reference's neutral default).
UNSCORED_SKILL_RUN_SCORE = 0.5
#: A run scoring below this is a failure (the reference's default).
DEFAULT_SCORE_THRESHOLD = 0.5
#: How many of the newest failed runs a proposal is drafted from.
DEFAULT_MAX_RUNS = 5

_RUN_KEY = "skill_run"
_PROPOSAL_KEY = "skill_proposal"
_APPLIED_KEY = "skill_proposal_applied"
_NO_LLM = "improving a skill drafts its new procedure with an LLM"

_SYSTEM_PROMPT = (
    "You improve the procedure of an agent skill from evidence of the runs where it failed. "
    "Answer with a revised procedure the agent can follow as it is, why it fixes the failures, "
    "and your confidence (0.0-1.0)."
)


class SkillImprovementDraft(BaseModel):
    """What the LLM answers when asked to improve a skill."""

    proposed_procedure: str = Field(default="", description="The complete revised SKILL.md body.")
    rationale: str = Field(default="", description="Why the revision fixes the failures.")
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)


async def record_skill_run(
    engine: Engine, dataset: Dataset, entry: SkillRunEntry, *, session_id: str | None = None
) -> SkillRun:
    """Store one run of the skill ``entry.selected_skill_id`` (a skill name or id of
    ``dataset``; EngramValidationError when it has none). The caller checked the write
    permission. Recording the same ``run_id`` again keeps the first record."""
    skill = await _skill(engine, dataset, entry.selected_skill_id)
    score = UNSCORED_SKILL_RUN_SCORE if entry.success_score is None else entry.success_score
    fields = {
        "run_id": entry.run_id,
        "skill_id": str(skill.id),
        "skill_name": skill.name,
        "session_id": session_id,
        "task_text": entry.task_text,
        "result_summary": entry.result_summary,
        "success_score": score,
        "feedback": entry.feedback,
        "error_type": entry.error_type,
        "error_message": entry.error_message,
        "started_at_ms": entry.started_at_ms,
        "latency_ms": entry.latency_ms,
        "candidate_skill_ids": entry.candidate_skill_ids or [str(skill.id)],
        "task_pattern_id": entry.task_pattern_id,
        "router_version": entry.router_version,
        "tool_trace": entry.tool_trace,
    }
    record = await _write(
        engine, dataset, SKILL_RUN_MIME_TYPE, _RUN_KEY, entry.run_id, f"run of {skill.name}", fields
    )
    return _run_of(record)


async def list_skill_runs(engine: Engine, dataset: Dataset, skill: Skill) -> list[SkillRun]:
    """The recorded runs of ``skill``, newest first (by ``started_at_ms``, then storage time)."""
    records = await engine.store.list_data(dataset.id)
    runs = [
        _run_of(r)
        for r in reversed(records)
        if r.mime_type == SKILL_RUN_MIME_TYPE and _RUN_KEY in r.external_metadata
    ]
    mine = [r for r in runs if r.skill_id == skill.id]
    return sorted(mine, key=lambda run: run.started_at_ms, reverse=True)


async def propose_skill_improvement(
    engine: Engine,
    dataset: Dataset,
    skill_name: str,
    *,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    max_runs: int = DEFAULT_MAX_RUNS,
) -> SkillImprovementProposal | None:
    """Draft a better procedure for the skill from its failed runs (see the module docstring);
    None when it has no failed run. LLMNotConfiguredError without an LLM."""
    if max_runs < 1:
        raise EngramValidationError("max_runs must be at least 1")
    skill = await _skill(engine, dataset, skill_name)
    runs = await list_skill_runs(engine, dataset, skill)
    failed = [r for r in runs if _failed(r, score_threshold)]
    if not failed:
        return None
    llm = engine.llm
    if llm is None:
        raise LLMNotConfiguredError.needed_for(_NO_LLM)
    draft, _ = await llm.structured(
        [
            {"role": "system", "content": _SYSTEM_PROMPT},
            {"role": "user", "content": _draft_prompt(skill, failed[:max_runs])},
        ],
        SkillImprovementDraft,
        cache=False,
    )
    proposal_id = str(uuid4())
    fields = {
        "proposal_id": proposal_id,
        "skill_id": str(skill.id),
        "skill_name": skill.name,
        "old_procedure": skill.procedure,
        "proposed_procedure": _as_skill_body(skill.name, draft.proposed_procedure),
        "rationale": draft.rationale,
        "confidence": draft.confidence,
        "runs_used": [r.run_id for r in failed[:max_runs]],
        "model_name": engine.settings.llm_model or "",
    }
    name = f"proposal for {skill.name}"
    record = await _write(
        engine, dataset, SKILL_PROPOSAL_MIME_TYPE, _PROPOSAL_KEY, proposal_id, name, fields
    )
    return _proposal_of(record, applied=False)


async def get_skill_proposal(
    engine: Engine, dataset: Dataset, proposal_id: str
) -> SkillImprovementProposal | None:
    """The stored proposal of ``dataset`` with this id (to review it before applying), or None."""
    records = await engine.store.list_data(dataset.id)
    applied = {
        str(r.external_metadata[_APPLIED_KEY].get("proposal_id"))
        for r in records
        if r.mime_type == SKILL_PROPOSAL_MIME_TYPE and _APPLIED_KEY in r.external_metadata
    }
    for record in records:
        fields = record.external_metadata.get(_PROPOSAL_KEY)
        if record.mime_type != SKILL_PROPOSAL_MIME_TYPE or not isinstance(fields, dict):
            continue
        if fields.get("proposal_id") == proposal_id:
            return _proposal_of(record, applied=proposal_id in applied)
    return None


async def apply_skill_proposal(
    engine: Engine, dataset: Dataset, skill_name: str, proposal_id: str
) -> SkillImprovementProposal:
    """Make the proposal's procedure the skill's current one and mark the proposal applied.
    EngramValidationError when ``dataset`` has no such proposal, or it is for another skill."""
    proposal = await get_skill_proposal(engine, dataset, proposal_id)
    if proposal is None:
        raise EngramValidationError(
            f"Proposal {proposal_id!r} was not found in dataset {dataset.name!r}."
        )
    if proposal.skill_name != skill_name:
        raise EngramValidationError(
            f"Proposal {proposal_id!r} improves skill {proposal.skill_name!r}, not {skill_name!r}."
        )
    skill = await _skill(engine, dataset, str(proposal.skill_id))
    await write_skill(
        engine, dataset, skill.name, skill.description, proposal.proposed_procedure, skill.tags
    )
    fields = {"proposal_id": proposal_id, "skill_id": str(skill.id)}
    await _write(
        engine, dataset, SKILL_PROPOSAL_MIME_TYPE, _APPLIED_KEY, proposal_id, "applied", fields
    )
    return proposal.model_copy(update={"status": "applied"})


# --- helpers ---------------------------------------------------------------------------------


async def _skill(engine: Engine, dataset: Dataset, name_or_id: str) -> Skill:
    skill = await find_skill(engine.store, dataset, name_or_id)
    if skill is None:
        raise EngramValidationError(
            f"Skill {name_or_id!r} was not found in dataset {dataset.name!r}: store it first "
            "with remember(path, content_type='skills') or remember_skill(...)"
        )
    return skill


async def _write(
    engine: Engine,
    dataset: Dataset,
    mime_type: str,
    key: str,
    ident: str,
    name: str,
    fields: dict[str, Any],
) -> DataRecord:
    """The record ``(key, ident)`` of ``dataset``: written now, or the one already stored."""
    content_hash = hashlib.sha256(f"{key}\x1f{ident}".encode()).hexdigest()
    record = DataRecord(
        id=data_id_for(dataset.id, content_hash),
        dataset_id=dataset.id,
        name=name,
        content_hash=content_hash,
        mime_type=mime_type,
        external_metadata={key: fields},
        size_bytes=len(json.dumps(fields).encode()),
        created_at=utcnow(),
    )
    store = engine.store
    async with store.lock(dataset_lock(dataset.id), timeout=engine.settings.engramdb_lock_timeout):
        if await store.write_document(DocumentWrite(data=record)):
            return record
    stored = await store.find_data_by_hash(dataset.id, content_hash)
    return stored if stored is not None else record


def _run_of(record: DataRecord) -> SkillRun:
    fields = record.external_metadata[_RUN_KEY]
    return SkillRun.model_validate(
        {**fields, "data_id": record.id, "dataset_id": record.dataset_id}
    )


def _failed(run: SkillRun, score_threshold: float) -> bool:
    """A run ended in an error or scored below the threshold."""
    return bool(run.error_type or run.error_message) or run.success_score < score_threshold


def _proposal_of(record: DataRecord, *, applied: bool) -> SkillImprovementProposal:
    fields = record.external_metadata[_PROPOSAL_KEY]
    return SkillImprovementProposal.model_validate(
        {
            **fields,
            "data_id": record.id,
            "dataset_id": record.dataset_id,
            "status": "applied" if applied else "proposed",
        }
    )


def _draft_prompt(skill: Skill, runs: list[SkillRun]) -> str:
    evidence = "\n".join(
        f"- run {r.run_id}: score {r.success_score:.2f}; "
        f"error: {r.error_type or r.error_message or 'none'}; result: {r.result_summary}"
        for r in runs
    )
    return (
        f"Skill: {skill.name}\nDescription: {skill.description}\n\n"
        f"Current procedure:\n{skill.procedure}\n\nFailed runs:\n{evidence}\n\n"
        f"Write the revised procedure as a complete SKILL.md body starting with "
        f"'# {skill.name}': direct instructions for the agent, not prose about the skill."
    )


def _as_skill_body(name: str, procedure: str) -> str:
    """A procedure that starts with a heading, as SKILL.md bodies do (the reference's rule)."""
    body = procedure.strip()
    return body if body.startswith("#") else f"# {name}\n\n{body}".strip()
