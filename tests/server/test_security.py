"""Security: authentication on every route, isolation between users, hostile inputs."""

from __future__ import annotations

import re
import socket
from typing import Any
from uuid import uuid4

import httpx
import pytest

from engramdb.server import create_app
from tests.server.conftest import Account, LiveServer

_DOC = create_app().openapi()
_ROUTES = [
    (method.upper(), path)
    for path, item in _DOC["paths"].items()
    for method in item
    if path != "/health"
]
_PARAMS = {"session_id": "s1", "permission": "read"}


def _url(path: str) -> str:
    return re.sub(r"{(\w+)}", lambda m: _PARAMS.get(m.group(1), str(uuid4())), path)


@pytest.mark.parametrize(("method", "path"), _ROUTES, ids=[f"{m} {p}" for m, p in _ROUTES])
def test_every_route_needs_an_api_key(live_server: LiveServer, method: str, path: str) -> None:
    with live_server.client() as client:
        missing = client.request(method, _url(path), json={})
        wrong = client.request(
            method, _url(path), json={}, headers={"Authorization": "Bearer egm_nope"}
        )
        garbage = client.request(method, _url(path), json={}, headers={"X-Api-Key": "' OR 1=1--"})
    for response in (missing, wrong, garbage):
        assert response.status_code == 401, (method, path, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.headers["www-authenticate"] == "Bearer"


#: Routes that take the dataset as ``?dataset_id=``.
_BY_QUERY = ("/api/v1/conflicts", "/api/v1/improve/runs")


def test_the_route_list_is_what_the_issue_asked_for() -> None:
    # a route in the document is a route that is built and tested (no stubs)
    assert sorted(f"{m} {p}" for m, p in _ROUTES) == [
        "DELETE /api/v1/api-keys/{key_id}",
        "DELETE /api/v1/datasets/{dataset_id}",
        "DELETE /api/v1/datasets/{dataset_id}/data/{data_id}",
        "DELETE /api/v1/datasets/{dataset_id}/grants/{grantee_id}/{permission}",
        "DELETE /api/v1/sessions/{session_id}",
        "DELETE /api/v1/sessions/{session_id}/entries/{qa_id}/feedback",
        "DELETE /api/v1/tools/sql-connections/{name}",
        "GET /api/v1/conflicts",
        "GET /api/v1/datasets",
        "GET /api/v1/datasets/progress",
        "GET /api/v1/datasets/status",
        "GET /api/v1/datasets/{dataset_id}/data",
        "GET /api/v1/datasets/{dataset_id}/grants",
        "GET /api/v1/datasets/{dataset_id}/has-data",
        "GET /api/v1/graph",
        "GET /api/v1/graph/view",
        "GET /api/v1/improve/runs",
        "GET /api/v1/nodes/{node_id}",
        "GET /api/v1/runs/{run_id}",
        "GET /api/v1/sessions",
        "GET /api/v1/sessions/{session_id}/entries",
        "GET /api/v1/sessions/{session_id}/traces",
        "GET /api/v1/skills/{skill_id}",
        "GET /api/v1/tenants",
        "GET /api/v1/tools/sql-connections",
        "GET /api/v1/tools/write-proposals",
        "GET /api/v1/users",
        "GET /api/v1/users/me",
        "GET /api/v1/users/{user_id}/api-keys",
        "POST /api/v1/add",
        "POST /api/v1/cognify",
        "POST /api/v1/conflicts/{conflict_id}/resolve",
        "POST /api/v1/datasets",
        "POST /api/v1/datasets/{dataset_id}/grants",
        "POST /api/v1/forget",
        "POST /api/v1/improve",
        "POST /api/v1/recall",
        "POST /api/v1/remember",
        "POST /api/v1/roles",
        "POST /api/v1/roles/{role_id}/users",
        "POST /api/v1/search",
        "POST /api/v1/sessions/{session_id}/distill",
        "POST /api/v1/sessions/{session_id}/entries",
        "POST /api/v1/sessions/{session_id}/feedback",
        "POST /api/v1/sessions/{session_id}/guidance",
        "POST /api/v1/sessions/{session_id}/traces",
        "POST /api/v1/skills",
        "POST /api/v1/skills/markdown",
        "POST /api/v1/tenants",
        "POST /api/v1/tenants/select",
        "POST /api/v1/tenants/{tenant_id}/users",
        "POST /api/v1/tools/sql-connections",
        "POST /api/v1/tools/write-proposals",
        "POST /api/v1/tools/write-proposals/{proposal_id}/apply",
        "POST /api/v1/tools/write-proposals/{proposal_id}/reject",
        "POST /api/v1/users",
        "POST /api/v1/users/{user_id}/api-keys",
    ]


def _same_refusal(a: httpx.Response, b: httpx.Response, a_id: str, b_id: str) -> None:
    """Two answers are indistinguishable once the id each one named is blanked out."""
    assert a.status_code == b.status_code and a.status_code in (403, 404), (a.text, b.text)
    body_a, body_b = a.json(), b.json()
    body_a["detail"] = body_a["detail"].replace(a_id, "ID")
    body_b["detail"] = body_b["detail"].replace(b_id, "ID")
    body_a.pop("missing", None), body_b.pop("missing", None)
    assert body_a == body_b


def test_another_users_ids_look_exactly_like_unknown_ids(
    live_server: LiveServer, alice: Account, bob: Account
) -> None:
    from engramdb.engine import get_engine

    engine = get_engine()

    with live_server.client(alice) as a_client:
        added = a_client.post(
            "/api/v1/remember",
            json={"data": "Alice's diary: the code is 4711.", "dataset_name": "diary"},
        ).json()
        started = a_client.post(
            "/api/v1/remember",
            json={"data": "More diary.", "dataset_name": "diary", "run_in_background": True},
        ).json()
    skill = live_server.call(engine.remember_skill("s", "a skill", "body", user=alice.user))
    qa_id = live_server.call(
        engine.session.add_qa("s1", "q?", "a.", feedback_score=5, user=alice.user)
    )
    node = live_server.call(engine.get_graph(["diary"], user=alice.user)).nodes[0]
    real = {
        "dataset": added["dataset_id"],
        "data": added["data_ids"][0],
        "skill": str(skill.id),
        "run": started["run_id"],
        "qa": qa_id,
        "node": str(node.id),
    }
    fake = {k: str(uuid4()) for k in real}

    def probes(ids: dict[str, str]) -> list[tuple[str, str, dict[str, Any] | None, str]]:
        ds = ids["dataset"]
        return [
            ("POST", "/api/v1/recall", {"query_text": "code", "dataset_ids": [ds]}, ds),
            ("POST", "/api/v1/improve", {"dataset_id": ds}, ds),
            ("POST", "/api/v1/forget", {"dataset_id": ds}, ds),
            ("POST", "/api/v1/forget", {"data_id": ids["data"]}, ids["data"]),
            ("DELETE", f"/api/v1/datasets/{ds}", None, ds),
            ("GET", f"/api/v1/datasets/{ds}/grants", None, ds),
            (
                "POST",
                f"/api/v1/datasets/{ds}/grants",
                {"grantee_id": str(uuid4()), "permission": "read"},
                ds,
            ),
            ("DELETE", f"/api/v1/datasets/{ds}/grants/{uuid4()}/read", None, ds),
            ("GET", "/api/v1/conflicts", None, ds),
            ("GET", "/api/v1/improve/runs", None, ds),
            ("GET", f"/api/v1/skills/{ids['skill']}", None, ids["skill"]),
            ("GET", f"/api/v1/runs/{ids['run']}", None, ids["run"]),
            ("GET", f"/api/v1/graph?dataset_ids={ds}", None, ds),
            ("GET", f"/api/v1/nodes/{ids['node']}", None, ids["node"]),
            ("DELETE", f"/api/v1/sessions/s1/entries/{ids['qa']}/feedback", None, ids["qa"]),
        ]

    with live_server.client(bob) as b_client:
        for real_probe, fake_probe in zip(probes(real), probes(fake), strict=True):
            method, path, body, real_id = real_probe
            params = {"dataset_id": real_id} if path in _BY_QUERY else None
            got_real = b_client.request(method, path, json=body, params=params)
            method, path, body, fake_id = fake_probe
            params = {"dataset_id": fake_id} if path in _BY_QUERY else None
            got_fake = b_client.request(method, path, json=body, params=params)
            _same_refusal(got_real, got_fake, real_id, fake_id)
        # and nothing of Alice's leaks into Bob's own view of the world
        assert b_client.get("/api/v1/datasets").json() == []
        assert b_client.post("/api/v1/recall", json={"query_text": "diary code 4711"}).json() == []
        assert b_client.get("/api/v1/sessions/s1/entries").json() == []
        assert b_client.get("/api/v1/sessions").json() == []
        assert b_client.get("/api/v1/sessions/s1/traces").json() == []
        assert b_client.delete("/api/v1/sessions/s1").json() is False
        assert b_client.get("/api/v1/graph").json() == {
            "nodes": [],
            "edges": [],
            "truncated": False,
        }
    with live_server.client(alice) as a_client:  # Bob changed nothing
        hits = a_client.post(
            "/api/v1/recall", json={"query_text": "4711", "query_type": "CHUNKS_LEXICAL"}
        ).json()
        assert hits and "4711" in hits[0]["text"]
        (entry,) = a_client.get("/api/v1/sessions/s1/entries").json()
        assert entry["feedback_score"] == 5


def _nothing_written(client: httpx.Client) -> None:
    assert client.get("/api/v1/datasets").json() == []


@pytest.mark.parametrize(
    "name",
    [
        "x'; DROP TABLE users; --",
        "../../etc",
        "a/b",
        "name\x00null",
        '" OR ""="',
        "%2e%2e%2f",
        "",
        " padded ",
    ],
)
def test_hostile_dataset_names_are_refused(
    live_server: LiveServer, alice: Account, name: str
) -> None:
    with live_server.client(alice) as client:
        response = client.post("/api/v1/remember", json={"data": "text", "dataset_name": name})
        assert response.status_code == 422, response.text
        assert client.post("/api/v1/datasets", json={"name": name}).status_code == 422
        _nothing_written(client)


@pytest.mark.parametrize(
    "filename",
    ["../evil.md", "..\\evil.md", "/etc/passwd.txt", "sub/dir.md", ".hidden.md", "a\x00.md", ".."],
)
def test_path_traversal_in_uploaded_file_names_is_refused(
    live_server: LiveServer, alice: Account, filename: str
) -> None:
    boundary = "engramdb-test-boundary"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{filename}"'
        f"\r\nContent-Type: text/plain\r\n\r\nSome text.\r\n--{boundary}--\r\n"
    ).encode()
    with live_server.client(alice) as client:
        response = client.post(
            "/api/v1/remember",
            content=body,
            headers={"content-type": f"multipart/form-data; boundary={boundary}"},
        )
        assert 400 <= response.status_code < 500, response.text
        _nothing_written(client)


