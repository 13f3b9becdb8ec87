"""improve() through the public API, offline: stages, skip reasons, feedback weights, session
bridging, the global context index, idempotency and failure rules."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

import engramdb
from engramdb.artifacts.global_index import load_global_context
from engramdb.engine import get_engine
from engramdb.errors import ConfigurationError, LLMPaymentRequiredError, PermissionDeniedError
from engramdb.improvement import stages as stage_registry
from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.improvement.global_index import TOKEN_KEY
from engramdb.settings import IMPROVE_STAGES, config

FACTS = (
    "Ada Lovelace wrote the first program for the Analytical Engine. "
    "Charles Babbage designed the Analytical Engine in London."
)
MORE = "Grace Hopper built the first compiler at Remington Rand. Grace Hopper lived in New York."


async def _owner_and_dataset(name: str = "main_dataset") -> tuple[Any, Any]:
    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, name)
    return owner, dataset


async def test_without_sessions_only_the_graph_stages_run() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    result = await engramdb.improve()
    assert [s.stage for s in result.stages] == list(IMPROVE_STAGES)
    reasons = {s.stage: (s.status, s.reason) for s in result.stages}
    for name in IMPROVE_STAGES[:7]:
        assert reasons[name] == ("skipped", "no_session_ids")
    assert reasons["review_conflicts"] == ("skipped", "no_llm_configured")
    assert reasons["global_context_index"] == ("completed", None)
    assert result.status == "completed"
    assert result.stage("global_context_index") is not None
    assert result.stage_summary().startswith("feedback_weights=skipped, persist_session_qa=")

    again = await engramdb.improve()
    assert again.stage("global_context_index").status == "already_completed"  # type: ignore[union-attr]
    assert again.stage("global_context_index").reason == "no_writes_since_last_improve"  # type: ignore[union-attr]


async def test_everything_off_is_skipped() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    result = await engramdb.improve(build_global_context_index=False, review_conflicts=False)
    assert result.status == "skipped"
    assert result.stage("global_context_index").reason == "turned_off"  # type: ignore[union-attr]
    assert result.stage("review_conflicts").reason == "turned_off"  # type: ignore[union-attr]


async def test_global_context_index_buckets_root_and_incremental_rebuild() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.improve()
    _, dataset = await _owner_and_dataset()
    store = get_engine().store
    index = await load_global_context(store, dataset.id)
    assert index is not None and len(index.buckets) == 1
    (bucket,) = index.buckets.values()
    assert "Key entities:" in bucket and "Ada Lovelace" in bucket
    assert "Dataset: main_dataset (1 documents indexed)" in index.root

    added = await engramdb.remember(MORE, self_improvement=False)
    result = await engramdb.improve()
    stage = result.stage("global_context_index")
    assert stage is not None and stage.status == "completed"
    index = await load_global_context(store, dataset.id)
    assert index is not None and len(index.buckets) == 2
    assert "Grace Hopper" in index.buckets[added.data_ids[0]]

    # forgetting a document deletes its bucket at once; the integrity check still passes
    await engramdb.forget(data_id=added.data_ids[0])
    index = await load_global_context(store, dataset.id)
    assert index is not None and added.data_ids[0] not in index.buckets
    assert (await store.check_integrity()).ok
    # index nodes never surface as retrieval hits ...
    hits = await engramdb.recall("Key entities Ada", query_type=engramdb.SearchType.CHUNKS)
    assert hits and all("Key entities:" not in h.text for h in hits)
    (prompt,) = await engramdb.recall(
        "Who wrote the first program?",
        query_type=engramdb.SearchType.GRAPH_COMPLETION,
        only_context=True,
    )
    assert "Key entities:" not in prompt.raw["context"]
    # ... but graph completion shows the index as the dataset overview, after the context
    overview = prompt.text.split("Dataset overview:\n", 1)[1]
    assert overview.startswith("Dataset: main_dataset (")  # the root until the next improve
    assert "Document: " in overview and "Ada Lovelace" in overview


async def test_include_global_context_index_gives_the_references_prelude() -> None:
    """cognee's examples/advanced_guides/global_context_index_smoke_demo.py shape: recall with
    ``retriever_specific_config={"include_global_context_index": True,
    "global_context_index_top_k": 3}`` and ``only_context=True``, then look for "World summary:"
    or "Relevant areas:" in the context. Seed (improve.md): "By default it builds the global
    context index: one summary bucket per document plus a dataset root for graph completion
    retrieval and dataset routing"."""
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.improve()

    async def context(config: dict[str, Any] | None) -> str:
        (prompt,) = await engramdb.recall(
            "Who wrote the first program?",
            query_type=engramdb.SearchType.GRAPH_COMPLETION,
            only_context=True,
            retriever_specific_config=config,
        )
        return str(prompt.text)

    on = await context({"include_global_context_index": True, "global_context_index_top_k": 3})
    prelude = on.split("Context:\n", 1)[1]
    assert prelude.startswith("World summary:\nDataset: main_dataset (1 documents indexed)")
    areas = prelude.split("Relevant areas:\n", 1)[1]
    assert areas.startswith("Document: ") and "Ada Lovelace" in areas
    assert areas.index("Ada Lovelace") < areas.index("Passages:")  # the prelude leads
    assert "Dataset overview:" not in on
    off = await context({"include_global_context_index": False})
    assert "World summary:" not in off and "Dataset overview:" not in off
    assert "Ada Lovelace" in off  # the context itself is still there
    default = await context(None)
    assert "Dataset overview:" in default and "World summary:" not in default


