"""Remote mode: after serve(url, api_key=...) the SDK verbs go over HTTP, same signatures and
result types as in-process."""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator
from pathlib import Path
from uuid import uuid4

import pytest
from pydantic import BaseModel

import engramdb
from engramdb.api.recall import recall as local_recall
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


def test_public_verbs_keep_their_signatures() -> None:
    from engramdb.api import forget, improve, remember, session

    assert inspect.signature(engramdb.recall) == inspect.signature(local_recall)
    assert inspect.signature(engramdb.remember) == inspect.signature(remember.remember)
    assert inspect.signature(engramdb.improve) == inspect.signature(improve.improve)
    assert inspect.signature(engramdb.forget) == inspect.signature(forget.forget)
    assert inspect.signature(engramdb.session.add_feedback) == inspect.signature(
        session.add_feedback
    )


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
    with pytest.raises(engramdb.FeatureNotAvailableError, match="remote mode"):
        await engramdb.visualize_graph()


async def test_background_remember_and_improve_wait_over_http(remote: LiveServer) -> None:
    started = await engramdb.remember("Herons wade in shallow water.", run_in_background=True)
    assert started.status == "running" and started.run_id is not None
    finished = await started.wait()
    assert finished.status == "completed" and finished.counts["documents"] == 1
    improving = await engramdb.improve(run_in_background=True)
    assert improving.status == "running"
    done = await improving.wait()
    assert done is improving and done.status in ("completed", "skipped")
    assert len(done.stages) == 9


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
