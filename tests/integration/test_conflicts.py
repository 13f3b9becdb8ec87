"""improve()'s conflict review through the real LLM client against the local OpenAI-protocol
server: FactConflict records dated by effective_date, list/resolve, labels and the
``## Fact conflicts`` block in outputs, incremental re-review (also after a merge and a forget),
and LLM failures."""

from __future__ import annotations

import json
from uuid import UUID

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.errors import NotFoundError
from engramdb.models.records import NodeType
from engramdb.storage.types import EntityMerge, NodeRewrite
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

PARIS = "Alice Smith lives in Paris."
BERLIN = "Alice Smith lives in Berlin."


def _is_review(request: RecordedRequest) -> bool:
    body = request.json if isinstance(request.json, dict) else {}
    fmt = body.get("response_format") or {}
    return "_Review" in str((fmt.get("json_schema") or {}).get("name", ""))


def _user(request: RecordedRequest) -> str:
    return str(next(m["content"] for m in request.json["messages"] if m["role"] == "user"))


def _verdict(server: OpenAIServer, current: int | None, conflicting: bool = True) -> Reply:
    verdict = {"group": 1, "conflicting": conflicting, "current_fact": current}
    verdict["explanation"] = "Alice moved to Berlin in 2023."
    return Reply.json(server.chat_document(json.dumps({"verdicts": [verdict]})))


async def _setup(server: OpenAIServer) -> None:
    await engramdb.remember(
        PARIS, external_metadata={"effective_date": "2020-01-01"}, self_improvement=False
    )
    await engramdb.remember(
        BERLIN, external_metadata={"effective_date": "2023-05-01"}, self_improvement=False
    )
    await _setup_llm(server)


async def _setup_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)


def _reviews(server: OpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.requests_to("chat/completions") if _is_review(r)]


async def test_review_stores_dated_conflicts_and_outputs_show_them(
    openai_server: OpenAIServer,
) -> None:
    await _setup(openai_server)
    # facts are numbered in insertion order: 1 = Paris (2020), 2 = Berlin (2023)
    openai_server.enqueue("chat/completions", _verdict(openai_server, current=2))
    result = await engramdb.improve(build_global_context_index=False)
    stage = result.stage("review_conflicts")
    assert stage is not None and stage.status == "completed", result.stage_summary()
    assert stage.counts["conflicts"] == 1 and stage.counts["entities_reviewed"] == 1
    (request,) = _reviews(openai_server)
    prompt = _user(request)
    assert "effective date: 2020-01-01" in prompt and "effective date: 2023-05-01" in prompt

    (conflict,) = await engramdb.list_conflicts()
    assert (conflict.entity_name, conflict.attribute, conflict.status) == (
        "Alice Smith",
        "live_in",
        "open",
    )
    labels = {f.value: (f.label, f.effective_date) for f in conflict.facts}
    assert labels == {"Paris": ("superseded", "2020-01-01"), "Berlin": ("current", "2023-05-01")}

    # graph completion and hybrid prompts carry the block; chunks carry the labels
    for query_type in (engramdb.SearchType.GRAPH_COMPLETION, engramdb.SearchType.HYBRID_COMPLETION):
        (prompt_item,) = await engramdb.recall(
            "Where does Alice Smith live?", query_type=query_type, only_context=True
        )
        assert "## Fact conflicts" in prompt_item.text, query_type
        assert "Alice Smith live in Paris [superseded, effective 2020-01-01]" in prompt_item.text
    hits = await engramdb.recall("Alice Smith Paris", query_type=engramdb.SearchType.CHUNKS)
    paris = next(h for h in hits if "Paris" in h.text)
    assert paris.metadata["fact_conflicts"] == [
        "Alice Smith live in Paris [superseded, effective 2020-01-01]"
    ]

    # nothing changed: the next review sends nothing
    again = await engramdb.improve(build_global_context_index=False)
    assert again.stage("review_conflicts").reason == "no_new_facts"  # type: ignore[union-attr]
    assert len(_reviews(openai_server)) == 1