def test_a_text_naming_a_server_path_is_not_read(
    live_server: LiveServer, alice: Account, tmp_path: Any
) -> None:
    secret = tmp_path / "server-secret.txt"
    secret.write_text("the server's private key")
    with live_server.client(alice) as client:
        for data in (str(secret), [str(tmp_path)], f"file://{secret}"):
            response = client.post("/api/v1/remember", json={"data": data})
            assert response.status_code == 422, response.text
        _nothing_written(client)


def test_oversized_deep_and_undecodable_bodies_are_refused(
    alice: Account, isolated_config: Any
) -> None:
    from engramdb.server.limits import Limits

    server = LiveServer(limits=Limits(max_json_bytes=64 * 1024, max_upload_bytes=128 * 1024))
    server.start()
    try:
        account = server.account("carol@example.com")
        with server.client(account) as client:
            big = client.post("/api/v1/remember", json={"data": "x" * 100_000})
            assert big.status_code == 413
            upload = client.post("/api/v1/remember", files=[("files", ("big.txt", b"y" * 200_000))])
            assert upload.status_code == 413
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
                raw.sendall(
                    b"POST /api/v1/remember HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{}"
                )
                assert raw.recv(100).startswith(b"HTTP/1.1 413")
            deep = "[" * 5000 + "]" * 5000
            nested = client.post(
                "/api/v1/recall",
                content=deep.encode(),
                headers={"content-type": "application/json"},
            )
            assert nested.status_code == 422
            metadata = {"data": "t", "external_metadata": {"a": {"b": {"c": {}}}}}
            node: dict[str, Any] = metadata["external_metadata"]  # type: ignore[assignment]
            for _ in range(60):
                node["n"] = {}
                node = node["n"]
            assert client.post("/api/v1/remember", json=metadata).status_code == 422
            invalid = client.post(
                "/api/v1/remember",
                content=b'{"data": "caf\xe9 \xff"}',
                headers={"content-type": "application/json"},
            )
            assert invalid.status_code == 422
            lone = client.post(
                "/api/v1/remember",
                content=b'{"data": "\\ud800 lone surrogate"}',
                headers={"content-type": "application/json"},
            )
            assert lone.status_code == 422
            not_json = client.post(
                "/api/v1/recall", content=b"{nope", headers={"content-type": "application/json"}
            )
            assert not_json.status_code == 422
            _nothing_written(client)
    finally:
        server.stop()


