"""The engine objects cognee programs reach for, through cognee's module paths and in the shapes
of cognee's own examples: the graph engine, the session manager, the config views, the
database context, setup and the exception names. (LLMGateway: test_cognee_llm_gateway.py.)"""

from __future__ import annotations

import uuid

import pytest

import engramdb
from engramdb.compat.cognee.context_global_variables import set_database_global_context_variables
from engramdb.compat.cognee.infrastructure.databases.cache.config import get_cache_config
from engramdb.compat.cognee.infrastructure.databases.graph import get_graph_engine
from engramdb.compat.cognee.infrastructure.databases.relational import (
    create_db_and_tables,
    get_relational_config,
)
from engramdb.compat.cognee.infrastructure.session.get_session_manager import (
    get_session_manager,
)
from engramdb.compat.cognee.modules.users.methods import get_default_user
from engramdb.errors import FeatureNotAvailableError, PermissionDeniedError

FACTS = ["Alice works at Acme in Berlin.", "Bob lives in Paris."]


class NodeSet:  # what cognee programs pass as get_nodeset_subgraph's node_type
    pass


async def _people() -> engramdb.RememberResult:
    return await engramdb.remember(FACTS, dataset_name="people", node_set=["hr"])


async def test_get_graph_data_has_cognee_shapes_and_every_stored_element() -> None:
    await _people()
    graph = await get_graph_engine()
    nodes, edges = await graph.get_graph_data()
    snapshot = await engramdb.get_graph()
    assert {i for i, _ in nodes} == {str(n.id) for n in snapshot.nodes}
    assert len(edges) == len(snapshot.edges)
    # as in cognee's global_context_index.py / contradiction_feedback_demo.py
    names = {node_id: props.get("name") for node_id, props in nodes}
    types = {props["type"] for _, props in nodes}
    assert {"TextDocument", "DocumentChunk", "TextSummary", "Entity", "EntityType"} <= types
    facts = {
        f"({names[s]}) --{rel}--> ({names[t]})"
        for s, t, rel, _ in edges
        if rel not in {"is_part_of", "summarizes", "contains", "is_a"}
    }
    assert "(Alice) --work_at--> (Acme)" in facts
    (chunk,) = [p for _, p in nodes if p["type"] == "DocumentChunk" and "Alice" in p["text"]]
    assert chunk["node_set"] == ["hr"] and chunk["chunk_index"] == 0
    _, _, _, props = edges[0]
    assert props["edge_object_id"] in {str(e.id) for e in snapshot.edges}
    assert props["source_node_id"] == edges[0][0] and props["relationship_name"] == edges[0][2]


async def test_the_global_context_index_reads_as_cognee_global_context_summaries() -> None:
    await _people()
    await engramdb.improve("people", build_global_context_index=True)
    nodes, _ = await (await get_graph_engine()).get_graph_data()
    summaries = [p for _, p in nodes if p["type"] == "GlobalContextSummary"]
    roots = [p for p in summaries if p["is_root"]]
    assert len(roots) == 1 and len(summaries) > 1 and roots[0]["text"]


