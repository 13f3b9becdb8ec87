"""The response cache: hits make no request, only valid answers are kept, entries are scoped to
the data item they came from (found only by a request for that item, forgotten with it), and
answers tied to no item are never cached (a real SqliteStore)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from pydantic import BaseModel

from engramdb.errors import LLMOutputError
from engramdb.providers.llm import (
    ChatMessage,
    OpenAICompatibleLLM,
    StoreResponseCache,
    cache_key,
)
from engramdb.storage.sqlite import SqliteStore
from tests.conformance._helpers import make_doc
from tests.support.openai_server import OpenAIServer, Reply

ROUTE = "chat/completions"
MESSAGES: list[ChatMessage] = [{"role": "user", "content": "Who founded Acme?"}]
#: The data item most answers here are derived from (the cache needs no written record).
ITEM = uuid4()


class Founder(BaseModel):
    name: str
    year: int


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "engram.db")
    await opened.setup()
    yield opened
    await opened.close()


def make(server: OpenAIServer, store: SqliteStore) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(
        "test-chat",
        base_url=server.base_url,
        backoff=0.01,
        timeout=5.0,
        cache=StoreResponseCache(store),
    )


async def written_data_id(store: SqliteStore) -> UUID:
    user = await store.get_or_create_default_user()
    dataset = await store.get_or_create_dataset(user.id, "main")
    doc = make_doc(dataset.id, ["Acme was founded by Ada in 1901."])
    await store.write_document(doc.write)
    return doc.data.id


async def test_cache_hit_makes_no_request(openai_server: OpenAIServer, store: SqliteStore) -> None:
    openai_server.enqueue(ROUTE, Reply.json(openai_server.chat_document('{"name":"Ada","year":1}')))
    llm = make(openai_server, store)
    first, first_stats = await llm.structured(MESSAGES, Founder, data_id=ITEM)
    second, second_stats = await llm.structured(MESSAGES, Founder, data_id=ITEM)
    await llm.close()

    assert first == second == Founder(name="Ada", year=1)
    assert (first_stats.calls, first_stats.cache_hits) == (1, 0)
    assert (second_stats.calls, second_stats.cache_hits) == (0, 1)
    assert len(openai_server.requests) == 1
    assert (llm.totals.calls, llm.totals.cache_hits) == (1, 1)


async def test_another_instance_finds_the_persisted_answer(
    openai_server: OpenAIServer, store: SqliteStore
) -> None:
    openai_server.enqueue(ROUTE, Reply.json(openai_server.chat_document('{"name":"Ada","year":1}')))
    await make(openai_server, store).structured(MESSAGES, Founder, data_id=ITEM)
    _, stats = await make(openai_server, store).structured(MESSAGES, Founder, data_id=ITEM)
    assert stats.cache_hits == 1
    assert len(openai_server.requests) == 1


async def test_key_covers_model_messages_schema_and_temperature(
    openai_server: OpenAIServer, store: SqliteStore
) -> None:
    openai_server.set_default(
        ROUTE, lambda _: Reply.json(openai_server.chat_document('{"name":"Ada","year":1}'))
    )
    llm = make(openai_server, store)
    await llm.structured(MESSAGES, Founder, data_id=ITEM)
    await llm.structured([{"role": "user", "content": "Who founded Beta?"}], Founder, data_id=ITEM)
    await llm.structured(MESSAGES, Founder, temperature=0.5, data_id=ITEM)
    await llm.close()
    assert len(openai_server.requests) == 3
    schema = Founder.model_json_schema()
    key = cache_key("a", MESSAGES, schema, 0.0, scope=ITEM)
    assert key != cache_key("b", MESSAGES, schema, 0.0, scope=ITEM)
    assert key == cache_key("a", list(MESSAGES), schema, 0.0, scope=ITEM)
    assert key != cache_key("a", MESSAGES, schema, 0.0, scope=uuid4())


async def test_an_entry_is_found_only_by_a_request_for_the_same_data_item(
    openai_server: OpenAIServer, store: SqliteStore
) -> None:
    openai_server.set_default(
        ROUTE, lambda _: Reply.json(openai_server.chat_document('{"name":"Ada","year":1}'))
    )
    llm = make(openai_server, store)
    await llm.structured(MESSAGES, Founder, data_id=ITEM)
    _, other_item = await llm.structured(MESSAGES, Founder, data_id=uuid4())
    _, no_item = await llm.structured(MESSAGES, Founder)
    _, again = await llm.structured(MESSAGES, Founder)
    await llm.close()
    assert (other_item.calls, other_item.cache_hits) == (1, 0)
    assert (no_item.calls, no_item.cache_hits) == (1, 0)
    assert (again.calls, again.cache_hits) == (1, 0)  # an untagged answer is never cached
    assert len(openai_server.requests) == 4


async def test_invalid_answers_are_not_cached(
    openai_server: OpenAIServer, store: SqliteStore
) -> None:
    bad = Reply.json(openai_server.chat_document('{"name": "Ada"}'))
    openai_server.enqueue(ROUTE, bad, bad)
    llm = make(openai_server, store)
    with pytest.raises(LLMOutputError):
        await llm.structured(MESSAGES, Founder, data_id=ITEM)
    openai_server.enqueue(ROUTE, Reply.json(openai_server.chat_document('{"name":"Ada","year":1}')))
    value, stats = await llm.structured(MESSAGES, Founder, data_id=ITEM)
    await llm.close()
    assert value.year == 1
    assert stats.calls == 1
    assert len(openai_server.requests) == 3


async def test_forgetting_the_item_forgets_its_cached_answers(
    openai_server: OpenAIServer, store: SqliteStore
) -> None:
    data_id = await written_data_id(store)
    openai_server.set_default(
        ROUTE, lambda _: Reply.json(openai_server.chat_document('{"name":"Ada","year":1}'))
    )
    llm = make(openai_server, store)
    await llm.structured(MESSAGES, Founder, data_id=data_id)
    key = cache_key("test-chat", MESSAGES, Founder.model_json_schema(), 0.0, scope=data_id)
    assert await store.cache_get("llm", key) is not None

    await store.delete_data(data_id)
    assert await store.cache_get("llm", key) is None
    _, stats = await llm.structured(MESSAGES, Founder, data_id=data_id)
    await llm.close()
    assert stats.calls == 1  # asked again
    assert len(openai_server.requests) == 2


class BrokenCache:
    async def get(self, key: str) -> str | None:
        raise OSError("disk gone")

    async def put(self, key: str, value: str, *, data_id: UUID | None = None) -> None:
        raise OSError("disk gone")


async def test_a_broken_cache_fails_open(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(ROUTE, Reply.json(openai_server.chat_document('{"name":"Ada","year":1}')))
    llm = OpenAICompatibleLLM("test-chat", base_url=openai_server.base_url, cache=BrokenCache())
    value, stats = await llm.structured(MESSAGES, Founder)
    await llm.close()
    assert value.name == "Ada"
    assert stats.calls == 1


async def test_cache_false_neither_reads_nor_writes(
    openai_server: OpenAIServer, store: SqliteStore
) -> None:
    openai_server.set_default(
        ROUTE, lambda _: Reply.json(openai_server.chat_document('{"name":"Ada","year":1}'))
    )
    llm = make(openai_server, store)
    await llm.structured(MESSAGES, Founder, cache=False, data_id=ITEM)
    key = cache_key("test-chat", MESSAGES, Founder.model_json_schema(), 0.0, scope=ITEM)
    assert await store.cache_get("llm", key) is None
    await llm.structured(MESSAGES, Founder, data_id=ITEM)
    _, stats = await llm.structured(MESSAGES, Founder, cache=False, data_id=ITEM)
    await llm.close()
    assert (stats.calls, stats.cache_hits) == (1, 0)
    assert len(openai_server.requests) == 3
