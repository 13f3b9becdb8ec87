"""The REST API against a real server on 127.0.0.1 and the real SQLite store."""

from __future__ import annotations

import json
import time
from pathlib import Path
from uuid import UUID, uuid4

import httpx

import engramdb
from engramdb.engine import get_engine
from tests.server.conftest import Account, LiveServer
from tests.support.openai_server import OpenAIServer, Reply

PROBLEM = "application/problem+json"


def _problem(response: httpx.Response, status: int) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["status"] == status and body["detail"] and body["type"].startswith("urn:engramdb")
    return dict(body)


def _wait_run(client: httpx.Client, run_id: str) -> dict[str, object]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        run = client.get(f"/api/v1/runs/{run_id}").json()
        if run["status"] != "running":
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the background run did not finish")


def test_health_needs_no_key(live_server: LiveServer) -> None:
    with live_server.client() as client:
        response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": engramdb.__version__}


def test_remember_json_and_recall_chunks(live_server: LiveServer, alice: Account) -> None:
    with live_server.client(alice) as client:
        added = client.post(
            "/api/v1/remember",
            json={"data": ["Owls hunt at night.", "Cats sleep all day."], "dataset_name": "zoo"},
        )
        assert added.status_code == 200, added.text
        assert added.json()["status"] == "completed"
        assert added.json()["counts"]["documents"] == 2
        found = client.post(
            "/api/v1/recall",
            json={"query_text": "owls at night", "query_type": "CHUNKS", "top_k": 1},
        )
    assert found.status_code == 200, found.text
    (hit,) = found.json()
    assert hit["source"] == "graph" and hit["text"] == "Owls hunt at night."
    assert hit["dataset_name"] == "zoo" and hit["metadata"]["data_id"]


def test_remember_multipart_upload_with_texts(live_server: LiveServer, alice: Account) -> None:
    with live_server.client(alice) as client:
        response = client.post(
            "/api/v1/remember",
            data={"dataset_name": "docs", "importance_weight": "0.9", "texts": "A loose note."},
            files=[
                ("files", ("mars.md", b"# Mars\nMars is the red planet.")),
                ("files", ("moons.txt", b"Phobos and Deimos orbit Mars.")),
            ],
        )
        assert response.status_code == 200, response.text
        names = sorted(item["name"] for item in response.json()["items"])
        assert "mars.md" in names and "moons.txt" in names and len(names) == 3
        hits = client.post(
            "/api/v1/recall",
            json={"query_text": "Phobos", "query_type": "CHUNKS_LEXICAL", "datasets": ["docs"]},
        ).json()
    assert hits and hits[0]["metadata"]["document_name"] == "moons.txt"


def test_validation_errors_are_422_problems_and_write_nothing(
    live_server: LiveServer, alice: Account
) -> None:
    with live_server.client(alice) as client:
        _problem(client.post("/api/v1/remember", json={"data": "x", "importance_weight": 2}), 422)
        _problem(
            client.post("/api/v1/remember", json={"data": "x", "importance_weight": "hi"}), 422
        )
        _problem(client.post("/api/v1/remember", json={"data": "x", "bogus": 1}), 422)
        _problem(client.post("/api/v1/recall", json={"query_text": "q", "scope": "nowhere"}), 422)
        assert client.get("/api/v1/datasets").json() == []


def test_recall_of_a_user_with_no_data_finds_nothing(
    live_server: LiveServer, alice: Account
) -> None:
    # On a server the database exists (users and keys live in it), so recall's "nothing was
    # ever ingested" precondition cannot apply: a new user's recall simply finds nothing.
    with live_server.client(alice) as client:
        response = client.post("/api/v1/recall", json={"query_text": "anything"})
    assert response.status_code == 200 and response.json() == []


