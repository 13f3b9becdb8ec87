"""OpenAICompatibleEmbedder through the real httpx client against the local OpenAI test server."""

from __future__ import annotations

import asyncio
import gc
import socket
import time

import httpx
import numpy as np
import pytest

from engramdb.errors import ConfigurationError, EmbeddingProviderError
from engramdb.providers.embedding import OpenAICompatibleEmbedder
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply, vector_for

DIM = 8


def make(server: OpenAIServer, **kwargs: object) -> OpenAICompatibleEmbedder:
    options: dict[str, object] = {"dimension": DIM, "backoff": 0.01, "timeout": 5.0}
    options.update(kwargs)
    api_key = str(options.pop("api_key", ""))
    return OpenAICompatibleEmbedder(
        server.base_url,
        "test-embedding",
        api_key,
        **options,  # type: ignore[arg-type]
    )


def expected(texts: list[str]) -> np.ndarray:
    return np.array([vector_for(t, DIM) for t in texts], dtype=np.float32)


async def test_success_returns_unit_rows_in_input_order(openai_server: OpenAIServer) -> None:
    texts = ["first text", "second text", "third text"]

    def reversed_answer(request: RecordedRequest) -> Reply:
        document = openai_server.embedding_document(request.json["input"])
        document["data"].reverse()  # the server may answer in any order; "index" is the truth
        return Reply.json(document)

    openai_server.enqueue("embeddings", reversed_answer)
    embedder = make(openai_server, api_key="sk-test-abcdefgh12345678")
    try:
        vectors = await embedder.embed(texts)
    finally:
        await embedder.close()

    assert vectors.shape == (3, DIM)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)

    (request,) = openai_server.requests_to("embeddings")
    assert request.method == "POST"
    assert request.path == "/v1/embeddings"
    assert request.headers["authorization"] == "Bearer sk-test-abcdefgh12345678"
    assert request.json == {"model": "test-embedding", "input": texts, "encoding_format": "float"}
    assert embedder.model_name == "test-embedding"
    assert embedder.dimension == DIM


async def test_vectors_are_l2_normalised(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        "embeddings", Reply.json({"data": [{"index": 0, "embedding": [3.0, 4.0] + [0.0] * 6}]})
    )
    embedder = make(openai_server)
    vectors = await embedder.embed(["x"])
    await embedder.close()
    np.testing.assert_allclose(vectors[0, :2], [0.6, 0.8], atol=1e-6)


async def test_no_authorization_header_without_key(openai_server: OpenAIServer) -> None:
    embedder = make(openai_server)
    await embedder.embed(["a"])
    await embedder.close()
    assert "authorization" not in openai_server.requests[0].headers


async def test_batches_and_keeps_order_across_batches(openai_server: OpenAIServer) -> None:
    texts = [f"text number {i}" for i in range(5)]
    embedder = make(openai_server, batch_size=2)
    vectors = await embedder.embed(texts)
    await embedder.close()
    assert [r.json["input"] for r in openai_server.requests] == [texts[0:2], texts[2:4], texts[4:]]
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)


async def test_empty_input_makes_no_request(openai_server: OpenAIServer) -> None:
    embedder = make(openai_server)
    vectors = await embedder.embed([])
    assert vectors.shape == (0, DIM)
    assert openai_server.requests == []


async def test_empty_text_is_sent_as_a_space(openai_server: OpenAIServer) -> None:
    embedder = make(openai_server)
    await embedder.embed(["", "b"])
    await embedder.close()
    assert openai_server.requests[0].json["input"] == [" ", "b"]


@pytest.mark.parametrize("status", [429, 500, 502, 503])
async def test_transient_status_is_retried(openai_server: OpenAIServer, status: int) -> None:
    openai_server.enqueue("embeddings", Reply.error(status, "try again later"))
    embedder = make(openai_server)
    vectors = await embedder.embed(["hello"])
    await embedder.close()
    assert len(openai_server.requests) == 2
    np.testing.assert_allclose(vectors, expected(["hello"]), atol=1e-6)


