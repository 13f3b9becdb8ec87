"""The skill feedback loop: store skills with ``remember(..., content_type="skills")``, offer
them to AGENTIC_COMPLETION, record how a run went with ``remember(SkillRunEntry(...))``, and let
the LLM propose (then apply) a better procedure from the failed runs -- through the real LLM
client against the local OpenAI-protocol server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engramdb
from engramdb.compat.cognee.modules.memify.skill_improvement import get_proposal, improve_skill
from engramdb.compat.cognee.modules.tools.resolve_skills import find_skill_by_name
from engramdb.engine import get_engine
from engramdb.models.records import Dataset
from engramdb.sessions.entries import SkillRunEntry
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

TONE = "---\ndescription: Judge whether a review comment is polite.\n---\n# tone-checker\n\n"
TONE_BODY = "Only judge whether the comment sounds polite."
DIFF = "# diff-explainer\n\nExplain what changed in a diff. Keep it short.\n"
BETTER = "Compare the comment against the concrete bug risk of the diff, then judge its tone."


def _skills(root: Path) -> Path:
    for name, text in (("tone-checker", TONE + TONE_BODY + "\n"), ("diff-explainer", DIFF)):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text, encoding="utf-8")
    return root


def _use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 0)


def _draft(server: OpenAIServer) -> None:
    """The model answers every call with the improvement draft."""
    draft = {"proposed_procedure": BETTER, "rationale": "It judged tone only.", "confidence": 0.8}
    reply = Reply.json(server.chat_document(json.dumps(draft)))
    server.set_default("chat/completions", lambda request: reply)


async def _dataset(name: str) -> Dataset:
    engine = get_engine()
    owner = await engine.resolve_user(None)
    found = await engine.store.find_dataset(owner.id, name)
    assert found is not None
    return found


async def test_remember_skills_from_a_folder(tmp_path: Path) -> None:
    result = await engramdb.remember(
        str(_skills(tmp_path)), dataset_name="review", content_type="skills"
    )
    assert result.status == "completed" and result.items_processed == 2
    assert [(i["kind"], i.name, i.status) for i in result.items] == [
        ("skill", "diff-explainer", "ingested"),
        ("skill", "tone-checker", "ingested"),
    ]
    dataset = await _dataset("review")
    skill = await find_skill_by_name("tone-checker", dataset_id=dataset.id)
    assert skill is not None and skill.description == "Judge whether a review comment is polite."
    assert skill.procedure == f"# tone-checker\n\n{TONE_BODY}"
    assert await find_skill_by_name("no-such-skill", dataset_id=dataset.id) is None
    again = await engramdb.remember(str(tmp_path), dataset_name="review", content_type="skills")
    assert [i.status for i in again.items] == ["skipped", "skipped"]
    with pytest.raises(engramdb.EngramValidationError, match="session_id does not apply"):
        await engramdb.remember(
            str(tmp_path), dataset_name="review", content_type="skills", session_id="s"
        )


async def test_a_failed_run_gets_a_proposal_that_applies(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    await engramdb.remember(str(_skills(tmp_path)), dataset_name="review", content_type="skills")
    _use_llm(openai_server)
    _draft(openai_server)
    run = SkillRunEntry(
        selected_skill_id="tone-checker",
        task_text="Review the null-pointer fix.",
        result_summary="Said the comment was polite; missed the crash risk.",
        success_score=0.3,
        feedback=-1.0,
    )
    result = await engramdb.remember(
        run,
        dataset_name="review",
        session_id="review-session",
        skill_improvement={"skill_name": "tone-checker", "score_threshold": 0.9},
    )
    assert result.entry_type == "skill_run" and result.entry_id == run.run_id
    kinds = [item.get("kind") for item in result.items]
    assert kinds == ["skill_run", "skill_improvement_proposal"]
    proposal_id = result.items[1]["proposal_id"]
    assert result.items[1]["status"] == "proposed"
    # the model saw the skill and the failed run
    prompt = json.dumps(openai_server.requests_to("chat/completions")[-1].json)
    assert TONE_BODY in prompt and "missed the crash risk" in prompt

    dataset = await _dataset("review")
    before = await find_skill_by_name("tone-checker", dataset_id=dataset.id)
    assert before is not None and TONE_BODY in before.procedure  # only proposed so far
    proposal = await get_proposal(proposal_id, dataset=dataset)
    assert proposal is not None and proposal.status == "proposed"
    assert proposal.proposed_procedure == f"# tone-checker\n\n{BETTER}"
    assert proposal.runs_used == [run.run_id] and proposal.rationale == "It judged tone only."

    applied = await improve_skill(
        "tone-checker", dataset=dataset, proposal_id=proposal_id, apply=True
    )
    assert applied is not None and applied.status == "applied"
    after = await find_skill_by_name("tone-checker", dataset_id=dataset.id)
    assert after is not None and after.id == before.id
    assert after.procedure == f"# tone-checker\n\n{BETTER}"
    assert after.description == before.description
    reviewed = await get_proposal(proposal_id, dataset=dataset)
    assert reviewed is not None and reviewed.status == "applied"
    with pytest.raises(engramdb.EngramValidationError, match="improves skill 'tone-checker'"):
        await improve_skill("diff-explainer", dataset=dataset, proposal_id=proposal_id, apply=True)


async def test_no_failed_run_no_proposal(tmp_path: Path, openai_server: OpenAIServer) -> None:
    await engramdb.remember(str(_skills(tmp_path)), dataset_name="review", content_type="skills")
    _use_llm(openai_server)
    _draft(openai_server)
    good = SkillRunEntry(selected_skill_id="diff-explainer", success_score=0.95)
    result = await engramdb.remember(
        good, dataset_name="review", skill_improvement={"score_threshold": 0.9}
    )
    assert [i.kind for i in result.items] == ["skill_run"]  # the run's skill, by default
    assert openai_server.requests_to("chat/completions") == []
    failed = SkillRunEntry(selected_skill_id="diff-explainer", error_type="Timeout")
    proposed = await engramdb.remember(
        failed, dataset_name="review", skill_improvement={"score_threshold": 0.1}
    )
    assert [i.kind for i in proposed.items] == ["skill_run", "skill_improvement_proposal"]


async def test_skill_improvement_mistakes_are_named(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    await engramdb.remember(str(_skills(tmp_path)), dataset_name="review", content_type="skills")
    run = SkillRunEntry(selected_skill_id="tone-checker", success_score=0.2)
    with pytest.raises(engramdb.EngramValidationError, match="applies only to"):
        await engramdb.remember("A note.", dataset_name="review", skill_improvement={})
    with pytest.raises(engramdb.EngramValidationError, match="unknown key"):
        await engramdb.remember(run, dataset_name="review", skill_improvement={"skil": "x"})
    with pytest.raises(engramdb.EngramValidationError, match="needs proposal_id"):
        await engramdb.remember(run, dataset_name="review", skill_improvement={"apply": True})
    with pytest.raises(engramdb.EngramValidationError, match="'nope' was not found"):
        await engramdb.remember(
            run,
            dataset_name="review",
            skill_improvement={"apply": True, "proposal_id": "nope"},
        )
    with pytest.raises(engramdb.LLMNotConfiguredError):
        await engramdb.remember(run, dataset_name="review", skill_improvement={})
    unknown = SkillRunEntry(selected_skill_id="no-such-skill")
    with pytest.raises(engramdb.EngramValidationError, match="'no-such-skill' was not found"):
        await engramdb.remember(unknown, dataset_name="review")


async def test_agentic_completion_loads_an_offered_skill(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    await engramdb.remember(str(_skills(tmp_path)), dataset_name="review", content_type="skills")
    _use_llm(openai_server)
    seen: list[str] = []

    def agent(request: RecordedRequest) -> Reply:
        messages = request.json["messages"]
        seen.append(json.dumps(messages))
        turns = sum(1 for m in messages if m["role"] == "assistant")
        if turns == 0:
            action = {"action": "load_skill", "skill": "tone-checker"}
        else:
            action = {"action": "answer", "answer": '{"verdict": "polite"}'}
        return Reply.json(openai_server.chat_document(json.dumps(action)))

    openai_server.set_default("chat/completions", agent)
    answer = await engramdb.recall(
        "Judge this review comment: 'LGTM'.",
        query_type=engramdb.SearchType.AGENTIC_COMPLETION,
        datasets="review",  # one dataset may be named as a string
        retriever_specific_config={"skills": ["tone-checker", "no-such-skill"], "max_iter": 4},
    )
    entry = answer[0]
    assert isinstance(entry, engramdb.ResponseGraphEntry) and entry.text == '{"verdict": "polite"}'
    assert entry.raw["skills_loaded"] == ["tone-checker"]
    assert [s["action"] for s in entry.raw["steps"]] == ["load_skill", "answer"]
    # the catalog shows names and descriptions; the body comes only with load_skill
    assert "`tone-checker`: Judge whether a review comment is polite." in seen[0]
    assert TONE_BODY not in seen[0] and "diff-explainer" not in seen[0]
    assert "at most 4 times" in seen[0] and TONE_BODY in seen[1]
    # cognee's search() takes the same options as arguments
    legacy = await engramdb.search(
        "Judge this review comment: 'LGTM'.",
        query_type=engramdb.SearchType.AGENTIC_COMPLETION,
        datasets=["review"],
        skills=["tone-checker"],
        max_iter=2,
    )
    assert legacy == ['{"verdict": "polite"}'] and "at most 2 times" in seen[2]
    with pytest.raises(engramdb.EngramValidationError, match="AGENTIC_COMPLETION"):
        await engramdb.search("LGTM?", datasets=["review"], skills=["tone-checker"])