def test_unknown_dataset_name_is_404_with_the_misses(
    live_server: LiveServer, alice: Account
) -> None:
    with live_server.client(alice) as client:
        client.post("/api/v1/remember", json={"data": "Some fact.", "dataset_name": "real"})
        body = _problem(
            client.post("/api/v1/recall", json={"query_text": "q", "datasets": ["real", "typo"]}),
            404,
        )
    assert body["title"] == "DatasetNotFoundError" and body["missing"] == ["typo"]


def test_llm_budget_exhaustion_is_402(
    live_server: LiveServer, alice: Account, openai_server: OpenAIServer
) -> None:
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    openai_server.set_default("chat/completions", lambda r: Reply.error(402, "no credit left"))
    with live_server.client(alice) as client:
        body = _problem(client.post("/api/v1/remember", json={"data": "Grace Hopper."}), 402)
    assert body["title"] == "LLMPaymentRequiredError"


def test_background_remember_and_improve_report_through_the_run_status(
    live_server: LiveServer, alice: Account, bob: Account
) -> None:
    with live_server.client(alice) as client:
        started = client.post(
            "/api/v1/remember", json={"data": "Herons wade.", "run_in_background": True}
        )
        assert started.status_code == 202, started.text
        assert started.json()["status"] == "running"
        run_id = started.json()["run_id"]
        run = _wait_run(client, run_id)
        assert run["kind"] == "remember" and run["status"] == "completed"
        assert run["result"]["counts"]["documents"] == 1  # type: ignore[index]
        assert run["result"]["run_id"] == run_id  # type: ignore[index]  # one id for the run
        improve = client.post(
            "/api/v1/improve", json={"dataset": "main_dataset", "run_in_background": True}
        )
        assert improve.status_code == 202
        done = _wait_run(client, improve.json()["run_id"])
        assert done["kind"] == "improve" and done["status"] in ("completed", "skipped")
        assert len(done["result"]["stages"]) == 9  # type: ignore[index]
    unknown_id = str(uuid4())
    with live_server.client(bob) as other:  # someone else's run looks like no run at all
        theirs = _problem(other.get(f"/api/v1/runs/{run_id}"), 404)
        unknown = _problem(other.get(f"/api/v1/runs/{unknown_id}"), 404)
    assert str(theirs["detail"]).replace(run_id, "X") == str(unknown["detail"]).replace(
        unknown_id, "X"
    )


def test_improve_foreground_returns_the_nine_stages(
    live_server: LiveServer, alice: Account
) -> None:
    with live_server.client(alice) as client:
        client.post("/api/v1/remember", json={"data": "Ada wrote programs.", "dataset_name": "d"})
        result = client.post("/api/v1/improve", json={"dataset": "d"})
    assert result.status_code == 200, result.text
    assert result.json()["stages"][0]["stage"] == "feedback_weights"
    assert len(result.json()["stages"]) == 9


def test_improve_custom_tasks_by_name_and_memify_run_over_rest(
    live_server: LiveServer, alice: Account
) -> None:
    """improve.md: "Over REST, extractionTasks, enrichmentTasks, data and nodeName on POST
    /api/v1/improve are marked deprecated the same way." and "REST responses still include
    memify_run, marked deprecated." (engramdb's REST bodies use the SDK's snake_case names)."""
    with live_server.client(alice) as client:
        client.post("/api/v1/remember", json={"data": "Ada wrote programs.", "dataset_name": "d"})
        plain = client.post("/api/v1/improve", json={"dataset": "d"}).json()
        assert plain["memify_run"] == {} and len(plain["stages"]) == 9
        result = client.post(
            "/api/v1/improve",
            json={
                "dataset": "d",
                "extraction_tasks": ["extract_subgraph_chunks"],
                "enrichment_tasks": ["index_data_points"],
                "node_name": ["nothing tagged so"],
            },
        )
        assert result.status_code == 200, result.text
        body = result.json()
        _problem(client.post("/api/v1/improve", json={"extraction_tasks": [{"x": 1}]}), 422)
        schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert [s["stage"] for s in body["stages"]][-1] == "custom_tasks"
    assert body["stages"][-1]["status"] == "completed"
    ((dataset_id, event),) = body["memify_run"].items()
    assert event["status"] == "PipelineRunCompleted" and event["dataset_id"] == dataset_id
    request = schema["ImproveRequest"]["properties"]
    for name in ("extraction_tasks", "enrichment_tasks", "data", "node_name"):
        assert request[name]["deprecated"] is True, name
    assert schema["ImproveResult"]["properties"]["memify_run"]["deprecated"] is True


