"""OpenAICompatibleLLM through the real openai SDK against the local OpenAI test server."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from engramdb.errors import (
    ConfigurationError,
    LLMOutputError,
    LLMPaymentRequiredError,
    LLMProviderError,
)
from engramdb.providers.llm import ChatMessage, OpenAICompatibleLLM
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

ROUTE = "chat/completions"
MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You answer in JSON."},
    {"role": "user", "content": "Who founded Acme?"},
]


class Founder(BaseModel):
    name: str
    year: int


def make(server: OpenAIServer, **kwargs: Any) -> OpenAICompatibleLLM:
    options: dict[str, Any] = {"base_url": server.base_url, "backoff": 0.01, "timeout": 5.0}
    options.update(kwargs)
    return OpenAICompatibleLLM("test-chat", **options)


def answer(server: OpenAIServer, text: str, *, prompt: int = 11, completion: int = 7) -> Reply:
    document = server.chat_document(text)
    document["usage"] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    return Reply.json(document)


def closed_port() -> int:
    with socket.socket() as probe:  # nothing listens there once the socket is closed
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# --- structured output ----------------------------------------------------------------------


async def test_structured_answer_is_parsed_and_json_schema_requested(
    openai_server: OpenAIServer,
) -> None:
    openai_server.enqueue(ROUTE, answer(openai_server, '{"name": "Ada", "year": 1901}'))
    llm = make(openai_server, api_key="sk-test-abcdefgh12345678")
    value, stats = await llm.structured(MESSAGES, Founder)
    await llm.close()

    assert value == Founder(name="Ada", year=1901)
    assert (stats.calls, stats.prompt_tokens, stats.completion_tokens) == (1, 11, 7)
    assert (stats.retries, stats.cache_hits) == (0, 0)
    (request,) = openai_server.requests_to(ROUTE)
    body = request.json
    assert body["model"] == "test-chat"
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0.0
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "Founder",
            "schema": Founder.model_json_schema(),
            "strict": False,
        },
    }
    assert request.headers["authorization"] == "Bearer sk-test-abcdefgh12345678"
    assert llm.structured_mode == "json_schema"
    assert llm.totals.calls == 1


async def test_json_schema_rejected_falls_back_to_json_mode_and_remembers(
    openai_server: OpenAIServer,
) -> None:
    openai_server.enqueue(
        ROUTE,
        Reply.error(
            400,
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported",
            type_="invalid_request_error",
        ),
        answer(openai_server, '{"name": "Ada", "year": 1901}'),
        answer(openai_server, '{"name": "Bob", "year": 1902}'),
    )
    llm = make(openai_server)
    first, stats = await llm.structured(MESSAGES, Founder)
    second, _ = await llm.structured(MESSAGES, Founder)
    await llm.close()

    assert (first.name, second.name) == ("Ada", "Bob")
    assert stats.calls == 1  # the rejected request produced no completion
    assert llm.structured_mode == "json_object"
    rejected, fallback, remembered = openai_server.requests_to(ROUTE)
    assert rejected.json["response_format"]["type"] == "json_schema"
    for request in (fallback, remembered):  # the second call went straight to JSON mode
        assert request.json["response_format"] == {"type": "json_object"}
        system = request.json["messages"][0]
        assert system["role"] == "system"
        assert system["content"].startswith("You answer in JSON.")
        assert "JSON Schema" in system["content"]
        assert '"year"' in system["content"]
        assert request.json["messages"][1:] == MESSAGES[1:]


async def test_json_mode_rejected_too_falls_back_to_the_prompt_alone(
    openai_server: OpenAIServer,
) -> None:
    openai_server.enqueue(
        ROUTE,
        Reply.error(400, "response_format json_schema is unsupported"),
        Reply.error(400, "'response_format.type' must be 'json_schema' or 'text'"),
        answer(openai_server, '{"name": "Ada", "year": 1901}'),
    )
    llm = make(openai_server)
    value, _ = await llm.structured(MESSAGES, Founder)
    await llm.close()
    assert value.name == "Ada"
    assert llm.structured_mode == "prompt"
    last = openai_server.requests_to(ROUTE)[-1]
    assert "response_format" not in last.json
    assert "JSON Schema" in last.json["messages"][0]["content"]


async def test_unrelated_400_is_not_a_format_fallback(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.error(400, "context length exceeded"))
    llm = make(openai_server)
    with pytest.raises(LLMProviderError, match=r"HTTP 400.*context length exceeded"):
        await llm.structured(MESSAGES, Founder)
    await llm.close()
    assert len(openai_server.requests) == 1
    assert llm.structured_mode == "json_schema"


async def test_rejected_temperature_is_dropped_and_remembered(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        ROUTE,
        Reply.error(400, "Unsupported value: 'temperature' does not support 0.0 with this model"),
    )
    llm = make(openai_server)
    first = await llm.complete(MESSAGES)
    await llm.complete(MESSAGES)
    await llm.close()
    assert first.text == openai_server.chat_text
    requests = openai_server.requests_to(ROUTE)
    assert [("temperature" in r.json) for r in requests] == [True, False, False]


async def test_malformed_json_is_repaired_in_one_more_call(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        ROUTE,
        answer(openai_server, '{"name": "Ada", "year": 19'),
        answer(openai_server, '{"name": "Ada", "year": 1901}'),
    )
    llm = make(openai_server)
    value, stats = await llm.structured(MESSAGES, Founder)
    await llm.close()

    assert value == Founder(name="Ada", year=1901)
    assert stats.calls == 2
    assert (stats.prompt_tokens, stats.completion_tokens) == (22, 14)
    _, repair = openai_server.requests_to(ROUTE)
    messages = repair.json["messages"]
    assert messages[:2] == MESSAGES
    assert messages[2] == {"role": "assistant", "content": '{"name": "Ada", "year": 19'}
    assert messages[3]["role"] == "user"
    assert "could not be used" in messages[3]["content"]
    assert "JSON" in messages[3]["content"]


async def test_schema_violation_twice_raises_llm_output_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        ROUTE,
        answer(openai_server, '{"name": "Ada", "year": "long ago"}'),
        answer(openai_server, '{"name": "Ada"}'),
    )
    llm = make(openai_server)
    with pytest.raises(LLMOutputError) as info:
        await llm.structured(MESSAGES, Founder)
    await llm.close()

    assert len(openai_server.requests_to(ROUTE)) == 2
    assert info.value.stats.calls == 2
    assert isinstance(info.value, LLMProviderError)  # callers catching provider errors see it
    assert "Founder" in str(info.value)
    assert "year" in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"name": "Ada", "year": 1901}\n```',
        '<think>The user wants JSON.</think>\n{"name": "Ada", "year": 1901}',
        'Sure! Here it is: {"name": "Ada", "year": 1901} Hope that helps.',
    ],
)
async def test_json_wrapped_in_fences_thoughts_or_prose_is_accepted(
    openai_server: OpenAIServer, text: str
) -> None:
    openai_server.enqueue(ROUTE, answer(openai_server, text))
    llm = make(openai_server)
    value, stats = await llm.structured(MESSAGES, Founder)
    await llm.close()
    assert value == Founder(name="Ada", year=1901)
    assert stats.calls == 1


# --- free text --------------------------------------------------------------------------------


async def test_complete_returns_text_and_usage(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, answer(openai_server, "Acme was founded by Ada.", prompt=30))
    llm = make(openai_server)
    completion = await llm.complete(MESSAGES, temperature=0.3, max_tokens=50)
    await llm.close()
    assert completion.text == "Acme was founded by Ada."
    assert completion.finish_reason == "stop"
    assert (completion.stats.calls, completion.stats.prompt_tokens) == (1, 30)
    (request,) = openai_server.requests_to(ROUTE)
    assert request.json["temperature"] == 0.3
    assert request.json["max_tokens"] == 50
    assert "response_format" not in request.json
    assert request.headers["authorization"].startswith("Bearer ")  # a placeholder: no key given


async def test_sdk_environment_variables_are_ignored(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-123456")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-environment")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-environment")
    llm = make(openai_server)
    await llm.complete(MESSAGES)
    await llm.close()
    (request,) = openai_server.requests_to(ROUTE)
    assert "sk-from-the-environment" not in request.headers["authorization"]
    assert "openai-organization" not in request.headers
    assert "openai-project" not in request.headers


# --- retries and errors -------------------------------------------------------------------------


async def test_429_is_retried_and_counted(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        ROUTE,
        Reply.error(429, "rate limited", headers={"Retry-After": "0"}),
        answer(openai_server, '{"name": "Ada", "year": 1901}'),
    )
    llm = make(openai_server)
    value, stats = await llm.structured(MESSAGES, Founder)
    await llm.close()
    assert value.name == "Ada"
    assert (stats.calls, stats.retries) == (1, 1)
    assert len(openai_server.requests) == 2
    assert llm.totals.retries == 1


async def test_500_then_success(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.error(500, "internal"))
    llm = make(openai_server)
    completion = await llm.complete(MESSAGES)
    await llm.close()
    assert completion.text == openai_server.chat_text
    assert completion.stats.retries == 1
    assert len(openai_server.requests) == 2


async def test_gives_up_after_max_retries(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, *[Reply.error(503, "overloaded")] * 3)
    llm = make(openai_server, max_retries=2)
    with pytest.raises(LLMProviderError) as info:
        await llm.complete(MESSAGES)
    await llm.close()
    assert type(info.value) is LLMProviderError
    assert len(openai_server.requests) == 3
    message = str(info.value)
    assert "3 attempt(s)" in message
    assert "HTTP 503" in message
    assert "overloaded" in message
    assert isinstance(info.value.__cause__, openai.InternalServerError)


async def test_402_raises_payment_required_without_retry(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.error(402, "You exceeded your current quota"))
    llm = make(openai_server, max_retries=5)
    with pytest.raises(LLMPaymentRequiredError) as info:
        await llm.structured(MESSAGES, Founder)
    await llm.close()
    assert len(openai_server.requests) == 1
    assert info.value.status_code == 402
    assert "exceeded your current quota" in str(info.value)
    assert isinstance(info.value.__cause__, openai.APIStatusError)


async def test_402_fails_queued_calls_without_sending_them(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.error(402, "budget exhausted", headers={}))
    llm = make(openai_server, max_concurrency=1)
    outcomes = await asyncio.gather(
        *(llm.complete(MESSAGES) for _ in range(3)), return_exceptions=True
    )
    assert all(isinstance(o, LLMPaymentRequiredError) for o in outcomes)
    assert len(openai_server.requests) == 1
    later = await llm.complete(MESSAGES)  # a new call tries again: credit may have been added
    await llm.close()
    assert later.text == openai_server.chat_text
    assert len(openai_server.requests) == 2


@pytest.mark.parametrize("status", [401, 403])
@pytest.mark.parametrize(
    "api_key", ["sk-proj-SECRETsecret1234567890", "plain-custom-key-without-prefix"]
)
async def test_auth_errors_fail_at_once_without_leaking_the_key(
    openai_server: OpenAIServer, status: int, api_key: str
) -> None:
    # Real providers echo (part of) the presented key in their message.
    openai_server.enqueue(
        ROUTE,
        Reply.error(status, f"Incorrect API key provided: {api_key}.", type_="auth_error"),
    )
    llm = make(openai_server, api_key=api_key, max_retries=3)
    with pytest.raises(LLMProviderError) as info:
        await llm.complete(MESSAGES)
    await llm.close()
    assert len(openai_server.requests) == 1
    message = str(info.value)
    assert "LLM_API_KEY" in message
    assert str(status) in message
    assert api_key not in message
    assert not isinstance(info.value, LLMPaymentRequiredError)


async def test_404_names_the_settings(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.error(404, "model 'nope' not found"))
    llm = make(openai_server)
    with pytest.raises(LLMProviderError, match=r"HTTP 404.*not found.*LLM_MODEL"):
        await llm.complete(MESSAGES)
    await llm.close()
    assert len(openai_server.requests) == 1


async def test_body_that_is_not_json_is_a_provider_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.raw('{"choices": [{"mess'))
    llm = make(openai_server)
    with pytest.raises(LLMProviderError, match="not JSON"):
        await llm.complete(MESSAGES)
    await llm.close()


async def test_answer_without_choices_is_a_provider_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.json({"object": "chat.completion"}))
    llm = make(openai_server)
    with pytest.raises(LLMProviderError, match="without any choice"):
        await llm.complete(MESSAGES)
    await llm.close()


async def test_timeout_is_retried_then_fails(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, *[Reply.sleep(3.0)] * 2)
    llm = make(openai_server, timeout=0.2, max_retries=1)
    started = time.monotonic()
    with pytest.raises(LLMProviderError, match="timed out") as info:
        await llm.complete(MESSAGES)
    await llm.close()
    assert time.monotonic() - started < 2.5
    assert len(openai_server.requests) == 2
    assert isinstance(info.value.__cause__, openai.APITimeoutError)


async def test_dropped_connection_is_retried(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.drop())
    llm = make(openai_server)
    completion = await llm.complete(MESSAGES)
    await llm.close()
    assert completion.text == openai_server.chat_text
    assert completion.stats.retries == 1


async def test_connection_refused_is_a_provider_error() -> None:
    llm_fast = OpenAICompatibleLLM(
        "m", base_url=f"http://127.0.0.1:{closed_port()}/v1", max_retries=1, backoff=0.01
    )
    with pytest.raises(LLMProviderError, match="connection error") as info:
        await llm_fast.complete(MESSAGES)
    assert isinstance(info.value.__cause__, openai.APIConnectionError)
    assert "2 attempt(s)" in str(info.value)
    llm = OpenAICompatibleLLM(
        "m",
        base_url=f"http://user:pa55word@127.0.0.1:{closed_port()}/v1",
        max_retries=0,
    )
    with pytest.raises(LLMProviderError) as info:
        await llm.complete(MESSAGES)
    assert "pa55word" not in str(info.value)
    await llm.close()
    await llm_fast.close()


# --- concurrency and event loops --------------------------------------------------------------


async def test_concurrency_bound_is_respected(openai_server: OpenAIServer) -> None:
    lock = threading.Lock()
    in_flight = 0
    peak = 0

    def slow(request: RecordedRequest) -> Reply:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.15)
        with lock:
            in_flight -= 1
        return Reply.json(openai_server.chat_document("ok"))

    openai_server.set_default(ROUTE, slow)
    llm = make(openai_server, max_concurrency=2)
    results = await asyncio.gather(*(llm.complete(MESSAGES) for _ in range(6)))
    await llm.close()
    assert [r.text for r in results] == ["ok"] * 6
    assert peak == 2
    assert len(openai_server.requests) == 6


# A client made in one asyncio.run cannot be closed from the next one; its sockets are reclaimed
# by the garbage collector, which warns. Collect here so the warning stays in this test.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_works_across_event_loops(openai_server: OpenAIServer) -> None:
    llm = make(openai_server, max_concurrency=1)
    first = asyncio.run(llm.complete(MESSAGES))
    second = asyncio.run(llm.complete(MESSAGES))
    assert first.text == second.text == openai_server.chat_text
    asyncio.run(llm.close())
    gc.collect()


# --- construction -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"base_url": "api.openai.com/v1"}, "not an http"),
        ({"model": " "}, "LLM_MODEL"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"backoff": -1}, "backoff"),
    ],
)
def test_constructor_validation(kwargs: dict[str, Any], fragment: str) -> None:
    options: dict[str, Any] = {"model": "m", "base_url": "http://127.0.0.1:1/v1"}
    options.update(kwargs)
    model = options.pop("model")
    with pytest.raises(ConfigurationError, match=fragment):
        OpenAICompatibleLLM(model, **options)


def test_default_base_url_is_openai() -> None:
    llm = OpenAICompatibleLLM("gpt-4o-mini", api_key="sk-x")
    assert llm.base_url == "https://api.openai.com/v1"