async def test_forgetting_the_dataset_removes_derived_data() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.improve()
    _, dataset = await _owner_and_dataset()
    await engramdb.forget(dataset="main_dataset")
    store = get_engine().store
    assert await load_global_context(store, dataset.id) is None
    assert await store.get_improve_state(dataset.id, TOKEN_KEY) is None
    assert await store.get_improve_states(dataset.id, "global_context_index.") == {}
    assert (await store.check_integrity()).ok


async def _rated_turn(
    session: str, score: int, question: str = "Who wrote the first program?"
) -> Any:
    await engramdb.recall(question, session_id=session, datasets=["main_dataset"])
    turns = await engramdb.session.get_session(session)
    qa = turns[-1]
    await engramdb.session.add_feedback(session, qa.qa_id, feedback_score=score)
    return qa


async def test_feedback_weights_spend_each_rating_once() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await _rated_turn("chat", 5)
    owner, _ = await _owner_and_dataset()
    store = get_engine().store
    (record,) = await store.list_qa_entries(owner.id, session_ids=["chat"])
    assert record.used_node_ids

    result = await engramdb.improve(session_ids=["chat"], build_global_context_index=False)
    stage = result.stage("feedback_weights")
    assert stage is not None and stage.status == "completed" and stage.counts["ratings"] == 1
    nodes = await store.get_nodes(record.used_node_ids)
    assert all(n.feedback_weight == pytest.approx(0.55) for n in nodes)  # 0.5 + 0.1 * (1 - 0.5)

    again = await engramdb.improve(session_ids=["chat"], build_global_context_index=False)
    assert again.stage("feedback_weights").status == "already_completed"  # type: ignore[union-attr]
    assert again.stage("feedback_weights").reason == "no_new_ratings"  # type: ignore[union-attr]
    assert all(
        n.feedback_weight == pytest.approx(0.55)
        for n in await store.get_nodes(record.used_node_ids)
    )

    # a changed rating is spent again, from where the weight is; alpha can be given per call
    await engramdb.session.add_feedback("chat", record.id, feedback_score=1)
    await engramdb.improve(
        session_ids=["chat"], feedback_alpha=0.5, build_global_context_index=False
    )
    nodes = await store.get_nodes(record.used_node_ids)
    assert all(n.feedback_weight == pytest.approx(0.275) for n in nodes)


