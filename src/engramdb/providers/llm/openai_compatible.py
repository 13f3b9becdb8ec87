"""Chat completions from any server that speaks OpenAI's ``POST /chat/completions`` protocol.

OpenAI, Ollama, vLLM, the llama.cpp server, LM Studio and LiteLLM all answer the same request, so
one client built on the official ``openai`` SDK covers them. The SDK's own retries are switched
off (``max_retries=0``): retries, backoff and error translation are done here, so they are
counted, testable, and every failure leaves as an :mod:`engramdb.errors` class whose message
never contains the API key.

Structured output degrades gracefully, because servers differ in what they support:

1. ``response_format={"type": "json_schema", ...}`` (OpenAI, recent vLLM/Ollama/llama.cpp);
2. when the server rejects that (HTTP 400/422 naming the response format), JSON mode
   (``{"type": "json_object"}``) with the schema written into the system prompt;
3. when JSON mode is rejected too, no ``response_format`` at all, the prompt alone.

The level reached is remembered per instance, so later calls go straight to what works. Every
answer is validated with pydantic; an invalid one gets ONE repair round (the bad output and the
validation error are sent back); still invalid raises :class:`LLMOutputError`.

The ``openai`` package is imported on first use, never at import time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from pydantic import ValidationError

from engramdb.errors import (
    ConfigurationError,
    LLMBadRequestError,
    LLMOutputError,
    LLMPaymentRequiredError,
    LLMProviderError,
    scrub_secrets,
)
from engramdb.observability.metrics import count_llm_call
from engramdb.observability.tracing import span
from engramdb.providers.llm.base import (
    LLM,
    CallStats,
    ChatMessage,
    Completion,
    ResponseCache,
    T,
)
from engramdb.providers.llm.cache import cache_key
from engramdb.providers.llm.structured import (
    repair_prompt,
    schema_name,
    validate_answer,
    with_schema_instruction,
)

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletion

__all__ = ["DEFAULT_BASE_URL", "LLM_SPAN", "OpenAICompatibleLLM"]

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The span of one chat completion (retries included); docs/observability.md.
LLM_SPAN = "engramdb.llm.chat"
#: Sent when no key is configured: local servers need none, but the SDK insists on one.
_PLACEHOLDER_KEY = "engramdb-no-key"
#: Upper bound of one backoff sleep, and of a server's Retry-After we are willing to honour.
_MAX_BACKOFF = 30.0
#: How much of an invalid answer is sent back in the repair round.
_REPAIR_ECHO_CHARS = 12_000

#: Structured-output strategies, from best to most widely supported.
_MODES = ("json_schema", "json_object", "prompt")
_FORMAT_WORDS = (
    "response_format",
    "response format",
    "json_schema",
    "json_object",
    "structured output",
    "schema",
)


class _Retryable(Exception):
    """Internal: one attempt failed in a way worth retrying (``retry_after`` from the server)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


@dataclass(slots=True)
class _LoopState:
    """The SDK client and the concurrency bound of one event loop (both bind to it)."""

    loop: asyncio.AbstractEventLoop
    client: openai.AsyncOpenAI
    semaphore: asyncio.Semaphore


