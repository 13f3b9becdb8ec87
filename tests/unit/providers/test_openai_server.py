"""The OpenAI test server itself: defaults, scripting and recording, through httpx."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.support.openai_server import OpenAIServer, Reply, vector_for


def test_base_url_and_default_embeddings(openai_server: OpenAIServer) -> None:
    assert openai_server.base_url == f"http://127.0.0.1:{openai_server.port}/v1"
    response = httpx.post(
        f"{openai_server.base_url}/embeddings", json={"model": "m", "input": ["a", "b"]}
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert [item["index"] for item in data] == [0, 1]
    assert data[1]["embedding"] == vector_for("b", 8)
    (request,) = openai_server.requests
    assert request.path == "/v1/embeddings"
    assert request.json == {"model": "m", "input": ["a", "b"]}
    assert request.headers["content-type"] == "application/json"


def test_default_chat_completion(openai_server: OpenAIServer) -> None:
    openai_server.chat_text = "forty-two"
    response = httpx.post(
        f"{openai_server.base_url}/chat/completions",
        json={"model": "c", "messages": [{"role": "user", "content": "?"}]},
    )
    body = response.json()
    assert body["choices"][0]["message"]["content"] == "forty-two"
    assert body["model"] == "c"


def test_streamed_chat_completion(openai_server: OpenAIServer) -> None:
    openai_server.chat_text = "streamed"
    with httpx.stream(
        "POST",
        f"{openai_server.base_url}/chat/completions",
        json={"model": "c", "messages": [], "stream": True},
    ) as response:
        lines = [line for line in response.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    text = "".join(
        json.loads(line[6:])["choices"][0]["delta"].get("content", "") for line in lines[:-1]
    )
    assert text == "streamed"


def test_script_queue_is_per_route_and_consumed_in_order(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", Reply.error(429, "slow"), Reply.raw("not json", 200))
    openai_server.enqueue("/v1/chat/completions", Reply.json({"ok": True}, 201))
    url = openai_server.base_url
    assert httpx.post(f"{url}/chat/completions", json={}).status_code == 201
    first = httpx.post(f"{url}/embeddings", json={"input": "x"})
    assert first.status_code == 429
    assert first.json()["error"]["message"] == "slow"
    assert httpx.post(f"{url}/embeddings", json={"input": "x"}).text == "not json"
    assert openai_server.pending("embeddings") == 0
    assert httpx.post(f"{url}/embeddings", json={"input": "x"}).status_code == 200
    assert len(openai_server.requests_to("embeddings")) == 3


def test_callable_reply_sees_the_request(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", lambda request: Reply.json({"echo": request.json}))
    response = httpx.post(f"{openai_server.base_url}/embeddings", json={"input": "hi"})
    assert response.json() == {"echo": {"input": "hi"}}


def test_delay_and_drop(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", Reply.sleep(2.0), Reply.drop())
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{openai_server.base_url}/embeddings", json={"input": "x"}, timeout=0.2)
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(f"{openai_server.base_url}/embeddings", json={"input": "x"})
    assert len(openai_server.requests) == 2


def test_required_api_key() -> None:
    with OpenAIServer(required_api_key="right-key") as server:
        url = f"{server.base_url}/embeddings"
        denied = httpx.post(url, json={"input": "x"}, headers={"Authorization": "Bearer wrong"})
        assert denied.status_code == 401
        assert "wrong" in denied.json()["error"]["message"]
        allowed = httpx.post(
            url, json={"input": "x"}, headers={"Authorization": "Bearer right-key"}
        )
        assert allowed.status_code == 200


def test_unknown_route_is_404(openai_server: OpenAIServer) -> None:
    response = httpx.get(f"{openai_server.base_url}/nothing-here")
    assert response.status_code == 404
    assert "error" in response.json()


def test_stop_releases_a_sleeping_request() -> None:
    server = OpenAIServer().start()
    server.enqueue("embeddings", Reply.sleep(30.0))
    import threading
    import time

    errors: list[BaseException] = []

    def call() -> None:
        try:
            httpx.post(f"{server.base_url}/embeddings", json={"input": "x"}, timeout=10)
        except httpx.HTTPError as exc:
            errors.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    time.sleep(0.2)
    started = time.monotonic()
    server.stop()
    thread.join(timeout=5)
    assert time.monotonic() - started < 3
    assert errors  # the client saw the connection close