def test_the_longest_query_string_the_api_documents_gets_an_answer(
    live_server: LiveServer, alice: Account
) -> None:
    """1,000 dataset names of 128 four-byte characters beside 1,000 ids (the schema's bounds),
    sent in small pieces as a slow network delivers them: the server answers the request
    instead of dropping the connection halfway (uvicorn's default head limit is 16 KiB)."""
    from urllib.parse import urlencode

    bounds = _DOC["paths"]["/api/v1/graph/view"]["get"]["parameters"]
    names = next(p for p in bounds if p["name"] == "datasets")["schema"]["anyOf"][0]
    count, length = names["maxItems"], names["items"]["maxLength"]
    query = urlencode(
        [("datasets", "\U0001f989" * length)] * count
        + [("dataset_ids", str(uuid4())) for _ in range(count)],
    )
    head = (
        f"GET /api/v1/graph/view?{query} HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {alice.key}\r\nConnection: close\r\n\r\n"
    ).encode()
    assert len(head) > 1024 * 1024
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=30) as raw:
        for start in range(0, len(head), 16 * 1024):
            raw.sendall(head[start : start + 16 * 1024])
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    status = answer.split(b"\r\n", 1)[0]
    assert status.startswith(b"HTTP/1.1 4"), status  # refused by the route, unknown datasets
    assert b"datasets" in answer.split(b"\r\n\r\n", 1)[1], answer[:300]
