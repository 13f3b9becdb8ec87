"""Embeddings from any server that speaks OpenAI's ``POST /embeddings`` protocol.

OpenAI itself, Azure-style gateways, Ollama, vLLM, LM Studio, text-embeddings-inference and
LiteLLM all answer the same request, so one small client covers them. It is written on
``httpx`` directly rather than the ``openai`` SDK so retries, timeouts and error messages are
ours: transient failures (HTTP 429, 5xx, timeouts, dropped connections) are retried with
exponential backoff; anything else fails at once with an :class:`EmbeddingProviderError` whose
message never contains the API key.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from engramdb.errors import ConfigurationError, EmbeddingProviderError, scrub_secrets
from engramdb.providers.embedding.base import Embedder
from engramdb.providers.embedding.onnx_local import BundledTokenizer, validate_texts

if TYPE_CHECKING:
    import httpx

__all__ = ["OpenAICompatibleEmbedder"]

#: Upper bound of one backoff sleep, and of a server's Retry-After we are willing to honour.
_MAX_BACKOFF = 30.0


class _Retryable(Exception):
    """Internal: one attempt failed in a way worth retrying (``retry_after`` from the server)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class OpenAICompatibleEmbedder(Embedder):
    """Calls ``POST {endpoint}/embeddings`` (``endpoint`` like ``https://api.openai.com/v1``).

    ``dimension`` is what the caller configured (EMBEDDING_DIMENSIONS); every returned vector is
    checked against it, because datasets record it and a silent mismatch would corrupt search.
    ``max_retries`` counts retries after the first attempt; ``backoff`` is the first retry's
    delay, doubled each retry (with jitter, capped at 30 s). Texts are sent ``batch_size`` per
    request, one request at a time.
    """

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key: str = "",
        *,
        dimension: int,
        timeout: float = 60.0,
        max_retries: int = 3,
        batch_size: int = 128,
        backoff: float = 0.5,
    ) -> None:
        endpoint = endpoint.strip().rstrip("/")
        if not endpoint.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"embedding endpoint {scrub_secrets(endpoint)!r} is not an http(s) URL; "
                "set EMBEDDING_ENDPOINT to e.g. https://api.openai.com/v1"
            )
        if not model:
            raise ConfigurationError("the embedding model name is empty; set EMBEDDING_MODEL")
        if dimension <= 0:
            raise ConfigurationError(f"dimension must be > 0, got {dimension}")
        if timeout <= 0:
            raise ConfigurationError(f"timeout must be > 0 seconds, got {timeout}")
        if max_retries < 0:
            raise ConfigurationError(f"max_retries must be >= 0, got {max_retries}")
        if batch_size <= 0:
            raise ConfigurationError(f"batch_size must be > 0, got {batch_size}")
        if backoff < 0:
            raise ConfigurationError(f"backoff must be >= 0 seconds, got {backoff}")
        self.model_name = model
        self.dimension = dimension
        self._url = f"{endpoint}/embeddings"
        self._tokens = BundledTokenizer()
        self._api_key = api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self._batch_size = batch_size
        self._backoff = backoff
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------------------------------
    # public API

    def count_tokens(self, text: str) -> int:
        """An approximation: WordPiece tokens of the bundled all-MiniLM-L6-v2 tokenizer.

        The remote model's own tokenizer is unknown to engramdb (and cannot be downloaded
        offline), so this is an estimate: exact for MiniLM/BERT-family models, in the same range
        as BPE tokenizers (OpenAI's cl100k/o200k) for English prose, less reliable for code and
        non-Latin scripts. Chunk limits derived from it should keep some headroom below the
        remote model's window. It never touches the network.
        """
        return self._tokens.count(text)

    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        items = validate_texts(texts)
        out = np.zeros((len(items), self.dimension), dtype=np.float32)
        for start in range(0, len(items), self._batch_size):
            batch = items[start : start + self._batch_size]
            out[start : start + len(batch)] = await self._embed_batch(batch)
        return out

    async def close(self) -> None:
        """Close the HTTP connection pool.

        A pool opened in another event loop cannot be closed from this one (its transports
        belong to that loop); it is dropped and its sockets are released when collected.
        """
        client, loop = self._client, self._client_loop
        self._client = self._client_loop = None
        if client is not None and loop is asyncio.get_running_loop():
            await client.aclose()

    # ------------------------------------------------------------------------------------------
    # one request, with retries

    def _http(self) -> httpx.AsyncClient:
        """The pooled client, created on first use in the running loop.

        httpx connections belong to the event loop that opened them, so a client made in another
        (since closed) loop -- e.g. an earlier ``asyncio.run`` -- is replaced, not reused.
        """
        import httpx

        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop or self._client.is_closed:
            headers = {"Accept": "application/json"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self._timeout), headers=headers, follow_redirects=False
            )
            self._client_loop = loop
        return self._client

    async def _embed_batch(self, batch: list[str]) -> npt.NDArray[np.float32]:
        # OpenAI rejects empty strings in ``input``; an empty text has no meaning to embed, so it
        # is sent as a single space rather than failing the whole batch.
        payload = {
            "model": self.model_name,
            "input": [text if text else " " for text in batch],
            "encoding_format": "float",
        }
        attempts = self._max_retries + 1
        for attempt in range(attempts):
            try:
                return await self._attempt(payload, len(batch))
            except _Retryable as failure:
                if attempt + 1 >= attempts:
                    raise EmbeddingProviderError(
                        self._scrub(
                            f"embedding request to {self._url} failed after {attempts} "
                            f"attempt(s): {failure}"
                        )
                    ) from (failure.__cause__ or failure)
                await asyncio.sleep(self._delay(attempt, failure))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(self, payload: dict[str, Any], expected: int) -> npt.NDArray[np.float32]:
        import httpx

        try:
            response = await self._http().post(self._url, json=payload)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out after {self._timeout:g} s ({type(exc).__name__})") from exc
        except httpx.TransportError as exc:  # refused, reset, DNS, server hung up, ...
            raise _Retryable(f"connection error ({type(exc).__name__}: {exc})") from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:  # e.g. an undecodable body
            raise EmbeddingProviderError(
                self._scrub(f"embedding request to {self._url} failed: {type(exc).__name__}: {exc}")
            ) from exc

        status = response.status_code
        if status == 429 or status >= 500:
            raise _Retryable(
                f"HTTP {status}: {self._body_excerpt(response)}", _retry_after(response)
            )
        if status >= 400:
            hint = " (check EMBEDDING_API_KEY)" if status in (401, 403) else ""
            raise EmbeddingProviderError(
                self._scrub(
                    f"embedding endpoint {self._url} answered HTTP {status}{hint}: "
                    f"{self._body_excerpt(response)}"
                )
            )
        if status != 200:
            hint = " (a redirect: check EMBEDDING_ENDPOINT)" if 300 <= status < 400 else ""
            raise EmbeddingProviderError(
                self._scrub(
                    f"embedding endpoint {self._url} answered unexpected HTTP {status}{hint}"
                )
            )
        try:
            document = response.json()
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            raise EmbeddingProviderError(
                self._scrub(
                    f"embedding endpoint {self._url} answered HTTP 200 with a body that is not "
                    f"JSON: {self._body_excerpt(response)}"
                )
            ) from exc
        return self._parse(document, expected)

    def _delay(self, attempt: int, failure: _Retryable) -> float:
        if failure.retry_after is not None:
            return min(failure.retry_after, _MAX_BACKOFF)
        base = self._backoff * 2.0**attempt
        return min(base * random.uniform(0.8, 1.2), _MAX_BACKOFF)

    # ------------------------------------------------------------------------------------------
    # response validation

    def _parse(self, document: Any, expected: int) -> npt.NDArray[np.float32]:
        """Check the response shape and return rows in input order, L2-normalised."""

        def bad(what: str) -> EmbeddingProviderError:
            return EmbeddingProviderError(
                self._scrub(f"embedding endpoint {self._url} returned an invalid response: {what}")
            )

        data = document.get("data") if isinstance(document, dict) else None
        if not isinstance(data, list):
            raise bad("no 'data' list")
        if len(data) != expected:
            raise bad(f"{len(data)} embeddings for {expected} inputs")
        if not all(isinstance(item, dict) for item in data):
            raise bad("'data' items are not objects")
        indices = [item.get("index") for item in data]
        if all(index is None for index in indices):
            ordered = list(data)  # servers that omit "index" answer in input order
        else:
            if sorted(i if isinstance(i, int) else -1 for i in indices) != list(range(expected)):
                raise bad(f"'index' values {indices} are not a permutation of 0..{expected - 1}")
            ordered = sorted(data, key=lambda item: int(item["index"]))

        rows = np.zeros((expected, self.dimension), dtype=np.float32)
        for row, item in enumerate(ordered):
            vector = item.get("embedding")
            if not isinstance(vector, list):
                raise bad("'embedding' is not a list of numbers (base64 encoding is not supported)")
            if len(vector) != self.dimension:
                raise EmbeddingProviderError(
                    self._scrub(
                        f"the configured EMBEDDING_DIMENSIONS={self.dimension} does not match "
                        f"what the endpoint returns: model {self.model_name!r} at {self._url} "
                        f"returned vectors of dimension {len(vector)}; set "
                        f"EMBEDDING_DIMENSIONS={len(vector)} (or choose another model)"
                    )
                )
            try:
                values = np.asarray(vector, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise bad("'embedding' holds non-numbers") from exc
            norm = float(np.linalg.norm(values))
            if not math.isfinite(norm) or norm == 0.0:
                raise bad(f"embedding {row} is all zeros or not finite")
            rows[row] = values / norm
        return rows

    # ------------------------------------------------------------------------------------------
    # messages

    def _scrub(self, message: str) -> str:
        """Remove the API key (whatever its shape) and anything secret-looking from a message."""
        if len(self._api_key) >= 4:  # shorter "keys" are placeholders, not secrets
            message = message.replace(self._api_key, "[redacted]")
        return scrub_secrets(message)

    @staticmethod
    def _body_excerpt(response: httpx.Response, limit: int = 300) -> str:
        """The provider's own error text when it sent the OpenAI error shape, else raw text."""
        try:
            document = response.json()
        except ValueError:
            text = response.text.strip()
        else:
            error = document.get("error") if isinstance(document, dict) else None
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                text = error["message"]
            elif isinstance(error, str):
                text = error
            else:
                text = json.dumps(document)[:limit]
        text = " ".join(text.split())
        return (text[:limit] + "…") if len(text) > limit else (text or "(empty body)")


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from a numeric ``Retry-After`` header (the HTTP-date form is ignored)."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