class OpenAICompatibleLLM(LLM):
    """Calls ``POST {base_url}/chat/completions`` (``base_url`` like ``http://localhost:11434/v1``).

    ``max_retries`` counts retries after the first attempt (429, 5xx, timeouts and connection
    errors); ``backoff`` is the first retry's delay, doubled each retry (with jitter, capped at
    30 s). At most ``max_concurrency`` requests are in flight at once per event loop. ``cache``
    keeps validated structured answers (never free-text completions, never failures).
    ``totals`` adds up every call this instance made.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str = "",
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        max_concurrency: int = 4,
        cache: ResponseCache | None = None,
        backoff: float = 0.5,
    ) -> None:
        url = (base_url or DEFAULT_BASE_URL).strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"LLM endpoint {scrub_secrets(url)!r} is not an http(s) URL; set LLM_ENDPOINT "
                "to e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama)"
            )
        if not model.strip():
            raise ConfigurationError("the LLM model name is empty; set LLM_MODEL")
        if not (timeout > 0 and math.isfinite(timeout)):
            raise ConfigurationError(f"timeout must be > 0 seconds, got {timeout}")
        if max_retries < 0:
            raise ConfigurationError(f"max_retries must be >= 0, got {max_retries}")
        if max_concurrency <= 0:
            raise ConfigurationError(f"max_concurrency must be > 0, got {max_concurrency}")
        if backoff < 0:
            raise ConfigurationError(f"backoff must be >= 0 seconds, got {backoff}")
        self.model = model.strip()
        self.base_url = url
        self.totals = CallStats()
        self._api_key = api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self._max_concurrency = max_concurrency
        self._cache = cache
        self._backoff = backoff
        self._mode = 0
        self._send_temperature = True
        # Calls are numbered on entry; a 402 records the newest number, and calls numbered up to
        # it that are still waiting for a slot fail without a request (see _create).
        self._call_serial = 0
        self._payment_refused_serial = -1
        self._states: dict[int, _LoopState] = {}
        self._states_lock = threading.Lock()

    @property
    def structured_mode(self) -> str:
        """The structured-output strategy in use: "json_schema", "json_object" or "prompt"."""
        return _MODES[self._mode]

    # ------------------------------------------------------------------------------------------
    # public API

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> Completion:
        stats = CallStats()
        response = await self._request(
            list(messages), stats, temperature=temperature, max_tokens=max_tokens, schema=None
        )
        text, finish = _answer(response)
        return Completion(text=text, stats=stats, finish_reason=finish)

    async def structured(
        self,
        messages: Sequence[ChatMessage],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        data_id: UUID | None = None,
        cache: bool = True,
    ) -> tuple[T, CallStats]:
        stats = CallStats()
        json_schema = schema.model_json_schema()
        named = (schema_name(schema.__name__), json_schema)
        key = None
        if self._cache is not None and cache and data_id is not None:
            key = cache_key(
                self.model, messages, json_schema, temperature, max_tokens, scope=data_id
            )
            cached = await self._cache_get(key)
            if cached is not None:
                try:
                    hit = schema.model_validate_json(cached)
                except ValidationError:
                    pass  # written for an older schema; ask again and overwrite it
                else:
                    stats.cache_hits += 1
                    self.totals.cache_hits += 1
                    return hit, stats

        conversation = list(messages)
        response = await self._request(
            conversation, stats, temperature=temperature, max_tokens=max_tokens, schema=named
        )
        text, finish = _answer(response)
        value, problem = validate_answer(text, schema)
        if value is None:
            conversation += [
                {"role": "assistant", "content": text[:_REPAIR_ECHO_CHARS]},
                {"role": "user", "content": repair_prompt(problem, finish)},
            ]
            response = await self._request(
                conversation, stats, temperature=temperature, max_tokens=max_tokens, schema=named
            )
            text, finish = _answer(response)
            value, problem = validate_answer(text, schema)
        if value is None:
            raise LLMOutputError(
                self._scrub(
                    f"model {self.model!r} at {self.base_url} did not return valid "
                    f"{schema.__name__} JSON, even after a repair round: {problem}"
                ),
                stats=stats,
            )
        if key is not None:
            await self._cache_put(key, value.model_dump_json(), data_id)
        return value, stats

    async def close(self) -> None:
        """Close the connection pool of the running loop's client.

        Clients of other (closed) loops cannot be closed from this one; they are dropped and
        their sockets are released when collected.
        """
        loop = asyncio.get_running_loop()
        with self._states_lock:
            states, self._states = list(self._states.values()), {}
        for state in states:
            if state.loop is loop:
                await state.client.close()

    # ------------------------------------------------------------------------------------------
    # requests: optional-feature fallbacks around the retry loop

    async def _request(
        self,
        messages: list[ChatMessage],
        stats: CallStats,
        *,
        temperature: float,
        max_tokens: int | None,
        schema: tuple[str, dict[str, Any]] | None,
    ) -> ChatCompletion:
        """One completion, dropping request features the server rejects (remembered)."""
        while True:
            mode = self._mode
            send_temperature = self._send_temperature
            sent = messages
            response_format: dict[str, Any] | None = None
            if schema is not None:
                name, json_schema = schema
                if mode == 0:
                    response_format = {
                        "type": "json_schema",
                        "json_schema": {"name": name, "schema": json_schema, "strict": False},
                    }
                else:
                    sent = with_schema_instruction(messages, json_schema)
                    if mode == 1:
                        response_format = {"type": "json_object"}
            try:
                with span(LLM_SPAN, {"gen_ai.request.model": self.model}) as current:
                    response = await self._create(
                        sent,
                        stats,
                        temperature=temperature if send_temperature else None,
                        max_tokens=max_tokens,
                        response_format=response_format,
                    )
                    _usage_attributes(current, response)
                return response
            except LLMBadRequestError as exc:
                detail = exc.detail.lower()
                if response_format is not None and any(w in detail for w in _FORMAT_WORDS):
                    self._mode = max(self._mode, mode + 1)
                    logger.info(
                        "LLM %s rejected response_format %s; using %s from now on",
                        self.model,
                        _MODES[mode],
                        _MODES[self._mode],
                    )
                    continue
                if send_temperature and "temperature" in detail:
                    self._send_temperature = False  # e.g. reasoning models accept only 1
                    logger.info("LLM %s rejected temperature; not sending it", self.model)
                    continue
                raise

    async def _create(
        self,
        messages: list[ChatMessage],
        stats: CallStats,
        *,
        temperature: float | None,
        max_tokens: int | None,
        response_format: dict[str, Any] | None,
    ) -> ChatCompletion:
        """One request with retries; counts calls, tokens and retries into ``stats``."""
        import openai

        state = self._state()
        self._call_serial += 1
        serial = self._call_serial
        attempts = self._max_retries + 1
        for attempt in range(attempts):
            try:
                async with state.semaphore:
                    if serial <= self._payment_refused_serial:
                        # The provider answered 402 while this call was queued: the budget is
                        # gone, so do not send what is known to be refused. Calls made later
                        # try again (the user may have added credit).
                        raise LLMPaymentRequiredError(
                            self._scrub(
                                f"LLM endpoint {self.base_url} answered HTTP 402 (payment "
                                "required) to a concurrent request; add credit or raise the "
                                "limit, then run again (already-paid answers are cached)"
                            )
                        )
                    response = await state.client.chat.completions.create(
                        model=self.model,
                        messages=cast(Any, messages),
                        temperature=openai.omit if temperature is None else temperature,
                        max_tokens=openai.omit if max_tokens is None else max_tokens,
                        response_format=(
                            openai.omit if response_format is None else cast(Any, response_format)
                        ),
                    )
            except openai.APITimeoutError as exc:
                failure = _Retryable(f"timed out after {self._timeout:g} s")
                cause: BaseException = exc
            except openai.APIConnectionError as exc:  # refused, reset, DNS, server hung up
                failure = _Retryable(f"connection error ({_describe_cause(exc)})")
                cause = exc
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status != 429 and status < 500:
                    if status == 402:
                        self._payment_refused_serial = self._call_serial
                    raise self._status_error(exc) from exc
                failure = _Retryable(f"HTTP {status}: {_excerpt(exc)}", _retry_after(exc))
                cause = exc
            except openai.APIError as exc:  # e.g. a response the SDK could not validate
                raise LLMProviderError(
                    self._scrub(f"LLM request to {self.base_url} failed: {exc}")
                ) from exc
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:  # a 200 that is not JSON
                raise LLMProviderError(
                    self._scrub(
                        f"LLM endpoint {self.base_url} answered with a body that is not JSON: {exc}"
                    )
                ) from exc
            else:
                self._count(stats, response)
                return response
            if attempt + 1 >= attempts:
                raise LLMProviderError(
                    self._scrub(
                        f"LLM request to {self.base_url} (model {self.model!r}) failed after "
                        f"{attempts} attempt(s): {failure}"
                    )
                ) from cause
            stats.retries += 1
            self.totals.retries += 1
            await asyncio.sleep(self._delay(attempt, failure))
        raise AssertionError("unreachable")  # pragma: no cover

    def _status_error(self, exc: openai.APIStatusError) -> LLMProviderError:
        """The engramdb error for an HTTP status that is not worth retrying."""
        status, detail = exc.status_code, _excerpt(exc)
        where = f"LLM endpoint {self.base_url}"
        if status == 402:
            return LLMPaymentRequiredError(
                self._scrub(
                    f"{where} answered HTTP 402 (payment required): {detail}. The provider "
                    "account is out of credit or over its budget; add credit or raise the limit, "
                    "then run again (already-paid answers are cached)"
                )
            )
        if status in (401, 403):
            return LLMProviderError(
                self._scrub(
                    f"{where} refused the request with HTTP {status}: {detail}. Check "
                    "LLM_API_KEY (and that LLM_ENDPOINT and LLM_MODEL belong together)"
                )
            )
        message = self._scrub(f"{where} answered HTTP {status} for model {self.model!r}: {detail}")
        if status in (400, 422):
            return LLMBadRequestError(message, detail)
        if status == 404:
            message += " (check LLM_ENDPOINT and LLM_MODEL)"
        return LLMProviderError(message)

    def _count(self, stats: CallStats, response: ChatCompletion) -> None:
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        for target in (stats, self.totals):
            target.calls += 1
            target.prompt_tokens += prompt
            target.completion_tokens += completion
        count_llm_call(self.model, prompt, completion)

    def _delay(self, attempt: int, failure: _Retryable) -> float:
        if failure.retry_after is not None:
            return min(failure.retry_after, _MAX_BACKOFF)
        return min(self._backoff * 2.0**attempt * random.uniform(0.5, 1.5), _MAX_BACKOFF)

    # ------------------------------------------------------------------------------------------
    # per-loop client and semaphore

    def _state(self) -> _LoopState:
        """The client and semaphore of the running loop, created on first use in it.

        Both bind to the loop that first uses them, and users call ``asyncio.run`` several times
        (and may run loops in several threads), so each loop gets its own; states of closed loops
        are dropped.
        """
        loop = asyncio.get_running_loop()
        with self._states_lock:
            for ident in [i for i, s in self._states.items() if s.loop.is_closed()]:
                del self._states[ident]
            state = self._states.get(id(loop))
            if state is None or state.loop is not loop:
                state = _LoopState(
                    loop, self._new_client(), asyncio.Semaphore(self._max_concurrency)
                )
                self._states[id(loop)] = state
            return state

    def _new_client(self) -> openai.AsyncOpenAI:
        import openai

        client = openai.AsyncOpenAI(
            api_key=self._api_key or _PLACEHOLDER_KEY,
            base_url=self.base_url,
            timeout=self._timeout,
            max_retries=0,
        )
        # The SDK fills these from OPENAI_* environment variables when they are not given;
        # engramdb's configuration comes from its settings only.
        client.organization = None
        client.project = None
        client.admin_api_key = None
        return client

    # ------------------------------------------------------------------------------------------
    # cache (fail-open) and messages

    async def _cache_get(self, key: str) -> str | None:
        assert self._cache is not None
        try:
            return await self._cache.get(key)
        except Exception:  # fail-open: a broken cache must not stop extraction; it only costs
            logger.warning("LLM response cache read failed; asking the model", exc_info=True)
            return None

    async def _cache_put(self, key: str, value: str, data_id: UUID | None) -> None:
        assert self._cache is not None
        try:
            await self._cache.put(key, value, data_id=data_id)
        except Exception:  # fail-open: the answer is valid and paid for; only reuse is lost
            logger.warning("LLM response cache write failed; answer not cached", exc_info=True)

    def _scrub(self, message: str) -> str:
        """Remove the API key (whatever its shape) and anything secret-looking from a message."""
        if len(self._api_key) >= 4:  # shorter "keys" are placeholders, not secrets
            message = message.replace(self._api_key, "[redacted]")
        return scrub_secrets(message)


# ----------------------------------------------------------------------------------------------
# helpers


def _answer(response: ChatCompletion) -> tuple[str, str | None]:
    """The first choice's text ("" when the message has none, e.g. a refusal) and finish reason.

    A response without any choice is a broken server, not a model answer: LLMProviderError.
    """
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise LLMProviderError(
            "the LLM endpoint answered HTTP 200 without any choice: not an OpenAI-compatible "
            "chat completion (check LLM_ENDPOINT)"
        )
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    return (content if isinstance(content, str) else ""), getattr(choice, "finish_reason", None)


def _usage_attributes(current: Any, response: ChatCompletion) -> None:
    """The token counts the provider reported, on the LLM span (OpenTelemetry's gen_ai names)."""
    if current is None:
        return
    usage = getattr(response, "usage", None)
    current.set_attribute("gen_ai.usage.input_tokens", int(getattr(usage, "prompt_tokens", 0) or 0))
    current.set_attribute(
        "gen_ai.usage.output_tokens", int(getattr(usage, "completion_tokens", 0) or 0)
    )


def _excerpt(exc: openai.APIStatusError, limit: int = 300) -> str:
    """The provider's own error text when it used OpenAI's error shape, else the raw body."""
    body = exc.body
    text: str | None = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            text = inner["message"]
        elif isinstance(inner, str):
            text = inner
        elif isinstance(body.get("message"), str):
            text = body["message"]
    elif isinstance(body, str):
        text = body
    if text is None:
        try:
            text = exc.response.text
        except (ValueError, RuntimeError):  # undecodable or unread body: describe it as empty
            text = ""
    text = " ".join(text.split())
    return (text[:limit] + "…") if len(text) > limit else (text or "(empty body)")


def _describe_cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    if cause is None:
        return type(exc).__name__
    detail = str(cause)
    return f"{type(cause).__name__}: {detail}" if detail else type(cause).__name__


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """Seconds from a numeric ``Retry-After`` header (the HTTP-date form is ignored)."""
    value = exc.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