def test_forget_and_dataset_routes(live_server: LiveServer, alice: Account) -> None:
    with live_server.client(alice) as client:
        created = client.post("/api/v1/datasets", json={"name": "empty one"})
        assert created.status_code == 201 and created.json()["name"] == "empty one"
        added = client.post("/api/v1/remember", json={"data": "A fact.", "dataset_name": "keep"})
        data_id = added.json()["data_ids"][0]
        names = sorted(d["name"] for d in client.get("/api/v1/datasets").json())
        assert names == ["empty one", "keep"]
        deleted = client.delete(f"/api/v1/datasets/{created.json()['id']}")
        assert deleted.status_code == 204
        forgot = client.post("/api/v1/forget", json={"data_id": data_id})
        assert forgot.status_code == 200 and forgot.json()["data_records"] == 1
        _problem(client.post("/api/v1/forget", json={}), 422)
        _problem(client.post("/api/v1/forget", json={"dataset": "never existed"}), 404)
        everything = client.post("/api/v1/forget", json={"everything": True})
        assert everything.json()["datasets"] == 1
        assert client.get("/api/v1/datasets").json() == []


def test_share_a_dataset_then_revoke(live_server: LiveServer, alice: Account, bob: Account) -> None:
    with live_server.client(alice) as a_client, live_server.client(bob) as b_client:
        added = a_client.post(
            "/api/v1/remember", json={"data": "Alice's secret plan.", "dataset_name": "plans"}
        )
        dataset_id = added.json()["dataset_id"]
        ask = {"query_text": "secret plan", "query_type": "CHUNKS", "dataset_ids": [dataset_id]}
        _problem(b_client.post("/api/v1/recall", json=ask), 403)
        shared = a_client.post(
            f"/api/v1/datasets/{dataset_id}/grants",
            json={"grantee_id": str(bob.user.id), "permission": "read"},
        )
        assert shared.status_code == 204, shared.text
        grants = a_client.get(f"/api/v1/datasets/{dataset_id}/grants").json()
        assert [(g["grantee_id"], g["permission"]) for g in grants] == [(str(bob.user.id), "read")]
        hits = b_client.post("/api/v1/recall", json=ask)
        assert hits.status_code == 200 and hits.json()[0]["text"] == "Alice's secret plan."
        revoked = a_client.delete(f"/api/v1/datasets/{dataset_id}/grants/{bob.user.id}/read")
        assert revoked.status_code == 204
        _problem(b_client.post("/api/v1/recall", json=ask), 403)


def test_session_feedback_and_entries(live_server: LiveServer, alice: Account) -> None:
    with live_server.client(alice) as client:
        client.post("/api/v1/remember", json={"data": "Owls hunt at night."})
        client.post(
            "/api/v1/recall",
            json={"query_text": "When do owls hunt?", "query_type": "CHUNKS", "session_id": "c1"},
        )
        entries = client.get("/api/v1/sessions/c1/entries").json()
        assert len(entries) == 1 and entries[0]["question"] == "When do owls hunt?"
        qa_id = entries[0]["qa_id"]
        rated = client.post(
            "/api/v1/sessions/c1/feedback", json={"qa_id": qa_id, "feedback_score": 5}
        )
        assert rated.status_code == 200 and rated.json() is True
        assert client.get("/api/v1/sessions/c1/entries").json()[0]["feedback_score"] == 5
        _problem(client.post("/api/v1/sessions/c1/feedback", json={"qa_id": qa_id}), 422)
        missing = {"qa_id": str(uuid4()), "feedback_score": 1}
        _problem(client.post("/api/v1/sessions/c1/feedback", json=missing), 404)
        assert client.get("/api/v1/sessions/other/entries").json() == []