async def test_node_and_edge_reads() -> None:
    await _people()
    graph = await get_graph_engine()
    (alice,) = await graph.query("MATCH (n:Entity {name: 'Alice'}) RETURN n.id", {})
    alice_id = alice[0]
    node = await graph.get_node(alice_id)
    assert node is not None and node["name"] == "Alice" and node["type"] == "Entity"
    assert await graph.extract_node(alice_id) == node
    missing = str(uuid.uuid4())
    assert await graph.get_node(missing) is None and await graph.get_node("not-a-uuid") is None
    assert [n["id"] for n in await graph.get_nodes([alice_id, missing])] == [alice_id]
    assert await graph.has_node(alice_id) and not await graph.has_node(missing)
    triples = {(s["name"], rel, t["name"]) for s, rel, t in await graph.get_edges(alice_id)}
    assert {("Alice", "work_at", "Acme"), ("Alice", "is_a", "person")} <= triples
    neighbours = {n["name"] for n in await graph.get_neighbors(alice_id)}
    assert {"Acme", "Berlin", "person"} <= neighbours
    connections = await graph.get_connections(alice_id)
    assert any(
        rel["relationship_name"] == "work_at" and t["name"] == "Acme" for _, rel, t in connections
    )
    (acme,) = [t["id"] for _, rel, t in connections if rel["relationship_name"] == "work_at"]
    assert await graph.has_edge(alice_id, acme, "work_at")
    assert not await graph.has_edge(acme, alice_id, "work_at")
    nodes, edges = await graph.get_neighborhood([alice_id], depth=1, edge_types=["work_at"])
    assert {p["name"] for _, p in nodes} >= {"Alice", "Acme"} and {e[2] for e in edges} == {
        "work_at"
    }
    rows = await graph.query(
        "MATCH (p:Entity)-[r]->(o:Entity) WHERE p.name = $who RETURN type(r), o.name "
        "ORDER BY o.name",
        {"who": "Alice"},
    )
    assert rows == [("work_at", "Acme"), ("work_in", "Berlin")]
    assert not await graph.is_empty()
    metrics = await graph.get_graph_metrics()
    assert metrics["num_nodes"] == len((await graph.get_graph_data())[0])


async def test_nodeset_subgraph_and_filtered_graph() -> None:
    await _people()
    await engramdb.remember("Carol paints in Rome.", dataset_name="people", node_set=["art"])
    graph = await get_graph_engine()
    nodes, edges = await graph.get_nodeset_subgraph(NodeSet, ["art"])
    texts = {p.get("text") for _, p in nodes}
    assert "Carol paints in Rome." in texts and "Bob lives in Paris." not in texts
    ids = {i for i, _ in nodes}
    assert edges and all(s in ids and t in ids for s, t, _, _ in edges)
    assert await graph.get_nodeset_subgraph(NodeSet, ["art", "hr"], "AND") == ([], [])
    entities, _ = await graph.get_filtered_graph_data([{"type": ["Entity"]}])
    assert {p["name"] for _, p in entities} >= {"Alice", "Carol"}


async def test_feedback_weights_of_the_elements_an_answer_used() -> None:
    """contradiction_feedback_demo.py: the answer's used ids -> graph feedback weights."""
    await _people()
    await engramdb.recall("Where does Alice work?", session_id="s1")
    user = await get_default_user()
    (qa,) = await get_session_manager().get_session(user_id=str(user.id), session_id="s1")
    used = qa.used_graph_element_ids
    assert used and used["node_ids"]
    graph = await get_graph_engine()
    weights = await graph.get_node_feedback_weights(used["node_ids"])
    assert set(weights) == set(used["node_ids"]) and all(w == 0.5 for w in weights.values())
    _, edges = await graph.get_graph_data()
    edge_ids = [e[3]["edge_object_id"] for e in edges[:3]]
    assert await graph.get_edge_feedback_weights([*edge_ids, str(uuid.uuid4())]) == {
        i: 0.5 for i in edge_ids
    }
    await get_session_manager().add_feedback(
        user_id=str(user.id), qa_id=qa.qa_id, feedback_score=5, session_id="s1"
    )
    await engramdb.improve("people", session_ids=["s1"])
    after = await graph.get_node_feedback_weights(used["node_ids"])
    assert all(w > 0.5 for w in after.values())


async def test_write_methods_are_refused_with_the_supported_call() -> None:
    graph = await get_graph_engine()
    with pytest.raises(FeatureNotAvailableError, match="add_data_points"):
        await graph.add_nodes([])
    with pytest.raises(FeatureNotAvailableError, match="add_data_points"):
        await graph.add_edge("a", "b", "knows")
    with pytest.raises(FeatureNotAvailableError, match=r"forget\(data_id"):
        await graph.delete_node("a")
    with pytest.raises(FeatureNotAvailableError, match="TruthAnchor"):
        await graph.get_node_truth_state([])
    with pytest.raises(FeatureNotAvailableError, match="get_graph_data"):
        graph.some_adapter_internal  # noqa: B018
    assert await graph.get_graph_data() == ([], [])  # nothing stored yet, nothing created
    assert await graph.is_empty()


