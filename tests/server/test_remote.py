"""Remote mode: after serve(url, api_key=...) the SDK verbs go over HTTP, same signatures and
result types as in-process."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from pydantic import BaseModel

import engramdb
from engramdb.engine import get_engine
from engramdb.errors import ToolCallsDisabledError
from engramdb.models.results import RememberResult, ResponseGraphEntry
from tests.server.conftest import Account, LiveServer
from tests.support.openai_server import OpenAIServer


@pytest.fixture
async def remote(live_server: LiveServer, alice: Account) -> AsyncIterator[LiveServer]:
    connection = await engramdb.serve(live_server.url, api_key=alice.key)
    assert connection.user is not None and connection.user["email"] == "alice@example.com"
    try:
        yield live_server
    finally:
        await engramdb.disconnect()


def local_recall(*args: Any, **kwargs: Any) -> Any:
    """recall() on the in-process default engine (what the server serves)."""
    return get_engine().recall(*args, **kwargs)


def local_remember(*args: Any, **kwargs: Any) -> Any:
    return get_engine().remember(*args, **kwargs)


async def test_remember_recall_forget_over_http_match_in_process(
    remote: LiveServer, alice: Account, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "mars.md").write_text("# Mars\nMars has two moons, Phobos and Deimos.")
    added = await engramdb.remember(
        ["Owls hunt at night.", str(notes)], "zoo", importance_weight=0.8, node_set=["animals"]
    )
    assert isinstance(added, RememberResult) and added.status == "completed"
    assert sorted(i.name for i in added.items)[0] == "mars.md" and len(added.items) == 2
    results = await engramdb.recall("Phobos", engramdb.SearchType.CHUNKS, top_k=2)
    assert all(isinstance(r, ResponseGraphEntry) for r in results)
    local = remote.call(local_recall("Phobos", "CHUNKS", top_k=2, user=alice.user))
    assert [r.model_dump() for r in results] == [r.model_dump() for r in local]
    assert results[0].metadata["document_name"] == "mars.md"
    datasets = await engramdb.list_datasets()
    assert [d.name for d in datasets] == ["zoo"]
    forgot = await engramdb.forget(data_id=added.data_ids[0])
    assert forgot.data_records == 1
    assert (await engramdb.forget(dataset=datasets[0].id)).datasets == 1
    assert await engramdb.list_datasets() == []


async def test_errors_keep_their_classes(remote: LiveServer) -> None:
    await engramdb.remember("A fact.", "real")
    with pytest.raises(engramdb.DatasetNotFoundError) as missing:
        await engramdb.recall("q", datasets=["real", "typo"])
    assert missing.value.missing == ["typo"] and missing.value.status_code == 404
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.remember("x", importance_weight=3)
    with pytest.raises(engramdb.PermissionDeniedError):
        await engramdb.recall("q", dataset_ids=[uuid4()])
    with pytest.raises(TypeError, match="bogus"):
        await engramdb.recall("q", bogus=1)  # type: ignore[call-arg]
    with pytest.raises(engramdb.EngramValidationError, match="user="):
        await engramdb.recall("q", user=object())  # type: ignore[arg-type]
    with pytest.raises(ToolCallsDisabledError, match="TOOL_CALLS_ENABLED"):
        await engramdb.recall("q", scope="tools")


async def test_background_remember_and_improve_wait_over_http(remote: LiveServer) -> None:
    started = await engramdb.remember("Herons wade in shallow water.", run_in_background=True)
    assert started.status == "running" and started.run_id is not None
    finished = await started.wait()
    assert finished.status == "completed" and finished.counts["documents"] == 1
    assert finished.run_id == started.run_id  # the id announced is the run's own
    improving = await engramdb.improve(run_in_background=True)
    assert improving.status == "running"
    done = await improving.wait()
    assert done is improving and done.status in ("completed", "skipped")
    assert len(done.stages) == 9


async def test_improve_custom_tasks_by_name_over_http(remote: LiveServer) -> None:
    """improve.md: custom tasks are "`Task` objects, registry task names, or a mix", and
    "REST responses still include memify_run" — in remote mode the names travel, a Task
    object cannot, and memify_run comes back from the server."""
    await engramdb.remember("Herons wade in shallow water.", dataset_name="birds")
    with pytest.warns(FutureWarning):
        result = await engramdb.improve(
            "birds", extraction_tasks=["extract_subgraph"], enrichment_tasks=["index_data_points"]
        )
    assert result.stage("custom_tasks").status == "completed"  # type: ignore[union-attr]
    with pytest.warns(FutureWarning, match="memify_run"):
        ((_, event),) = result.memify_run.items()
    assert event["status"] == "PipelineRunCompleted"
    from engramdb.pipelines import Task

    with pytest.warns(FutureWarning), pytest.raises(engramdb.EngramValidationError, match="Task"):
        await engramdb.improve("birds", extraction_tasks=[Task(lambda x: x)])


async def test_sessions_and_feedback_over_http(remote: LiveServer) -> None:
    await engramdb.remember("Owls hunt at night.")
    await engramdb.recall("When do owls hunt?", "CHUNKS", session_id="chat")
    (turn,) = await engramdb.session.get_session("chat")
    assert await engramdb.session.add_feedback("chat", turn.qa_id, feedback_score=4) is True
    (rated,) = await engramdb.session.get_session("chat", last_n=1)
    assert rated.feedback_score == 4
    with pytest.raises(engramdb.NotFoundError):
        await engramdb.session.add_feedback("chat", str(uuid4()), feedback_score=4)
    assert await engramdb.list_conflicts() == []


class Cities(BaseModel):
    person: str
    cities: list[str]


async def test_response_model_travels_as_response_schema(
    remote: LiveServer, openai_server: OpenAIServer
) -> None:
    await engramdb.remember("Andreas was born in Venice and settled in Lisbon.", "demo")
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    openai_server.chat_text = json.dumps({"person": "Andreas", "cities": ["Venice", "Lisbon"]})
    (answer,) = await engramdb.recall(
        "Where did Andreas live?", "GRAPH_COMPLETION", datasets=["demo"], response_model=Cities
    )
    assert answer.structured == {"person": "Andreas", "cities": ["Venice", "Lisbon"]}
    assert Cities.model_validate(answer.structured).cities == ["Venice", "Lisbon"]
    sent = json.dumps(openai_server.requests_to("chat/completions")[-1].json)
    assert "cities" in sent  # the rebuilt model's schema reached the LLM request


async def test_unsupported_schema_features_are_refused_clearly(remote: LiveServer) -> None:
    await engramdb.remember("A fact.")

    class Node(BaseModel):
        name: str
        children: list[Node] = []

    with pytest.raises(engramdb.EngramValidationError, match="recursive"):
        await engramdb.recall("q", "GRAPH_COMPLETION", response_model=Node)


async def test_bad_key_and_unreachable_server(live_server: LiveServer) -> None:
    from engramdb.remote import RemoteUnavailableError

    with pytest.raises(engramdb.AuthenticationError):
        await engramdb.serve(live_server.url, api_key="egm_wrong")
    from engramdb.remote import current_client

    assert current_client() is None  # a failed check leaves in-process mode on
    engramdb.serve("http://127.0.0.1:9", api_key="k")  # takes effect without await
    try:
        with pytest.raises(RemoteUnavailableError):
            await engramdb.list_datasets()
    finally:
        await engramdb.disconnect()
    assert await engramdb.list_datasets() == []  # in-process again


def _dumps(items: list[BaseModel]) -> list[dict[str, object]]:
    return [item.model_dump() for item in items]


async def test_session_verbs_over_http_match_in_process(remote: LiveServer, alice: Account) -> None:

    qa_id = await engramdb.session.add_qa(
        "chat", "Where do owls live?", "In barns.", context="notes", feedback_score=4
    )
    trace_id = await engramdb.session.add_trace(
        "chat",
        "search",
        method_params={"query": "owls", "api_key": "sk-secret", "where": Path("/tmp")},
        method_return_value={"hits": 3},
        memory_query="owls",
    )
    guidance_id = await engramdb.session.add_guidance(
        "chat", "Answer in one sentence.", section="rules"
    )
    assert len({qa_id, trace_id, guidance_id}) == 3

    @engramdb.session.traced("chat")
    async def lookup(term: str) -> str:
        return term.upper()

    assert await lookup("barn") == "BARN"
    traces = await engramdb.session.get_traces("chat")
    local_traces = remote.call(get_engine().session.get_traces("chat", user=alice.user))
    assert _dumps(traces) == _dumps(local_traces) and len(traces) == 2
    assert traces[0].method_params["api_key"] != "sk-secret"  # redacted as in-process
    assert traces[1].origin_function.endswith("lookup") and traces[1].status == "success"
    assert _dumps(await engramdb.session.get_traces("chat", last_n=1)) == _dumps(traces[1:])
    sessions = await engramdb.session.list_sessions()
    assert _dumps(sessions) == _dumps(
        remote.call(get_engine().session.list_sessions(user=alice.user))
    )
    assert [s.session_id for s in sessions] == ["chat"]
    assert await engramdb.session.delete_feedback("chat", qa_id) is True
    (entry,) = await engramdb.session.get_session("chat")
    assert entry.qa_id == qa_id and entry.feedback_score is None
    with pytest.raises(engramdb.NotFoundError):
        await engramdb.session.delete_feedback("chat", str(uuid4()))
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.session.add_guidance("chat", "x", section="no-such-section")
    assert await engramdb.session.delete_session("chat") is True
    assert await engramdb.session.delete_session("chat") is False
    assert await engramdb.session.list_sessions() == []


async def test_distill_session_over_http(remote: LiveServer, alice: Account) -> None:
    await engramdb.remember("Owls hunt at night.", dataset_name="birds")
    await engramdb.session.add_guidance("chat", "Name the species.", section="rules")
    from engramdb.models.sessions import DistillationResult

    result = await engramdb.session.distill_session("chat", "birds")
    assert isinstance(result, DistillationResult)
    assert result.status == "completed" and "Name the species." in result.documents[0]
    again = await engramdb.session.distill_session("chat", dataset="birds")
    assert again.status == "no_new_entries"
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.session.distill_session("chat", "birds", max_batches=-1)


async def test_graph_skills_and_visualize_over_http_match_in_process(
    remote: LiveServer, alice: Account, tmp_path: Path
) -> None:

    await engramdb.remember("Owls hunt at night.", "zoo")
    graph = await engramdb.get_graph(["zoo"])
    assert graph.nodes and graph == remote.call(get_engine().get_graph(["zoo"], user=alice.user))
    assert await engramdb.get_graph() == remote.call(get_engine().get_graph(user=alice.user))
    assert (await engramdb.get_graph(limit=1)).truncated is True
    assert await engramdb.get_graph([]) == remote.call(get_engine().get_graph([], user=alice.user))
    node = await engramdb.get_node(graph.nodes[0].id)
    assert node is not None and node == remote.call(
        get_engine().get_node(graph.nodes[0].id, user=alice.user)
    )
    assert await engramdb.get_node(uuid4()) is None
    with pytest.raises(engramdb.DatasetNotFoundError):
        await engramdb.get_graph(["typo"])

    record = await engramdb.remember_skill(
        "deploy", "Ship the service.", "1. build\n2. push", dataset_name="skills", tags=["ops"]
    )
    assert record.status == "ingested" and record.dataset_name == "skills"
    skill = remote.call(get_engine().load_skill(record.id, user=alice.user))
    assert (skill.name, skill.procedure, skill.tags) == ("deploy", "1. build\n2. push", ["ops"])
    folder = tmp_path / "skills" / "rollback"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("Roll back a release.\n\nRevert, then redeploy.")
    (loaded,) = await engramdb.remember_skills(tmp_path / "skills", dataset_name="skills")
    assert loaded.name == "rollback" and loaded.dataset_name == "skills"
    again = await engramdb.remember_skills(str(folder / "SKILL.md"), dataset_name="skills")
    assert [r.status for r in again] == ["skipped"]
    text = "---\nname: greet\ndescription: Say hello.\ntags: [chat]\n---\nSay hello."
    (greet,) = await engramdb.remember_skills(text)
    assert (greet.name, greet.tags, greet.dataset_name) == ("greet", ["chat"], "main_dataset")

    written = await engramdb.visualize_graph(tmp_path / "remote.html", datasets=["zoo"])
    assert written == str(tmp_path / "remote.html")
    local = remote.call(
        get_engine().visualize_graph(tmp_path / "local.html", datasets=["zoo"], user=alice.user)
    )
    assert Path(written).read_text() == Path(local).read_text()
    everything = await engramdb.visualize_graph(tmp_path)
    local_all = remote.call(get_engine().visualize_graph(tmp_path / "all.html", user=alice.user))
    assert Path(everything).read_text() == Path(local_all).read_text()


async def test_another_users_ids_are_refused_like_unknown_ones_remotely(
    remote: LiveServer, alice: Account, bob: Account, tmp_path: Path
) -> None:

    added = remote.call(local_remember("Alice's secret: 4711.", "diary", user=alice.user))
    qa_id = remote.call(
        get_engine().session.add_qa("s1", "q?", "a.", feedback_score=5, user=alice.user)
    )
    graph = await engramdb.get_graph(["diary"])
    await engramdb.disconnect()
    await engramdb.serve(remote.url, api_key=bob.key)
    real_ds, fake_ds = added.dataset_id, uuid4()

    async def refusal(call: object, real: object, fake: object) -> None:
        errors = []
        for value in (real, fake):
            with pytest.raises(engramdb.EngramError) as caught:
                await call(value)  # type: ignore[operator]
            errors.append((type(caught.value), str(caught.value).replace(str(value), "ID")))
        assert errors[0] == errors[1]

    await refusal(lambda d: engramdb.get_graph(dataset_ids=[d]), real_ds, fake_ds)
    await refusal(lambda d: engramdb.visualize_graph(tmp_path, dataset_ids=[d]), real_ds, fake_ds)
    await refusal(lambda q: engramdb.session.delete_feedback("s1", q), qa_id, str(uuid4()))
    assert await engramdb.get_node(graph.nodes[0].id) is None
    assert await engramdb.get_graph() == engramdb.GraphSnapshot()
    assert await engramdb.session.get_traces("s1") == []
    assert await engramdb.session.delete_session("s1") is False
    assert not (tmp_path / "graph.html").exists()
    (entry,) = remote.call(
        get_engine().session.get_session("s1", user=alice.user)
    )  # Bob changed nothing
    assert entry.feedback_score == 5


async def test_access_verbs_go_to_the_server_too(
    live_server: LiveServer, alice: Account, admin: Account
) -> None:
    """Users, keys and grants are verbs like the rest: after serve() they run on the server as
    the key's user (creating users is for administrators), never silently on local data."""
    await engramdb.serve(live_server.url, api_key=alice.key)
    try:
        with pytest.raises(engramdb.PermissionDeniedError, match="administrators"):
            await engramdb.create_user("carol@example.com")
        info, key = await engramdb.create_api_key(alice.user.id, name="laptop")
        assert key.startswith("egm_") and info.name == "laptop"
        assert [k.name for k in await engramdb.list_api_keys(alice.user.id)] == ["test", "laptop"]
        await engramdb.revoke_api_key(info.id)
        assert [k.revoked for k in await engramdb.list_api_keys(alice.user.id)] == [False, True]
    finally:
        await engramdb.disconnect()
    await engramdb.serve(live_server.url, api_key=admin.key)
    try:
        carol = await engramdb.create_user("carol@example.com")
        assert carol.email == "carol@example.com"
    finally:
        await engramdb.disconnect()


