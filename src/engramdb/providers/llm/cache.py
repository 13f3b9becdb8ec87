"""Response caching for LLM structured output.

An ingestion that fails half-way (a crash, a 402, a lost network) is retried by the user; the
answers already paid for are found again here instead of being bought twice. Keys are a hash of
everything that determines the answer, so a changed prompt, schema or model never reuses a stale
answer.

Entries are scoped to the data item they were derived from: the item's id is part of the key (and
its tag, so forgetting the item deletes them). Data ids are deterministic per (dataset, content),
so re-ingesting the same content into the same dataset -- a retry after a failure -- finds its
answers, while nobody else's request can: a user who remembers the exact text another user stored,
in their own dataset, has a different data id and gets a miss, so no count, timing or budget error
reveals what others wrote. An answer tied to no single data item is not cached at all: it could be
neither scoped nor forgotten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from engramdb.providers.llm.base import ChatMessage

if TYPE_CHECKING:
    from engramdb.storage.base import Store

__all__ = ["StoreResponseCache", "cache_key"]

#: Bumped when the meaning of a cached value changes, so old entries stop matching.
_KEY_VERSION = 2


def cache_key(
    model: str,
    messages: Sequence[ChatMessage],
    schema: dict[str, Any],
    temperature: float,
    max_tokens: int | None = None,
    *,
    scope: UUID,
) -> str:
    """sha256 (hex) of the scope (the data item the answer is derived from), the model, the
    messages, the JSON schema and the sampling settings."""
    document = {
        "v": _KEY_VERSION,
        "scope": str(scope),
        "model": model,
        "messages": [[m["role"], m["content"]] for m in messages],
        "schema": schema,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    encoded = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


class StoreResponseCache:
    """A :class:`~engramdb.providers.llm.base.ResponseCache` kept in the engramdb store, so
    cached answers persist across processes and die with the data item they were derived from."""

    def __init__(self, store: Store, namespace: str = "llm") -> None:
        self._store = store
        self._namespace = namespace

    async def get(self, key: str) -> str | None:
        return await self._store.cache_get(self._namespace, key)

    async def put(self, key: str, value: str, *, data_id: UUID | None = None) -> None:
        await self._store.cache_put(self._namespace, key, value, data_id=data_id)
