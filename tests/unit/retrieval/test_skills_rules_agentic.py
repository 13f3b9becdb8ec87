"""CODING_RULES, SKILLS (with remember_skill / load_skill) and AGENTIC_COMPLETION.

Data goes in through the public verbs (``remember`` with the offline extractor and the fake
embedder, ``remember_skill``); the agent talks to the scripted local OpenAI-protocol server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import engramdb
from engramdb import load_skill, remember_skill, remember_skills
from engramdb.api.skills import SKILL_COLLECTION, parse_skill_markdown
from engramdb.engine import get_engine
from engramdb.errors import LLMNotConfiguredError, PermissionDeniedError
from engramdb.models.records import Dataset, User
from engramdb.models.results import ResponseSkillEntry
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.retrieval.retrievers.agentic import AgenticRetriever
from engramdb.retrieval.retrievers.coding_rules import CodingRulesRetriever
from engramdb.retrieval.retrievers.cypher import CypherRetriever
from engramdb.retrieval.retrievers.skills import SkillsRetriever
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

RULES = [
    "Always add type hints to every Python function signature.",
    "Never commit secrets or API keys to the git repository.",
    "Prefer small pure functions over classes with hidden state.",
]
PROCEDURE = (
    "1. Run `make build` and wait for the green check.\n"
    "2. Export KUBE-SECRET-PROCEDURE-7731 and run `kubectl apply -f deploy/`.\n"
    "3. Watch the rollout until every pod is ready."
)


async def _dataset(name: str, user: User | None = None) -> Dataset:
    engine = get_engine()
    owner = user or await engine.store.get_or_create_default_user()
    found = await engine.store.find_dataset(owner.id, name)
    assert found is not None, name
    return found


async def _ctx(*names: str, with_llm: bool = False) -> RetrievalContext:
    engine = get_engine()
    owner = await engine.store.get_or_create_default_user()
    return RetrievalContext(
        store=engine.store,
        embedder=engine.embedder,
        llm=engine.llm if with_llm else None,
        settings=engine.settings,
        datasets=[await _dataset(n) for n in names],
        user=owner,
    )


def _opts(query: str, search_type: SearchType, **kw: Any) -> RecallOptions:
    return RecallOptions(query=query, search_type=search_type, **kw)


# --- CODING_RULES --------------------------------------------------------------------------------


async def test_coding_rules_come_from_the_node_set_best_first() -> None:
    await engramdb.remember(RULES, dataset_name="repo", node_set=["coding_agent_rules"])
    await engramdb.remember(
        ["Type hints were discussed at the Python meetup in Paris."], dataset_name="repo"
    )
    await engramdb.remember(
        ["Always add type hints, says the other team."],
        dataset_name="elsewhere",
        node_set=["coding_agent_rules"],
    )
    ctx = await _ctx("repo")
    found = await CodingRulesRetriever().retrieve(
        ctx, _opts("which type hints rules apply to a Python function?", SearchType.CODING_RULES)
    )
    assert found[0].text == RULES[0]
    assert sorted(r.text for r in found) == sorted(RULES)  # untagged and other dataset left out
    first = found[0]
    assert first.kind == "coding_rule" and first.search_type == "CODING_RULES"
    assert first.score is None and isinstance(first.raw["distance"], float)
    assert first.dataset_name == "repo" and first.metadata["chunk_id"] == first.raw["id"]
    assert "coding_agent_rules" in first.raw["node_set"]
    top = await CodingRulesRetriever().retrieve(
        ctx, _opts("secrets", SearchType.CODING_RULES, top_k=1)
    )
    assert [r.text for r in top] == [RULES[1]]


async def test_coding_rules_node_set_overrides_and_empty() -> None:
    await engramdb.remember(["Use tabs, never spaces."], dataset_name="repo", node_set=["style"])
    await engramdb.remember(
        ["Review every migration twice."], dataset_name="repo", node_set=["review", "style"]
    )
    ctx = await _ctx("repo")
    retriever = CodingRulesRetriever()
    assert await retriever.retrieve(ctx, _opts("tabs", SearchType.CODING_RULES)) == []
    by_config = await retriever.retrieve(
        ctx,
        _opts("tabs", SearchType.CODING_RULES, retriever_specific_config={"node_set": "style"}),
    )
    assert by_config[0].text == "Use tabs, never spaces." and len(by_config) == 2
    both = await retriever.retrieve(
        ctx,
        _opts(
            "tabs",
            SearchType.CODING_RULES,
            node_name=["style", "review"],
            node_name_filter_operator="AND",
        ),
    )
    assert [r.text for r in both] == ["Review every migration twice."]
    any_of = await retriever.retrieve(
        ctx, _opts("migration", SearchType.CODING_RULES, node_name=["review", "nothing"])
    )
    assert [r.text for r in any_of] == ["Review every migration twice."]


# --- SKILLS --------------------------------------------------------------------------------------


async def test_skill_search_returns_metadata_only_and_load_returns_the_procedure() -> None:
    record = await remember_skill(
        "deploy-service",
        "Deploy the web service to production with Kubernetes",
        PROCEDURE,
        dataset_name="ops",
        tags=["k8s", "release"],
    )
    await remember_skill(
        "rotate-keys", "Rotate the database credentials", "1. open the vault", dataset_name="ops"
    )
    assert record.status == "ingested" and record.dataset_name == "ops"
    ctx = await _ctx("ops")
    found = await SkillsRetriever().retrieve(
        ctx, _opts("how do I deploy the web service?", SearchType.SKILLS, top_k=5)
    )
    assert len(found) == 2
    best = found[0]
    assert isinstance(best, ResponseSkillEntry) and best.source == "skills"
    assert best.text == "deploy-service: Deploy the web service to production with Kubernetes"
    assert best.skill == {
        "id": str(record.id),
        "name": "deploy-service",
        "description": "Deploy the web service to production with Kubernetes",
        "tags": ["k8s", "release"],
    }
    assert isinstance(best.score, float) and best.score <= found[1].score  # type: ignore[operator]
    dumped = json.dumps([r.model_dump(mode="json") for r in found])
    assert "KUBE-SECRET-PROCEDURE-7731" not in dumped and "make build" not in dumped
    # not even a raw graph query reaches the body
    rows = await CypherRetriever().retrieve(
        ctx, _opts("MATCH (s) RETURN s, s.properties", SearchType.CYPHER)
    )
    assert rows and "KUBE-SECRET-PROCEDURE-7731" not in json.dumps([r.raw for r in rows])

    skill = await load_skill(record.id)
    assert skill.procedure == PROCEDURE and skill.name == "deploy-service"
    assert skill.tags == ["k8s", "release"] and skill.data_id == record.data_id
    assert (await load_skill(str(record.id))).procedure == PROCEDURE


async def test_load_skill_is_owner_checked() -> None:
    record = await remember_skill(
        "backup", "Back up the database", "pg_dump it", dataset_name="ops"
    )
    stranger = await get_engine().store.create_user("stranger@example.com")
    with pytest.raises(PermissionDeniedError):
        await load_skill(record.id, user=stranger)
    with pytest.raises(PermissionDeniedError):
        await load_skill("00000000-0000-0000-0000-000000000000")
    chunk = (await engramdb.remember("Plain text.", dataset_name="ops")).data_ids[0]
    with pytest.raises(PermissionDeniedError):  # a node that is not a skill
        await load_skill(chunk)
    # the stranger's own skill of the same name is another skill
    theirs = await remember_skill(
        "backup", "Back up the database", "rsync it", dataset_name="ops", user=stranger
    )
    assert theirs.id != record.id
    assert (await load_skill(theirs.id, user=stranger)).procedure == "rsync it"


async def test_forget_removes_the_skill_and_its_vector() -> None:
    record = await remember_skill("deploy", "Deploy the app", PROCEDURE, dataset_name="ops")
    again = await remember_skill("deploy", "Deploy the app", PROCEDURE, dataset_name="ops")
    assert again.status == "skipped" and again.id == record.id
    store = get_engine().store
    dataset = await _dataset("ops")
    vector = (await get_engine().embedder.embed(["deploy"]))[0]
    assert len(await store.vector_search(SKILL_COLLECTION, vector, [dataset.id], 5)) == 1
    runs = await store.list_runs([dataset.id])
    assert runs and runs[0].pipeline == "remember_skill" and runs[0].status == "completed"

    await engramdb.forget(data_id=record.data_id)
    assert await store.vector_search(SKILL_COLLECTION, vector, [dataset.id], 5) == []
    assert await store.get_nodes([record.id]) == []
    assert (
        await SkillsRetriever().retrieve(await _ctx("ops"), _opts("deploy", SearchType.SKILLS))
        == []
    )
    with pytest.raises(PermissionDeniedError):
        await load_skill(record.id)
    assert (await store.check_integrity()).ok


async def test_a_new_version_replaces_the_old_one() -> None:
    first = await remember_skill("deploy", "Deploy the app", "old steps", dataset_name="ops")
    second = await remember_skill(
        "Deploy", "Deploy the app safely", "new steps", dataset_name="ops"
    )
    assert second.id == first.id and second.data_id != first.data_id
    skill = await load_skill(first.id)
    assert skill.procedure == "new steps" and skill.description == "Deploy the app safely"
    store = get_engine().store
    assert [d.id for d in await store.list_data((await _dataset("ops")).id)] == [second.data_id]
    found = await SkillsRetriever().retrieve(await _ctx("ops"), _opts("deploy", SearchType.SKILLS))
    assert len(found) == 1 and found[0].skill["description"] == "Deploy the app safely"


async def test_skill_markdown(tmp_path: Any) -> None:
    text = (
        "---\nname: triage\ndescription: Triage a failing CI build\ntags: [ci, build]\n---\n"
        "# x\n1. read the log\n"
    )
    assert parse_skill_markdown(text) == (
        "triage",
        "Triage a failing CI build",
        "# x\n1. read the log",
        ["ci", "build"],
    )
    plain = "# Release checklist\n\nShip a release to PyPI.\nCarefully.\n\n## Steps\n1. tag\n"
    name, description, procedure, tags = parse_skill_markdown(plain)
    assert (name, description, tags) == (
        "Release checklist",
        "Ship a release to PyPI. Carefully.",
        [],
    )
    assert procedure == plain.strip()
    folder = tmp_path / "skills" / "release"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(plain, encoding="utf-8")
    records = await remember_skills(tmp_path / "skills", dataset_name="ops", tags=["team"])
    assert [(r.name, r.tags) for r in records] == [("Release checklist", ["team"])]
    assert (await load_skill(records[0].id)).procedure == plain.strip()
    from_text = await remember_skills(text, dataset_name="ops")
    assert from_text[0].name == "triage" and from_text[0].tags == ["ci", "build"]


# --- AGENTIC_COMPLETION --------------------------------------------------------------------------


def _chat(content: str) -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "test-chat",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 0)
    engramdb.config.set("llm_timeout", 5)


def _agent(request: RecordedRequest) -> Reply:
    """search_chunks, then search_graph, then the answer (by how many turns came before)."""
    messages = request.json["messages"]
    turns = sum(1 for m in messages if m["role"] == "assistant")
    if turns == 0:
        action = {"action": "search_chunks", "query": "Andreas birthplace"}
    elif turns == 1:
        assert "Venice" in messages[-1]["content"]  # the observation came back
        action = {"action": "search_graph", "query": "Andreas Venice"}
    else:
        assert "born_in" in messages[-1]["content"]
        action = {"action": "answer", "answer": "Andreas was born in Venice."}
    return Reply.json(_chat(json.dumps(action)))


async def test_agent_searches_then_answers(openai_server: OpenAIServer) -> None:
    await engramdb.remember(
        ["Andreas was born in Venice, but later settled in Lisbon.", "Bob lives in New York."],
        dataset_name="people",
    )
    _use_llm(openai_server)
    openai_server.set_default("chat/completions", _agent)
    ctx = await _ctx("people", with_llm=True)
    results = await AgenticRetriever().retrieve(
        ctx,
        _opts("Where was Andreas born?", SearchType.AGENTIC_COMPLETION, include_references=True),
    )
    assert len(results) == 1
    answer = results[0]
    assert answer.kind == "answer" and answer.search_type == "AGENTIC_COMPLETION"
    assert answer.text.startswith("Andreas was born in Venice.")
    assert "Evidence:" in answer.text and answer.metadata["evidence"]
    steps = answer.raw["steps"]
    assert [s["action"] for s in steps] == ["search_chunks", "search_graph", "answer"]
    assert steps[0]["query"] == "Andreas birthplace" and steps[0]["results"] >= 1
    assert steps[1]["results"] >= 1 and "Andreas —born_in→ Venice" in answer.raw["context"]
    assert len(openai_server.requests_to("chat/completions")) == 3


async def test_agent_is_bounded_and_writes_a_final_answer(openai_server: OpenAIServer) -> None:
    await engramdb.remember("Andreas was born in Venice.", dataset_name="people")
    _use_llm(openai_server)

    def always_search(request: RecordedRequest) -> Reply:
        if "response_format" not in request.json and "JSON" not in json.dumps(request.json):
            return Reply.json(_chat("He was born in Venice."))  # the final plain completion
        return Reply.json(_chat(json.dumps({"action": "search_chunks", "query": "Andreas"})))

    openai_server.set_default("chat/completions", always_search)
    ctx = await _ctx("people", with_llm=True)
    results = await AgenticRetriever().retrieve(
        ctx, _opts("Where was Andreas born?", SearchType.AGENTIC_COMPLETION)
    )
    steps = results[0].raw["steps"]
    assert [s["action"] for s in steps] == ["search_chunks"] * 4
    assert steps[-1].get("refused") is True and sum("query" in s for s in steps) == 3
    assert results[0].text == "He was born in Venice."
    assert len(openai_server.requests_to("chat/completions")) == 5  # 4 actions + 1 answer


async def test_agent_without_llm() -> None:
    await engramdb.remember("Andreas was born in Venice.", dataset_name="people")
    ctx = await _ctx("people")
    with pytest.raises(LLMNotConfiguredError):
        await AgenticRetriever().retrieve(ctx, _opts("Andreas?", SearchType.AGENTIC_COMPLETION))
    bare = await AgenticRetriever().retrieve(
        ctx, _opts("Where was Andreas born?", SearchType.AGENTIC_COMPLETION, only_context=True)
    )
    assert len(bare) == 1 and bare[0].kind == "chunk"
    assert bare[0].search_type == "AGENTIC_COMPLETION" and bare[0].system_prompt is None
    assert "Venice" in bare[0].text