async def test_a_users_resolution_survives_later_reviews(openai_server: OpenAIServer) -> None:
    await _setup(openai_server)
    openai_server.enqueue("chat/completions", _verdict(openai_server, current=None))
    await engramdb.improve(build_global_context_index=False)
    (conflict,) = await engramdb.list_conflicts("main_dataset", status="open")
    assert {f.label for f in conflict.facts} == {"conflicting"}
    paris = next(f for f in conflict.facts if f.value == "Paris")

    resolved = await engramdb.resolve_conflict(conflict.id, paris.edge_id)
    assert resolved.status == "resolved" and resolved.current == paris.model_copy(
        update={"label": "current"}
    )
    with pytest.raises(NotFoundError):
        await engramdb.resolve_conflict(conflict.id, conflict.id)

    # a third fact makes the group change: it is reviewed again, the user's choice is kept
    await engramdb.remember(
        "Alice Smith lives in Rome.",
        external_metadata={"effective_date": "2024-02-01"},
        self_improvement=False,
    )
    openai_server.enqueue("chat/completions", _verdict(openai_server, current=3))
    await engramdb.improve(build_global_context_index=False)
    (after,) = await engramdb.list_conflicts(status="resolved")
    assert after.resolved_fact_id == paris.edge_id
    assert {f.value: f.label for f in after.facts} == {
        "Paris": "current",
        "Berlin": "superseded",
        "Rome": "superseded",
    }


async def test_llm_failure_is_errored_and_the_next_improve_retries(
    openai_server: OpenAIServer,
) -> None:
    await _setup(openai_server)
    openai_server.enqueue("chat/completions", Reply.error(500, "upstream exploded"))
    failed = await engramdb.improve(build_global_context_index=False)
    stage = failed.stage("review_conflicts")
    assert stage is not None and stage.status == "errored"
    assert stage.counts["entities_failed"] == 1
    assert await engramdb.list_conflicts() == []

    openai_server.enqueue("chat/completions", _verdict(openai_server, current=2))
    retried = await engramdb.improve(build_global_context_index=False)
    assert retried.stage("review_conflicts").status == "completed"  # type: ignore[union-attr]
    assert len(await engramdb.list_conflicts()) == 1


async def test_budget_exhaustion_in_review_stops_the_run(openai_server: OpenAIServer) -> None:
    await _setup(openai_server)
    openai_server.enqueue("chat/completions", Reply.error(402, "insufficient credit"))
    result = await engramdb.improve()
    assert result.status == "errored"
    assert result.stage("review_conflicts").status == "errored"  # type: ignore[union-attr]
    last = result.stage("global_context_index")
    assert last is not None and (last.status, last.reason) == ("skipped", "budget_exhausted")


async def test_compatible_facts_leave_no_conflict(openai_server: OpenAIServer) -> None:
    await _setup(openai_server)
    openai_server.enqueue(
        "chat/completions", _verdict(openai_server, current=None, conflicting=False)
    )
    await engramdb.improve(build_global_context_index=False)
    assert await engramdb.list_conflicts() == []


async def _entity_id(name: str) -> UUID:
    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, "main_dataset")
    assert dataset is not None
    nodes = await engine.store.list_nodes([dataset.id], type=NodeType.ENTITY.value)
    return next(n.id for n in nodes if n.name == name)


async def test_a_review_reads_the_facts_a_merge_or_a_forget_changed(
    openai_server: OpenAIServer,
) -> None:
    """Later reviews read only entities that gained a fact: a merge gives one entity the facts
    of another without any new document, a forget takes a stored conflict's fact away."""
    await engramdb.remember(
        PARIS, external_metadata={"effective_date": "2020-01-01"}, self_improvement=False
    )
    smyth = await engramdb.remember(
        "Alice Smyth lives in Berlin.",
        external_metadata={"effective_date": "2023-05-01"},
        self_improvement=False,
    )
    await _setup_llm(openai_server)
    first = await engramdb.improve(build_global_context_index=False)
    assert first.stage("review_conflicts").status == "already_completed"  # type: ignore[union-attr]
    assert _reviews(openai_server) == []  # one fact per entity: nothing to review

    store = get_engine().store
    smith, other = await _entity_id("Alice Smith"), await _entity_id("Alice Smyth")
    survivor = (await store.get_nodes([smith]))[0]
    dataset_id = survivor.dataset_id
    merge = EntityMerge(NodeRewrite(smith, survivor.text, dict(survivor.properties)), [other])
    await store.merge_entities(dataset_id, [merge])
    openai_server.enqueue("chat/completions", _verdict(openai_server, current=2))
    merged = await engramdb.improve(build_global_context_index=False)
    stage = merged.stage("review_conflicts")
    assert stage is not None and stage.counts["conflicts"] == 1, merged.stage_summary()
    (conflict,) = await engramdb.list_conflicts()
    assert {f.value for f in conflict.facts} == {"Paris", "Berlin"}

    # a review of unrelated new facts keeps it
    await engramdb.remember("Bob Jones lives in Rome.", self_improvement=False)
    await engramdb.improve(build_global_context_index=False)
    assert [c.id for c in await engramdb.list_conflicts()] == [conflict.id]

    await engramdb.forget(data_id=smyth.data_ids[0])
    await engramdb.improve(build_global_context_index=False)
    assert await engramdb.list_conflicts() == []
    assert len(_reviews(openai_server)) == 1
