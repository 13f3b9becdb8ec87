"""The LLM contract: chat completion and validated structured output.

Callers (graph extraction, completion answers) depend only on :class:`LLM`, never on a vendor
SDK, so a test or a new provider only has to implement two coroutines. Every call reports what it
cost in :class:`CallStats`, because engramdb counts LLM calls and tokens per ingested document.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypedDict, TypeVar
from uuid import UUID

from pydantic import BaseModel

__all__ = [
    "LLM",
    "CallStats",
    "ChatMessage",
    "Completion",
    "ResponseCache",
    "T",
]

T = TypeVar("T", bound=BaseModel)


class ChatMessage(TypedDict):
    """One chat message, in the shape every OpenAI-compatible server accepts as it is."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(slots=True)
class CallStats:
    """What one (or several, once added up) LLM operation cost.

    ``calls`` counts requests the server answered with a completion (what a provider bills);
    ``retries`` counts attempts repeated after a transient failure (429, 5xx, timeout,
    connection error); ``cache_hits`` counts answers served from the response cache without any
    request.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    retries: int = 0

    def add(self, other: CallStats) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cache_hits += other.cache_hits
        self.retries += other.retries


@dataclass(frozen=True, slots=True)
class Completion:
    """A free-text answer. ``finish_reason`` is the server's ("stop", "length", ...), when given."""

    text: str
    stats: CallStats = field(default_factory=CallStats)
    finish_reason: str | None = None


class ResponseCache(Protocol):
    """Where validated structured answers are kept, keyed by a hash of the request and of the
    data item the answer is derived from (see :func:`engramdb.providers.llm.cache.cache_key`).

    ``data_id`` tags a value as derived from that data item's content, so forgetting the item
    forgets the cached answer too (see :class:`engramdb.storage.base.Store.cache_put`).
    """

    async def get(self, key: str) -> str | None: ...

    async def put(self, key: str, value: str, *, data_id: UUID | None = None) -> None: ...


class LLM(ABC):
    """A chat model.

    Implementations retry transient failures themselves and raise only
    :class:`~engramdb.errors.LLMProviderError` subclasses:
    :class:`~engramdb.errors.LLMPaymentRequiredError` when the budget is exhausted (never
    retried), :class:`~engramdb.errors.LLMOutputError` when a structured answer stays invalid,
    :class:`~engramdb.errors.LLMBadRequestError` when the server rejects the request, and plain
    ``LLMProviderError`` when the provider cannot be used (unreachable after retries, bad key).
    Messages never contain the API key.
    """

    #: The model name sent with every request.
    model: str

    @abstractmethod
    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> Completion:
        """The model's free-text answer to ``messages``."""

    @abstractmethod
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
        """An instance of ``schema`` the model produced for ``messages``, validated.

        Raises :class:`~engramdb.errors.LLMOutputError` when no valid instance could be
        obtained. The response cache is used only for an answer derived from ONE data item,
        named by ``data_id``: the
        id scopes the entry (only a request for the same item finds it, so no user learns from
        a hit what another stored) and tags it (forgetting the item forgets it). Without
        ``data_id``, or with ``cache=False``, the cache is neither read nor written.
        """

    async def close(self) -> None:  # noqa: B027 - optional hook, default does nothing
        """Release resources (HTTP connection pools)."""