async def test_the_database_context_scopes_the_graph_to_one_dataset() -> None:
    people = await _people()
    await engramdb.remember("Dana sails near Oslo.", dataset_name="sailing")
    user = await get_default_user()
    graph = await get_graph_engine()
    everything = {p.get("name") for _, p in (await graph.get_graph_data())[0]}
    assert {"Alice", "Dana"} <= everything
    async with set_database_global_context_variables(people.dataset_id, user.id):
        scoped = {p["dataset_id"] for _, p in (await graph.get_graph_data())[0]}
        assert scoped == {str(people.dataset_id)}
    # the scope stays in force after the block, as cognee's per-dataset configs do
    assert "Dana" not in {p.get("name") for _, p in (await graph.get_graph_data())[0]}
    await set_database_global_context_variables(None)
    assert "Dana" in {p.get("name") for _, p in (await graph.get_graph_data())[0]}


async def test_the_database_context_checks_the_users_permission() -> None:
    people = await _people()
    stranger = await engramdb.create_user("stranger@example.com")
    await set_database_global_context_variables(people.dataset_id, stranger.id)
    with pytest.raises(PermissionDeniedError):
        await (await get_graph_engine()).get_graph_data()
    with pytest.raises(PermissionDeniedError):
        async with set_database_global_context_variables(
            people.dataset_id, stranger.id, permission_type="write"
        ):
            pass
    with pytest.raises(FeatureNotAvailableError, match=r"config\.set"):
        set_database_global_context_variables(people.dataset_id, llm_config=object())


async def test_the_session_manager_reads_and_writes_engramdb_sessions() -> None:
    user = await get_default_user()
    uid = str(user.id)
    manager = get_session_manager()
    assert manager.is_available and manager.is_session_available_for_completion(uid)
    qa_id = await manager.add_qa(
        user_id=uid, question="Capital of France?", context="geo.md", answer="Paris", session_id="t"
    )
    (entry,) = await manager.get_session(user_id=uid, session_id="t")
    assert (entry.qa_id, entry.question, entry.answer, entry.context) == (
        qa_id,
        "Capital of France?",
        "Paris",
        "geo.md",
    )
    assert (await engramdb.session.get_session("t"))[0].qa_id == qa_id
    text = await manager.get_session(user_id=uid, session_id="t", formatted=True)
    assert isinstance(text, str) and "QUESTION: Capital of France?" in text and "CONTEXT" in text
    assert await manager.add_feedback(user_id=uid, qa_id=qa_id, feedback_score=4, session_id="t")
    (rated,) = await manager.get_session(user_id=uid, session_id="t", last_n=1)
    assert rated.feedback_score == 4
    trace_id = await manager.add_agent_trace_step(
        user_id=uid,
        origin_function="run_tests",
        status="error",
        error_message="ModuleNotFoundError",
        method_params={"command": "pytest -q"},
        session_id="t",
    )
    (step,) = await manager.get_agent_trace_session(user_id=uid, session_id="t")
    assert step.trace_id == trace_id and step.status == "error"
    assert step.method_params == {"command": "pytest -q"}
    assert await manager.get_agent_trace_count(user_id=uid, session_id="t") == 1
    await engramdb.session.add_guidance("t", "Prefers metric units.", section="preferences")
    assert await manager.create_session_context_entry(
        user_id=uid, entry_dump={"content": "Answer briefly.", "section": "rules"}, session_id="t"
    )
    rows = await manager.get_session_context_entries(user_id=uid, session_id="t")
    guidance = [r for r in rows if r.get("kind", "context") == "context"]
    assert [(r["section"], r["content"]) for r in guidance] == [
        ("preferences", "Prefers metric units."),
        ("rules", "Answer briefly."),
    ]
    assert all(r["confidence"] > 0 and r["id"] for r in guidance)
    with pytest.raises(FeatureNotAvailableError, match="add_feedback"):
        await manager.update_qa(user_id=uid, qa_id=qa_id, answer="Lyon")
    assert await manager.delete_session(user_id=uid, session_id="t") is True
    assert await manager.delete_session(user_id=uid, session_id="t") is False
    assert await manager.get_session(user_id=uid, session_id="t") == []