async def test_persist_session_qa_and_traces_are_idempotent() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_qa("chat", "What is the capital of Peru?", "Lima is the capital.")
    await engramdb.session.add_trace(
        "chat", "search_flights", method_params={"to": "Lima"}, method_return_value="3 flights"
    )
    first = await engramdb.improve(session_ids=["chat"])
    qa_stage, trace_stage = first.stage("persist_session_qa"), first.stage("persist_agent_traces")
    assert qa_stage is not None and qa_stage.status == "completed"
    assert qa_stage.counts["entries"] == 1 and qa_stage.counts["documents"] == 1
    assert trace_stage is not None and trace_stage.counts["steps"] == 1
    _, dataset = await _owner_and_dataset()
    store = get_engine().store
    names = sorted(d.name for d in await store.list_data(dataset.id))
    assert len(names) == 3
    hits = await engramdb.recall("capital of Peru", query_type=engramdb.SearchType.CHUNKS)
    assert any("Lima is the capital" in str(h) for h in hits)
    before = (await store.count_nodes([dataset.id]), len(await store.list_edges([dataset.id])))

    second = await engramdb.improve(session_ids=["chat"])
    assert second.stage("persist_session_qa").reason == "no_new_entries"  # type: ignore[union-attr]
    assert second.stage("persist_agent_traces").reason == "no_new_entries"  # type: ignore[union-attr]
    assert second.stage("global_context_index").reason == "no_writes_since_last_improve"  # type: ignore[union-attr]
    after = (await store.count_nodes([dataset.id]), len(await store.list_edges([dataset.id])))
    assert after == before
    assert len(await store.list_data(dataset.id)) == 3


async def test_trace_windows_are_capped_per_run() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    for i in range(5):
        await engramdb.session.add_trace("agent", f"tool_{i}")
    config.set("improve_trace_window_steps", 2)
    config.set("improve_trace_windows_per_run", 2)
    first = await engramdb.improve(session_ids=["agent"], build_global_context_index=False)
    stage = first.stage("persist_agent_traces")
    assert stage is not None and stage.counts["windows"] == 2 and stage.counts["steps"] == 4
    assert stage.counts["windows_pending"] == 1
    second = await engramdb.improve(session_ids=["agent"], build_global_context_index=False)
    assert second.stage("persist_agent_traces").counts["steps"] == 1  # type: ignore[union-attr]


async def test_skip_reasons_follow_settings() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_qa("chat", "q?", "a.")
    result = await engramdb.improve(session_ids=["chat"], build_truth_subspace=False)
    reasons = {s.stage: s.reason for s in result.stages if s.status == "skipped"}
    assert reasons["extract_agent_context"] == "auto_feedback_disabled"
    assert reasons["update_user_preferences"] == "personalization_disabled"
    assert reasons["build_truth_subspace"] == "opt_in_disabled"
    distill = result.stage("distill_sessions")
    assert distill is not None and distill.reason == "no_new_entries"  # nothing to distill
    opted = await engramdb.improve(session_ids=["chat"], build_truth_subspace=True)
    # opted in, but the session holds no distilled learnings to anchor yet
    assert opted.stage("build_truth_subspace").reason == "no_new_entries"  # type: ignore[union-attr]

    config.set("improve_stages_disabled", "feedback_weights, global_context_index")
    result = await engramdb.improve(session_ids=["chat"])
    assert result.stage("feedback_weights").reason == "disabled_by_config"  # type: ignore[union-attr]
    assert result.stage("global_context_index").reason == "disabled_by_config"  # type: ignore[union-attr]


def test_unknown_disabled_stage_names_raise_listing_the_valid_ones() -> None:
    with pytest.raises(ConfigurationError, match="review_conflicts"):
        config.set("improve_stages_disabled", "feedback_weights,no_such_stage")
    with pytest.raises(ConfigurationError, match="valid names"):
        config.set("improve_stages_disabled", "persist_session_qa")


async def test_bad_arguments_fail_before_anything_runs() -> None:
    with pytest.raises(TypeError):
        await engramdb.improve(no_such_option=True)  # type: ignore[call-arg]
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.improve(session_ids="chat")  # type: ignore[arg-type]
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.improve(feedback_alpha=0)
    await engramdb.remember(FACTS, self_improvement=False)
    from uuid import uuid4

    # improve.md, Troubleshooting: the seed's sentence, whether the id is unknown or forbidden
    seed = "Request owner does not have necessary permission: [write] for all datasets requested"
    with pytest.raises(PermissionDeniedError, match=re.escape(seed)):
        await engramdb.improve(uuid4())
    with pytest.warns(FutureWarning):
        await engramdb.improve(node_name=["Ada"], build_global_context_index=False)


async def test_run_in_background_returns_running_then_waits() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    result = await engramdb.improve(run_in_background=True)
    assert result.status == "running" and result.stages == []
    done = await result.wait()
    assert done is result and result.status == "completed"
    assert result.stage("global_context_index").status == "completed"  # type: ignore[union-attr]