def test_conflicts_and_skills_routes(live_server: LiveServer, alice: Account) -> None:

    record = live_server.call(
        get_engine().remember_skill("deploy", "How to deploy", "1. build\n2. ship", user=alice.user)
    )
    with live_server.client(alice) as client:
        skill = client.get(f"/api/v1/skills/{record.id}")
        assert skill.status_code == 200 and skill.json()["procedure"] == "1. build\n2. ship"
        _problem(client.get(f"/api/v1/skills/{uuid4()}"), 403)
        assert client.get("/api/v1/conflicts").json() == []
        assert client.get("/api/v1/conflicts", params={"status": "open"}).json() == []
        _problem(client.get("/api/v1/conflicts", params={"status": "weird"}), 422)
        resolve = {"fact_id": str(uuid4())}
        _problem(client.post(f"/api/v1/conflicts/{uuid4()}/resolve", json=resolve), 404)


def test_users_and_api_keys(live_server: LiveServer, admin: Account, alice: Account) -> None:
    with live_server.client(admin) as root, live_server.client(alice) as client:
        assert client.get("/api/v1/users/me").json()["email"] == "alice@example.com"
        _problem(client.post("/api/v1/users", json={"email": "eve@example.com"}), 403)
        _problem(client.get("/api/v1/users"), 403)
        made = root.post("/api/v1/users", json={"email": "carol@example.com"})
        assert made.status_code == 201, made.text
        carol_id = made.json()["id"]
        _problem(root.post("/api/v1/users", json={"email": "carol@example.com"}), 409)
        # no impersonation: not even an administrator mints a key for another user
        _problem(root.post(f"/api/v1/users/{carol_id}/api-keys", json={"name": "laptop"}), 403)
        _problem(client.post(f"/api/v1/users/{carol_id}/api-keys", json={}), 403)
        _info, plaintext = live_server.call(
            get_engine().create_api_key(UUID(carol_id), name="laptop")  # the operator, in-process
        )
        with httpx.Client(base_url=live_server.url, headers={"X-Api-Key": plaintext}) as carol:
            assert carol.get("/api/v1/users/me").json()["id"] == carol_id
            keys = carol.get(f"/api/v1/users/{carol_id}/api-keys").json()
            assert [k["name"] for k in keys] == ["laptop"] and "api_key" not in json.dumps(keys)
            assert carol.delete(f"/api/v1/api-keys/{keys[0]['id']}").status_code == 204
            _problem(carol.get("/api/v1/users/me"), 401)


async def test_an_app_serves_the_engine_it_was_given_and_closes_it(tmp_path: Path) -> None:
    """create_app(engine): every route runs on that engine (its own data directory, not the
    configured one), and shutting the app down closes it."""
    from fastapi.testclient import TestClient

    from engramdb.server import create_app

    mem = engramdb.Engine(data_dir=tmp_path / "served")
    alice = await mem.create_user("alice@example.com")
    _info, key = await mem.create_api_key(alice.id)
    with TestClient(create_app(mem)) as client:
        headers = {"Authorization": f"Bearer {key}"}
        added = client.post("/api/v1/remember", json={"data": "Owls hunt."}, headers=headers)
        assert added.status_code == 200, added.text
    assert mem.closed
    async with engramdb.Engine(data_dir=tmp_path / "served") as again:
        found = await again.recall("owls", "CHUNKS", user=alice)
    assert [r.text for r in found] == ["Owls hunt."]
    assert not await engramdb.list_datasets()  # the configured data directory saw nothing