async def test_the_session_manager_keeps_users_apart() -> None:
    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    manager = get_session_manager()
    await manager.add_qa(user_id=str(alice.id), question="q", context="", answer="a")
    assert await manager.get_session(user_id=str(bob.id)) == []
    assert len(await manager.get_session(user_id=str(alice.id))) == 1  # default_session
    assert await manager.get_session(user_id=str(uuid.uuid4())) == []
    assert await manager.delete_session(user_id=str(bob.id)) is False
    with pytest.raises(engramdb.EngramValidationError, match="no engramdb user"):
        await manager.add_qa(user_id=str(uuid.uuid4()), question="q", context="", answer="a")


async def test_distill_session_writes_the_learned_guidance_into_the_dataset() -> None:
    """session_distillation.py's shape: cognee.session.distill_session(sid, dataset=, user=)."""
    import engramdb.compat.cognee as cognee

    user = await get_default_user()
    await engramdb.remember("Oreos are sweet. Doritos are savory.", dataset_name="snacks")
    await engramdb.session.add_guidance("snack", "Recommend savory snacks.", section="rules")
    await engramdb.session.add_guidance("snack", "Likes savory food.", section="preferences")
    result = await cognee.session.distill_session("snack", dataset="snacks", user=user)
    assert result.status == "completed" and result.session_id == "snack"
    (document,) = result.documents
    assert "Recommend savory snacks." in document and "Likes savory food." not in document
    hits = await engramdb.recall(
        "Which snacks should I recommend?", engramdb.SearchType.CHUNKS, datasets=["snacks"]
    )
    assert any("Recommend savory snacks." in (h.text or "") for h in hits)
    again = await cognee.session.distill_session("snack", dataset="snacks", user=user)
    assert (again.status, again.documents) == ("no_new_entries", [])
    await engramdb.session.add_guidance("personal", "Likes tea.", section="preferences")
    nothing = await cognee.session.distill_session("personal", dataset="snacks")
    assert nothing.status == "no_gated_entries"


async def test_config_views_read_the_current_settings() -> None:
    url = engramdb.config.settings.storage_url
    backend = "postgres" if url.startswith("postgres") else "sqlite"
    cache = get_cache_config()
    # CACHE_BACKEND unset: the reference's default, whatever store engramdb uses
    assert cache.caching is True and cache.cache_backend == "sqlite" and not cache.auto_feedback
    engramdb.config.set("auto_feedback", True)
    get_cache_config.cache_clear()  # what cognee programs call; nothing is stale here anyway
    assert get_cache_config().auto_feedback is True
    rel = get_relational_config()
    assert rel.db_provider == backend and rel.db_name == url.rpartition("/")[2].split("?")[0]
    from engramdb.compat.cognee.infrastructure.llm import get_llm_config

    engramdb.config.set("llm_model", "my-model")
    engramdb.config.set("llm_api_key", "sk-secret-value-123")
    llm = get_llm_config()
    assert llm.llm_model == "my-model" and "secret" not in llm.llm_api_key
    with pytest.raises(ValueError):
        llm.llm_model = "x"  # type: ignore[misc]


async def test_setup_create_db_and_tables_and_run_migrations_are_idempotent() -> None:
    from engramdb.compat.cognee.run_migrations import run_migrations

    await create_db_and_tables()
    await create_db_and_tables()
    await run_migrations()
    done = await engramdb.remember("Owls hunt at night.")
    await run_migrations()
    assert await engramdb.list_datasets() and done.status == "completed"