def _replace_stage(monkeypatch: pytest.MonkeyPatch, name: str, run: Any) -> None:
    replaced = tuple(
        stage_registry.Stage(s.name, s.gate, run) if s.name == name else s
        for s in stage_registry.STAGES
    )
    monkeypatch.setattr("engramdb.improvement.runner.STAGES", replaced)


async def test_a_failing_stage_is_errored_and_the_rest_still_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_qa("chat", "q?", "a.")

    async def boom(ctx: ImproveContext) -> StageOutcome:
        raise RuntimeError("disk on fire")

    _replace_stage(monkeypatch, "persist_agent_traces", boom)
    result = await engramdb.improve(session_ids=["chat"])
    stage = result.stage("persist_agent_traces")
    assert stage is not None and stage.status == "errored" and "disk on fire" in (stage.error or "")
    assert result.status == "errored"
    assert result.stage("global_context_index").status == "completed"  # type: ignore[union-attr]
    assert result.stage("persist_session_qa").status == "completed"  # type: ignore[union-attr]


async def test_persist_session_qa_failure_raises_with_the_partial_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_qa("chat", "q?", "a.")

    async def boom(ctx: ImproveContext) -> StageOutcome:
        raise RuntimeError("cannot write")

    _replace_stage(monkeypatch, "persist_session_qa", boom)
    with pytest.raises(RuntimeError, match="cannot write") as caught:
        await engramdb.improve(session_ids=["chat"])
    partial = caught.value.improve_result  # type: ignore[attr-defined]
    assert partial.stage("persist_session_qa").status == "errored"
    assert partial.stage("feedback_weights").status in {"completed", "already_completed"}
    assert {s.reason for s in partial.stages[2:]} == {"aborted_by_fatal_stage"}
    # nothing was lost: the next improve bridges the entry
    monkeypatch.undo()
    after = await engramdb.improve(session_ids=["chat"])
    assert after.stage("persist_session_qa").counts["entries"] == 1  # type: ignore[union-attr]


async def test_budget_exhaustion_stops_later_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_qa("chat", "q?", "a.")

    async def broke(ctx: ImproveContext) -> StageOutcome:
        raise LLMPaymentRequiredError("provider says 402: budget exhausted")

    _replace_stage(monkeypatch, "persist_agent_traces", broke)
    result = await engramdb.improve(session_ids=["chat"])
    assert result.status == "errored"
    assert result.stage("persist_agent_traces").status == "errored"  # type: ignore[union-attr]
    later = result.stages[3:]
    assert {(s.status, s.reason) for s in later} == {("skipped", "budget_exhausted")}

    _replace_stage(monkeypatch, "persist_session_qa", broke)
    await engramdb.session.add_qa("chat", "q2?", "a2.")
    with pytest.raises(LLMPaymentRequiredError) as caught:
        await engramdb.improve(session_ids=["chat"])
    partial = caught.value.improve_result  # type: ignore[attr-defined]
    assert {s.reason for s in partial.stages[2:]} == {"budget_exhausted"}


async def test_concurrent_improves_of_one_dataset_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    order: list[str] = []
    original = stage_registry.STAGES[-1].run
    assert original is not None

    async def slow(ctx: ImproveContext) -> StageOutcome:
        order.append("start")
        await asyncio.sleep(0.2)
        order.append("end")
        return await original(ctx)

    _replace_stage(monkeypatch, "global_context_index", slow)
    first, second = await asyncio.gather(engramdb.improve(), engramdb.improve())
    assert order == ["start", "end", "start", "end"]  # never interleaved, never skipped
    statuses = sorted(
        r.stage("global_context_index").status  # type: ignore[union-attr]
        for r in (first, second)
    )
    assert statuses == ["already_completed", "completed"]


async def test_remember_runs_the_graph_stages_automatically() -> None:
    result = await engramdb.remember(FACTS)
    assert result.improve == "completed"
    _, dataset = await _owner_and_dataset()
    assert await load_global_context(get_engine().store, dataset.id) is not None
    assert (await engramdb.remember(MORE, self_improvement=False)).improve is None
    config.set("improve_auto_enabled", False)
    assert (await engramdb.remember("Third text about Turing.")).improve is None