async def test_an_export_import_is_refused_over_http_naming_what_to_do(remote: LiveServer) -> None:
    from engramdb.migration import Mem0Source

    with pytest.raises(engramdb.FeatureNotAvailableError, match="runs on a local engine only"):
        await engramdb.remember(Mem0Source([{"memory": "Owls hunt at night."}]))
    assert await engramdb.list_datasets() == []


async def test_the_code_scope_over_http(remote: LiveServer, alice: Account, tmp_path: Path) -> None:
    """A code graph remembered in-process (source paths are local) is queried over HTTP: the
    entries come back as ResponseCodeEntry and a seed miss keeps its error class."""
    from engramdb.models.results import ResponseCodeEntry
    from tests.support.code_repo import write_repo

    repo = write_repo(tmp_path)
    remote.call(local_remember(repo, "shop", user=alice.user, self_improvement=False))
    query = {"operation": "impact_analysis", "name": "validate"}
    (entry,) = await engramdb.recall("x", scope=["code"], code_query=query)
    assert isinstance(entry, ResponseCodeEntry) and entry.source == "code"
    assert [t["name"] for t in entry.raw["targets"]] == ["app.models.validate"]
    (local,) = remote.call(local_recall("x", scope=["code"], code_query=query, user=alice.user))
    assert entry.model_dump() == local.model_dump()
    with pytest.raises(engramdb.CodeSeedNotFoundError):
        await engramdb.search("NoSuchSymbol", query_type="CODE")