def test_cognee_exception_names_are_engramdb_classes() -> None:
    import engramdb.compat.cognee.exceptions as exc
    from engramdb import errors

    assert exc.CogneeApiError is errors.EngramError
    assert exc.CogneeValidationError is errors.EngramValidationError
    assert exc.CogneeConfigurationError is errors.ConfigurationError
    assert exc.CogneeSystemError is errors.StorageError
    assert exc.CogneeTransientError is errors.ProviderError


async def test_except_cognee_exceptions_catches_what_engramdb_raises() -> None:
    from engramdb.compat.cognee.exceptions import CogneeApiError, CogneeValidationError

    with pytest.raises(CogneeValidationError):
        await engramdb.recall("")
    with pytest.raises(CogneeApiError):
        await (await get_graph_engine()).add_node(None)


async def test_apply_feedback_weights_pipeline_moves_only_the_weights() -> None:
    """feedback_score_shifting_example.py's call, over improve()'s feedback_weights stage."""
    from engramdb.compat.cognee.memify_pipelines.apply_feedback_weights import (
        apply_feedback_weights_pipeline,
    )

    await _people()
    await engramdb.recall("Where does Alice work?", session_id="s1")
    user = await get_default_user()
    manager = get_session_manager()
    (qa,) = await manager.get_session(user_id=str(user.id), session_id="s1")
    await manager.add_feedback(
        user_id=str(user.id), qa_id=qa.qa_id, feedback_score=5, session_id="s1"
    )
    documents = len((await engramdb.get_graph()).nodes)
    result = await apply_feedback_weights_pipeline(
        user=user, session_ids=["s1"], dataset="people", alpha=0.9
    )
    ran = {s.stage: s.status for s in result.stages}
    assert ran["feedback_weights"] == "completed" and ran["persist_session_qa"] == "skipped"
    weights = await (await get_graph_engine()).get_node_feedback_weights(
        qa.used_graph_element_ids["node_ids"]
    )
    assert all(w == pytest.approx(0.95) for w in weights.values())
    assert len((await engramdb.get_graph()).nodes) == documents  # no Q&A document was written
    with pytest.raises(engramdb.EngramValidationError, match="session_ids"):
        await apply_feedback_weights_pipeline(user=user, session_ids=[])
    with pytest.raises(engramdb.EngramValidationError):
        await apply_feedback_weights_pipeline(user=user, session_ids=["s1"], alpha=2.0)


async def test_persist_sessions_pipeline_bridges_the_sessions_into_the_graph() -> None:
    from engramdb.compat.cognee.memify_pipelines.persist_sessions_in_knowledge_graph import (
        persist_sessions_in_knowledge_graph_pipeline,
    )

    user = await get_default_user()
    await engramdb.remember("Owls hunt at night.", dataset_name="main_dataset")
    await get_session_manager().add_qa(
        user_id=str(user.id),
        question="When do owls sleep?",
        context="",
        answer="Owls sleep during the day.",
        session_id="chat",
    )
    await persist_sessions_in_knowledge_graph_pipeline(user=user, session_ids=["chat"])
    hits = await engramdb.recall("When do owls sleep?", engramdb.SearchType.CHUNKS)
    assert any("Owls sleep during the day." in (h.text or "") for h in hits)


async def test_engine_factories_and_base_config() -> None:
    from engramdb.compat.cognee.base_config import get_base_config
    from engramdb.compat.cognee.infrastructure.databases.cache.get_cache_engine import (
        create_cache_engine,
    )
    from engramdb.compat.cognee.infrastructure.databases.graph.get_graph_engine import (
        create_graph_engine,
    )
    from engramdb.compat.cognee.infrastructure.databases.vector import get_vector_engine

    for factory in (create_graph_engine, create_cache_engine, get_vector_engine, get_base_config):
        factory.cache_clear()  # what live_session_context_feedback_demo.py does
    await _people()
    assert (await create_graph_engine().get_graph_data())[0]
    with pytest.raises(FeatureNotAvailableError, match="get_graph_engine"):
        create_graph_engine(graph_database_provider="neo4j")
    with pytest.raises(FeatureNotAvailableError, match=r"SearchType\.CHUNKS"):
        get_vector_engine()
    with pytest.raises(FeatureNotAvailableError, match="get_session_manager"):
        create_cache_engine()
    assert get_base_config().data_root_directory == str(engramdb.config.settings.engramdb_data_dir)