async def test_session_remember_improves_after_the_entry_debounce() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    config.set("improve_debounce_entries", 3)
    first = await engramdb.remember("Note one about Lima.", session_id="trip")
    second = await engramdb.remember("Note two about Cusco.", session_id="trip")
    assert (first.improve, second.improve) == ("debounced", "debounced")
    _, dataset = await _owner_and_dataset()
    store = get_engine().store
    assert len(await store.list_data(dataset.id)) == 1  # held back, not dropped
    third = await engramdb.remember("Note three about Arequipa.", session_id="trip")
    assert third.improve == "completed"
    assert len(await store.list_data(dataset.id)) == 4  # all three notes bridged at once


async def test_session_remember_time_only_debounce() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    config.set("improve_debounce_seconds", 3600)  # entries trigger left at 1: time-only
    first = await engramdb.remember("Note one.", session_id="trip")
    second = await engramdb.remember("Note two.", session_id="trip")
    assert (first.improve, second.improve) == ("completed", "debounced")
    config.set("improve_debounce_entries", 0)
    config.set("improve_debounce_seconds", 0)
    assert (await engramdb.remember("Note three.", session_id="trip")).improve == "debounced"


async def test_agent_traces_become_guidance_and_guidance_is_distilled() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    config.set("auto_feedback", True)
    await engramdb.session.add_trace(
        "agent", "search_flights", status="error", error_message="timeout after 30 s"
    )
    await engramdb.session.add_trace(
        "agent", "book_hotel", session_feedback="worked once dates were ISO formatted"
    )
    await engramdb.session.add_guidance("agent", "Travel on weekdays only.", section="rules")
    first = await engramdb.improve(session_ids=["agent"], build_global_context_index=False)
    extract = first.stage("extract_agent_context")
    assert extract is not None and extract.counts == {"steps": 2, "entries": 2}
    distill = first.stage("distill_sessions")
    assert distill is not None and distill.status == "completed"
    assert distill.counts["documents"] == 1 and distill.counts["entries_uncurated"] == 0

    _, dataset = await _owner_and_dataset()
    store = get_engine().store
    (learnings,) = [d for d in await store.list_data(dataset.id) if "learnings" in d.name]
    hits = await engramdb.recall(
        "search_flights timeout", query_type=engramdb.SearchType.CHUNKS_LEXICAL
    )
    text = "\n".join(h.text for h in hits)
    assert "Session learnings of session agent:" in text
    assert "search_flights failed: timeout after 30 s" in text
    assert "book_hotel: worked once dates were ISO formatted" in text
    assert "Travel on weekdays only." in text

    again = await engramdb.improve(session_ids=["agent"], build_global_context_index=False)
    assert again.stage("extract_agent_context").reason == "no_new_entries"  # type: ignore[union-attr]
    assert again.stage("distill_sessions").reason == "no_new_entries"  # type: ignore[union-attr]
    assert len(await store.list_data(dataset.id)) == 3  # facts, the trace window, learnings
    assert learnings.name == "session agent learnings"


async def test_distill_cap_marks_the_rest_uncurated() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    for i in range(8):
        await engramdb.session.add_guidance("chat", f"Rule number {i}.", section="rules")
    config.set("improve_distill_max_batches_per_run", 1)
    result = await engramdb.improve(session_ids=["chat"], build_global_context_index=False)
    stage = result.stage("distill_sessions")
    assert stage is not None and stage.counts["entries_uncurated"] == 2
    hits = await engramdb.recall("Rule number", query_type=engramdb.SearchType.CHUNKS_LEXICAL)
    text = "\n".join(h.text for h in hits)
    assert "Rule number 5." in text and "Rule number 6." not in text


async def test_a_bad_disabled_stage_in_the_environment_breaks_improve_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """improve.md: an unknown IMPROVE_STAGES_DISABLED name "raises an error that lists the valid
    names: the API server raises it at startup, the SDK the first time improve's config is
    read" -- not every verb."""
    from fastapi.testclient import TestClient

    from engramdb.server.app import create_app

    monkeypatch.setenv("IMPROVE_STAGES_DISABLED", "no_such_stage")
    config.reset()
    await engramdb.remember(FACTS, self_improvement=False)
    assert await engramdb.recall("Ada", engramdb.SearchType.CHUNKS)
    with pytest.raises(ConfigurationError, match="valid names"):
        await engramdb.improve()
    await engramdb.forget(dataset="main_dataset")
    engine = engramdb.Engine(data_dir=config.get("engramdb_data_dir"))
    with pytest.raises(ConfigurationError, match="valid names"), TestClient(create_app(engine)):
        pass