async def test_retry_after_header_is_honoured(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        "embeddings", Reply.error(429, "slow down", headers={"Retry-After": "0.3"})
    )
    embedder = make(openai_server)
    started = time.monotonic()
    await embedder.embed(["hello"])
    await embedder.close()
    assert time.monotonic() - started >= 0.3
    assert len(openai_server.requests) == 2


async def test_gives_up_after_max_retries(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", *[Reply.error(503, "overloaded")] * 3)
    embedder = make(openai_server, max_retries=2)
    with pytest.raises(EmbeddingProviderError) as info:
        await embedder.embed(["hello"])
    await embedder.close()
    assert len(openai_server.requests) == 3
    assert "3 attempt" in str(info.value)
    assert "HTTP 503" in str(info.value)
    assert "overloaded" in str(info.value)


@pytest.mark.parametrize(
    "api_key", ["sk-proj-SECRETsecret1234567890", "plain-custom-key-without-prefix"]
)
async def test_401_fails_at_once_without_leaking_the_key(
    openai_server: OpenAIServer, api_key: str
) -> None:
    # Real providers echo (part of) the presented key in their 401 message.
    openai_server.enqueue(
        "embeddings",
        Reply.error(401, f"Incorrect API key provided: {api_key}.", type_="invalid_request_error"),
    )
    embedder = make(openai_server, api_key=api_key)
    with pytest.raises(EmbeddingProviderError) as info:
        await embedder.embed(["hello"])
    await embedder.close()
    assert len(openai_server.requests) == 1  # not retried
    message = str(info.value)
    assert "401" in message
    assert api_key not in message
    assert "EMBEDDING_API_KEY" in message
    assert info.value.status_code == 502


async def test_other_4xx_fails_at_once(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", Reply.error(400, "model 'x' not found"))
    embedder = make(openai_server)
    with pytest.raises(EmbeddingProviderError, match=r"HTTP 400.*model 'x' not found"):
        await embedder.embed(["hello"])
    await embedder.close()
    assert len(openai_server.requests) == 1


async def test_malformed_json_is_an_error(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", Reply.raw('{"data": [{"index": 0, "embedd'))
    embedder = make(openai_server)
    with pytest.raises(EmbeddingProviderError, match="not JSON") as info:
        await embedder.embed(["hello"])
    await embedder.close()
    assert isinstance(info.value.__cause__, ValueError)


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        ({"object": "list"}, "no 'data' list"),
        ([1, 2], "no 'data' list"),
        ({"data": []}, "0 embeddings for 1 inputs"),
        ({"data": [{"index": 1, "embedding": [1.0] * DIM}]}, "not a permutation"),
        ({"data": [{"index": 0, "embedding": "AAAA"}]}, "not a list of numbers"),
        ({"data": [{"index": 0, "embedding": ["a"] * DIM}]}, "non-numbers"),
        ({"data": [{"index": 0, "embedding": [0.0] * DIM}]}, "all zeros"),
    ],
)
async def test_invalid_documents_are_errors(
    openai_server: OpenAIServer, document: object, fragment: str
) -> None:
    openai_server.enqueue("embeddings", Reply.json(document))
    embedder = make(openai_server)
    with pytest.raises(EmbeddingProviderError, match=fragment):
        await embedder.embed(["hello"])
    await embedder.close()


async def test_wrong_dimension_names_the_setting(openai_server: OpenAIServer) -> None:
    openai_server.embedding_dimension = 12
    embedder = make(openai_server)
    with pytest.raises(EmbeddingProviderError) as info:
        await embedder.embed(["hello"])
    await embedder.close()
    message = str(info.value)
    assert "EMBEDDING_DIMENSIONS=8 does not match what the endpoint returns" in message
    assert "dimension 12" in message
    assert len(openai_server.requests) == 1


async def test_timeout_is_retried_then_fails(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", *[Reply.sleep(3.0)] * 2)
    embedder = make(openai_server, timeout=0.2, max_retries=1)
    started = time.monotonic()
    with pytest.raises(EmbeddingProviderError, match="timed out") as info:
        await embedder.embed(["hello"])
    await embedder.close()
    assert time.monotonic() - started < 2.5
    assert len(openai_server.requests) == 2
    assert isinstance(info.value.__cause__, httpx.TimeoutException)


async def test_timeout_then_success(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", Reply.sleep(3.0))
    embedder = make(openai_server, timeout=0.2)
    vectors = await embedder.embed(["hello"])
    await embedder.close()
    np.testing.assert_allclose(vectors, expected(["hello"]), atol=1e-6)


async def test_dropped_connection_is_retried(openai_server: OpenAIServer) -> None:
    openai_server.enqueue("embeddings", Reply.drop())
    embedder = make(openai_server)
    vectors = await embedder.embed(["hello"])
    await embedder.close()
    assert len(openai_server.requests) == 2
    np.testing.assert_allclose(vectors, expected(["hello"]), atol=1e-6)


async def test_connection_refused_is_an_error() -> None:
    with socket.socket() as probe:  # a port nothing listens on once the socket is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAICompatibleEmbedder(
        f"http://127.0.0.1:{port}/v1", "m", dimension=DIM, max_retries=1, backoff=0.01
    )
    with pytest.raises(EmbeddingProviderError, match="connection error") as info:
        await embedder.embed(["hello"])
    await embedder.close()
    assert isinstance(info.value.__cause__, httpx.ConnectError)


async def test_endpoint_credentials_never_appear_in_messages() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAICompatibleEmbedder(
        f"http://user:pa55word@127.0.0.1:{port}/v1", "m", dimension=DIM, max_retries=0
    )
    with pytest.raises(EmbeddingProviderError) as info:
        await embedder.embed(["hello"])
    await embedder.close()
    assert "pa55word" not in str(info.value)


# The pool left behind in the first (closed) loop cannot be closed from the second; its socket is
# reclaimed by the garbage collector, which warns. Collect here so the warning stays in this test.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_works_across_event_loops(openai_server: OpenAIServer) -> None:
    """A client made in one asyncio.run must not be reused (broken) in the next."""
    embedder = make(openai_server)
    first = asyncio.run(embedder.embed(["hello"]))
    second = asyncio.run(embedder.embed(["hello"]))
    np.testing.assert_array_equal(first, second)
    asyncio.run(embedder.close())
    gc.collect()


def test_count_tokens_is_an_approximation_without_network(openai_server: OpenAIServer) -> None:
    embedder = make(openai_server)
    assert embedder.count_tokens("") == 0
    assert 2 <= embedder.count_tokens("hello world") <= 3
    assert embedder.count_tokens("word " * 1000) >= 1000  # never truncated
    assert openai_server.requests == []


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"endpoint": "api.openai.com/v1"}, "not an http"),
        ({"model": ""}, "EMBEDDING_MODEL"),
        ({"dimension": 0}, "dimension"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"batch_size": 0}, "batch_size"),
    ],
)
def test_constructor_validation(kwargs: dict[str, object], fragment: str) -> None:
    options: dict[str, object] = {
        "endpoint": "http://127.0.0.1:1/v1",
        "model": "m",
        "dimension": 4,
    }
    options.update(kwargs)
    with pytest.raises(ConfigurationError, match=fragment):
        OpenAICompatibleEmbedder(**options)  # type: ignore[arg-type]


async def test_redirect_is_not_followed(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        "embeddings",
        Reply.json({}, 301, headers={"Location": "https://elsewhere.example/v1/embeddings"}),
    )
    embedder = make(openai_server)
    with pytest.raises(EmbeddingProviderError, match="redirect: check EMBEDDING_ENDPOINT"):
        await embedder.embed(["hello"])
    await embedder.close()
    assert len(openai_server.requests) == 1