async def test_extract_pending_agent_context_turns_traces_into_guidance() -> None:
    """agentic_session_context_demo.py: traces -> agent lessons -> distilled documents."""
    from engramdb.compat.cognee.infrastructure.session.agent_context_extraction import (
        TRACE_EXTRACTION_STATE_ID,
        extract_pending_agent_context,
    )
    from engramdb.compat.cognee.memory import TraceEntry

    user = await get_default_user()
    uid, manager = str(user.id), get_session_manager()
    await engramdb.remember("The repo uses uv.", dataset_name="agent")
    step = TraceEntry(
        origin_function="run_tests", status="error", error_message="No module named 'dotenv'"
    )
    await engramdb.remember(step, dataset_name="agent", session_id="run", self_improvement=False)
    args = {"session_manager": manager, "user_id": uid, "session_id": "run"}
    assert await extract_pending_agent_context(**args, min_new_traces=2) == []  # 1 pending
    touched = await extract_pending_agent_context(**args, min_new_traces=1)
    rows = await manager.get_session_context_entries(user_id=uid, session_id="run")
    lessons = [r for r in rows if r.get("kind") == "context"]
    assert [r["id"] for r in lessons] == touched
    assert lessons[0]["section"] == "failure_lessons" and "dotenv" in lessons[0]["content"]
    (state,) = [r for r in rows if r["id"] == TRACE_EXTRACTION_STATE_ID]
    assert state["processed_trace_count"] == 1
    assert await extract_pending_agent_context(**args) == []  # nothing pending any more
    result = await engramdb.session.distill_session("run", "agent")
    assert result.status == "completed" and "dotenv" in result.documents[0]


async def test_session_history_selection() -> None:
    """session_distillation_demo.py: recent turns plus the earlier ones that match."""
    from engramdb.compat.cognee.infrastructure.session.session_embeddings import (
        search_session_qa_ids,
        select_hybrid_qa_entries,
    )

    user = await get_default_user()
    uid, manager = str(user.id), get_session_manager()
    turns = [
        ("How is VoltaArm calibrated?", "Flashing firmware wipes VoltaArm calibration."),
        ("Who leads firmware?", "Dana Voss."),
        ("What does TerraScout use?", "Lidar maps."),
        ("When does HALT run?", "Overnight."),
    ]
    for question, answer in turns:
        await manager.add_qa(
            user_id=uid, question=question, context="", answer=answer, session_id="d"
        )
    entries = await engramdb.session.get_session("d")
    ids = await search_session_qa_ids(
        user_id=uid, session_id="d", query_text="VoltaArm calibration firmware"
    )
    assert ids[0] == entries[0].qa_id
    picked = select_hybrid_qa_entries(entries, ids[:1], last_n=2)
    assert [e.question for e in picked] == [turns[0][0], turns[2][0], turns[3][0]]
    assert select_hybrid_qa_entries(entries, None, last_n=1) == entries[-1:]
    assert await search_session_qa_ids(user_id=uid, session_id="d", query_text="") == []


async def test_cognee_memory_entries() -> None:
    from engramdb.compat.cognee.memory import QAEntry, SkillRunEntry, TraceEntry

    assert QAEntry is engramdb.QAEntry and TraceEntry is engramdb.TraceEntry
    done = await engramdb.remember(
        QAEntry(question="Capital?", answer="Paris."), dataset_name="d", session_id="m"
    )
    assert done.status == "session_stored" and done.entry_type == "qa"
    run = SkillRunEntry(selected_skill_id="summarize", success_score=0.4, feedback=-1.0)
    with pytest.raises(engramdb.EngramValidationError, match="'summarize' was not found in"):
        await engramdb.remember(run, dataset_name="d", session_id="m")
    with pytest.raises(ValueError):
        SkillRunEntry(selected_skill_id="x", success_score=2.0)
