"""EngramdbStore against the behaviours LangGraph's own InMemoryStore tests check.

The cases restate those of langgraph's ``libs/checkpoint/tests/test_store.py`` (namespace
listing, namespace validation, batching, semantic search with filters and pagination, updates
re-embedding, ``index=False``). Each runs against both ``InMemoryStore`` (with the same fake
embedder engramdb's tests use) and ``EngramdbStore``, so a case that passes on ours encodes
LangGraph's behaviour and not a reading of it. Issue 15: "It must pass the behaviours
langgraph's own InMemoryStore tests check".
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp
from langgraph.store.memory import InMemoryStore

from engramdb.integrations.langgraph import EngramdbStore
from engramdb.integrations.langgraph._mapping import MAX_VALUE_BYTES
from engramdb.providers.embedding.fake import FakeEmbedder

_FAKE = FakeEmbedder(64)


def _embed(texts: list[str]) -> list[list[float]]:
    vectors: np.ndarray = asyncio.run(_FAKE.embed(texts))
    return [list(map(float, v)) for v in vectors]


@pytest.fixture(params=["inmemory", "engramdb"])
def store(request: pytest.FixtureRequest) -> Iterator[BaseStore]:
    """The store under test, semantic search on the ``text`` field when a case indexes."""
    if request.param == "inmemory":
        yield InMemoryStore(index={"dims": 64, "embed": _embed, "fields": ["text"]})
        return
    ours = EngramdbStore(index={"fields": ["text"]})
    yield ours
    ours.close()


def _put_all(store: BaseStore, namespaces: list[tuple[str, ...]]) -> None:
    for i, ns in enumerate(namespaces):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})


def test_list_namespaces_prefix_suffix_depth_and_pages(store: BaseStore) -> None:
    _put_all(
        store,
        [
            ("a", "b", "c"),
            ("a", "b", "d", "e"),
            ("a", "b", "d", "i"),
            ("a", "b", "f"),
            ("a", "c", "f"),
            ("b", "a", "f"),
            ("users", "123"),
            ("users", "456", "settings"),
            ("admin", "users", "789"),
        ],
    )
    ab = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "b")) == ab
    assert sorted(store.list_namespaces(suffix=("f",))) == [
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
    ]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == ab[:2]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == ab[2:]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert len(store.list_namespaces(suffix=("*", "f"))) == 3
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]


def test_list_namespaces_wildcards(store: BaseStore) -> None:
    _put_all(
        store,
        [
            ("users", "123"),
            ("users", "456"),
            ("users", "789", "settings"),
            ("admin", "users", "789"),
            ("guests", "123"),
            ("guests", "456", "preferences"),
        ],
    )
    assert store.list_namespaces(prefix=("users", "*")) == [
        ("users", "123"),
        ("users", "456"),
        ("users", "789", "settings"),
    ]
    assert store.list_namespaces(suffix=("*", "preferences")) == [("guests", "456", "preferences")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []


def test_list_namespaces_pagination_depth_and_empty(store: BaseStore) -> None:
    assert store.list_namespaces() == []
    for i in range(12):
        store.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": i})
    assert store.list_namespaces(prefix=("namespace",), limit=5, offset=5) == [
        ("namespace", f"sub_{i:02d}") for i in range(5, 10)
    ]
    store.put(("a", "b", "c", "d"), "x", {"data": 1})
    store.put(("a", "g"), "x", {"data": 1})
    subs = [("namespace", f"sub_{i:02d}") for i in range(12)]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "g"), *subs]


async def test_invalid_namespaces_are_refused(store: BaseStore) -> None:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            await store.aput(bad, "foo", doc)
    ns = ("foo", "langgraph", "foo")
    await store.aput(ns, "bar", doc)
    assert (await store.aget(ns, "bar")).value == doc  # type: ignore[union-attr]
    assert (await store.asearch(ns))[0].value == doc
    await store.adelete(ns, "bar")
    assert await store.aget(ns, "bar") is None
    # The batch API does not validate (LangGraph's own namespace is written that way).
    await store.abatch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert store.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    store.delete(("langgraph", "foo"), "bar")
    assert store.get(("langgraph", "foo"), "bar") is None


async def test_concurrent_async_calls_and_last_put_wins(store: BaseStore) -> None:
    await asyncio.gather(
        store.aput(("test",), "same", {"value": "same"}),
        store.aput(("test",), "different", {"value": "different"}),
    )
    same, again, different = await asyncio.gather(
        store.aget(("test",), "same"),
        store.aget(("test",), "same"),
        store.aget(("test",), "different"),
    )
    assert same == again and same != different
    assert same is not None and same.value == {"value": "same"}
    assert different is not None and different.value == {"value": "different"}
    store.batch([PutOp(("test",), "key", {"value": 1}), PutOp(("test",), "key", {"value": 2})])
    got = await store.aget(("test",), "key")
    assert got is not None and got.value == {"value": 2}
    found = await store.asearch(("test",), filter={"value": 2})
    assert [i.key for i in found] == ["key"]


DOCS = [
    ("doc1", {"text": "short text"}),
    ("doc2", {"text": "longer text document"}),
    ("doc3", {"text": "longest text document here"}),
    ("doc4", {"description": "text in description field"}),
]


async def test_search_by_query_ranks_embedded_items(store: BaseStore) -> None:
    for key, value in DOCS:
        await store.aput(("test",), key, value)
    results = await store.asearch(("test",), query="longer text document")
    assert results[0].key == "doc2"
    assert results[0].score is not None
    assert {"doc2", "doc3"} <= {r.key for r in results}
    # doc4 has no "text" field: not embedded, listed after the scored items, without a score.
    assert results[-1].key == "doc4" and results[-1].score is None


def test_update_replaces_the_embedding_and_index_false_is_not_ranked(store: BaseStore) -> None:
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("test",), "doc2", {"text": "something about dogs"})
    store.put(("test",), "doc3", {"text": "text about birds"})
    first = store.search(("test",), query="Zany Xerxes")
    assert first[0].key == "doc1"
    before = first[0].score
    assert before is not None
    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = store.search(("test",), query="Zany Xerxes")
    assert [r.key for r in after].count("doc1") == 1  # replaced, no stale duplicate
    after_score = next(r.score for r in after if r.key == "doc1")
    assert after_score is not None and after_score < before
    new = store.search(("test",), query="new text about dogs")
    assert new[0].key == "doc1"
    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    top3 = store.search(("test",), query="new text about dogs", limit=3)
    assert "doc4" not in [r.key for r in top3]


COLORED = [
    ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
    ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
    ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
    ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
]


def test_search_with_filters(store: BaseStore) -> None:
    for key, value in COLORED:
        store.put(("test",), key, value)
    apple = store.search(("test",), query="apple", filter={"color": "red"})
    assert [r.key for r in apple][:1] == ["doc1"] and len(apple) == 2
    car = store.search(("test",), query="car", filter={"color": "red"})
    assert [r.key for r in car][:1] == ["doc2"] and len(car) == 2
    blue = store.search(("test",), query="blue", filter={"score": {"$gt": 3.2}})
    assert len(blue) == 3 and blue[0].key == "doc4"
    both = store.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert [r.key for r in both] == ["doc3"]
    assert {r.key for r in store.search(("test",), filter={"color": {"$ne": "red"}})} == {
        "doc3",
        "doc4",
    }
    assert [r.key for r in store.search(("test",), filter={"score": {"$lt": 3.2}})] == ["doc2"]


async def test_concurrent_searches_respect_their_filters(store: BaseStore) -> None:
    colors, things = ["red", "blue", "green"], ["apple", "car", "house"]
    await asyncio.gather(
        *[
            store.aput(
                ("test",),
                f"doc{i}",
                {"text": f"{colors[i % 3]} {things[i % 3]}", "color": colors[i % 3], "index": i},
            )
            for i in range(15)
        ]
    )
    queries: list[tuple[str, dict[str, Any]]] = [
        ("apple", {"color": "red"}),
        ("car", {"color": "blue"}),
        ("house", {"index": {"$gt": 9}}),
        ("apple", {"index": {"$lte": 4}}),
    ]
    found = await asyncio.gather(*[store.asearch(("test",), query=q, filter=f) for q, f in queries])
    for results, (_, filter_) in zip(found, queries, strict=True):
        assert results
        for item in results:
            if "color" in filter_:
                assert item.value["color"] == filter_["color"]
            if "$gt" in filter_.get("index", {}):
                assert item.value["index"] > 9
            if "$lte" in filter_.get("index", {}):
                assert item.value["index"] <= 4


def test_query_pagination_and_edge_cases(store: BaseStore) -> None:
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = store.search(("test",), query="test", limit=2)
    page2 = store.search(("test",), query="test", limit=2, offset=2)
    assert len(page1) == len(page2) == 2
    assert not {r.key for r in page1} & {r.key for r in page2}
    assert len(store.search(("test",), query="test", limit=10)) == 5
    for query in ["", None, "test " * 100, "test!@#$%^&*()"]:
        assert len(store.search(("test",), query=query)) == 5


def test_a_filtered_item_far_down_the_ranking_is_still_scored(store: BaseStore) -> None:
    for i in range(40):
        store.put(("test",), f"doc{i}", {"text": f"apple pie recipe {i}", "group": i % 2})
    store.put(("test",), "odd", {"text": "motorbike engine repair", "group": 7})
    (found,) = store.search(("test",), query="apple pie", filter={"group": 7}, limit=1)
    assert found.key == "odd" and found.score is not None
    top = store.search(("test",), query="apple pie", filter={"group": 1}, limit=3)
    assert all(r.score is not None and r.value["group"] == 1 for r in top)


@pytest.fixture(params=["inmemory", "engramdb"])
def make_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A factory of stores of one kind with a given ``fields`` index config."""
    made: list[EngramdbStore] = []

    def make(fields: list[str]) -> BaseStore:
        if request.param == "inmemory":
            return InMemoryStore(index={"dims": 64, "embed": _embed, "fields": fields})
        made.append(EngramdbStore(index={"fields": fields}, dataset_prefix=f"s{len(made)}"))
        return made[-1]

    yield make
    for store in made:
        store.close()


async def test_each_indexed_field_is_its_own_vector(make_store: Any) -> None:
    """An item ranks by its best field: the same text in two items' fields scores the same."""
    store = make_store(["key0", "key1", "key3"])  # key2 is not indexed
    await store.aput(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})
    await store.aput(
        ("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"}
    )
    first, second = await store.asearch(("test",), query="xxx")
    assert first.key != second.key
    assert first.score == pytest.approx(second.score, abs=1e-5)
    best = first.score
    by_u = await store.asearch(("test",), query="uuu")
    assert by_u[0].key == "doc2" and by_u[0].score == pytest.approx(best, abs=1e-5)
    assert by_u[0].score > by_u[1].score
    assert all(r.score < best for r in await store.asearch(("test",), query="www"))

    per_put = make_store(["key17"])  # the put's own index list wins over the store's
    await per_put.aput(
        ("test",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc"}, index=["key0", "key1"]
    )
    await per_put.aput(
        ("test",), "doc4", {"key0": "eee", "key1": "bbb", "key3": "ggg"}, index=["key1", "key3"]
    )
    assert (await per_put.asearch(("test",), query="aaa"))[0].key == "doc3"
    assert (await per_put.asearch(("test",), query="ggg"))[0].key == "doc4"
    tie = await per_put.asearch(("test",), query="bbb")
    assert tie[0].score == pytest.approx(tie[1].score, abs=1e-5)
    await per_put.aput(("test",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
    found = await per_put.asearch(("test",), query="hhh")
    assert len(found) == 3 and next(r for r in found if r.key == "doc5").score is None


def test_non_ascii_texts_find_themselves(store: BaseStore) -> None:
    texts = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
    for i, text in enumerate(texts):
        store.put(("user_123", "memories"), str(i), {"text": text})
    for i, text in enumerate(texts):
        assert store.search(("user_123", "memories"), query=text)[0].key == str(i)


def test_an_empty_prefix_searches_every_namespace(store: BaseStore) -> None:
    store.put(("a",), "k", {"v": 1})
    store.put(("b", "c"), "k", {"v": 2})
    assert sorted(r.value["v"] for r in store.search(())) == [1, 2]


# --- beyond InMemoryStore: what engramdb adds or does differently ------------------------------


@pytest.fixture
def ours() -> Iterator[EngramdbStore]:
    store = EngramdbStore()
    yield store
    store.close()


async def test_concurrent_puts_of_one_key_leave_one_item(ours: EngramdbStore) -> None:
    await asyncio.gather(
        *[ours.aput(("a",), "k", {"text": f"version {i}", "i": i}) for i in range(6)]
    )
    found = await ours.asearch(("a",), query="version")
    assert len(found) == 1  # one whole value, never a mix or a duplicate
    assert found[0].value["text"] == f"version {found[0].value['i']}"
    assert len(await ours.engine.datasets.list_data((await ours.engine.list_datasets())[0].id)) == 1


def test_dotted_filter_keys_reach_nested_fields(ours: EngramdbStore) -> None:
    """As newer LangGraph InMemoryStores do (test_inmemory_store_dotted_filters.py)."""
    ours.put(("docs",), "hyphen", {"user": {"access-level": "nested"}})
    ours.put(("docs",), "other", {"user": {"access-level": "top"}})
    assert [r.key for r in ours.search(("docs",), filter={"user.access-level": "nested"})] == [
        "hyphen"
    ]


async def test_each_user_has_their_own_items() -> None:
    import engramdb
    from engramdb.engine import close_default_engine

    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    await close_default_engine()
    with EngramdbStore(user=alice) as a, EngramdbStore(user=bob) as b:
        await a.aput(("memories",), "name", {"text": "I am Alice"})
        await b.aput(("memories",), "name", {"text": "I am Bob"})
        assert (await a.aget(("memories",), "name")).value == {"text": "I am Alice"}  # type: ignore[union-attr]
        assert [r.value["text"] for r in await b.asearch(("memories",), query="who am I")] == [
            "I am Bob"
        ]
        await a.adelete(("memories",), "name")
        assert await a.alist_namespaces() == []
        assert await b.alist_namespaces() == [("memories",)]


def test_values_round_trip_and_created_at_survives_updates(ours: EngramdbStore) -> None:
    value = {"n": 1, "f": 0.1, "s": "naïve ☃", "nested": {"l": [1, None, True]}, "empty": {}}
    ours.put(("users", "alice@example"), "profile", value)
    first = ours.get(("users", "alice@example"), "profile")
    assert first is not None and first.value == value and first.created_at == first.updated_at
    assert first.created_at.tzinfo is not None
    ours.put(("users", "alice@example"), "profile", {"n": 2})
    second = ours.get(("users", "alice@example"), "profile")
    assert second is not None and second.value == {"n": 2}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert ours.list_namespaces() == [("users", "alice@example")]


def test_items_persist_across_stores_on_one_data_dir() -> None:
    with EngramdbStore() as writer:
        writer.put(("memories", "u1"), "pet", {"text": "my dog is called Rex"})
    with EngramdbStore() as reader:
        item = reader.get(("memories", "u1"), "pet")
        assert item is not None and item.value == {"text": "my dog is called Rex"}
        assert reader.search(("memories",), query="dog name")[0].key == "pet"


async def test_items_are_engramdb_memory(ours: EngramdbStore) -> None:
    """What an agent stores is searchable by recall like anything remembered."""
    await ours.aput(("memories", "u1"), "pet", {"text": "my dog is called Rex"})
    results = await ours.engine.recall("dog", datasets=["lgstore.memories.u1"], top_k=1)
    assert "Rex" in results[0].text


def test_deleting_the_last_item_drops_the_namespace(ours: EngramdbStore) -> None:
    ours.put(("a",), "k", {"v": 1})
    ours.put(("b",), "k", {"v": 1})
    ours.delete(("a",), "k")
    assert ours.list_namespaces() == [("b",)]
    assert ours.search(("a",)) == []


def test_long_and_unusual_namespaces_round_trip(ours: EngramdbStore) -> None:
    long_ns = ("x" * 90, "y" * 90)
    ours.put(long_ns, "k", {"v": 1})
    ours.put(("ü/ser", "a-b c"), "k", {"v": 2})
    assert ours.list_namespaces() == sorted([long_ns, ("ü/ser", "a-b c")])
    assert ours.get(long_ns, "k").value == {"v": 1}  # type: ignore[union-attr]


def test_foreign_embedders_and_bad_values_are_refused(ours: EngramdbStore) -> None:
    with pytest.raises(ValueError, match="embedder"):
        EngramdbStore(index={"dims": 8, "embed": _embed})  # type: ignore[typeddict-item]
    ours.put(("a",), "k", {"v": 1})
    with pytest.raises(ValueError, match="JSON"):
        ours.put(("a",), "k", {"v": object()})
    with pytest.raises(ValueError, match="bytes"):
        ours.put(("a",), "k", {"v": "x" * (MAX_VALUE_BYTES + 1)})
    for bad_ttl in (-1, 0, float("nan"), "5"):
        with pytest.raises(ValueError, match="ttl must be"):
            ours.put(("a",), "k", {"v": 2}, ttl=bad_ttl)  # type: ignore[arg-type]
    assert ours.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
    ours.put(("a",), "big", {"v": "x" * (MAX_VALUE_BYTES - 20)})
    assert len(ours.get(("a",), "big").value["v"]) == MAX_VALUE_BYTES - 20  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="unknown key"):
        EngramdbStore(ttl_config={"default": 5})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(ValueError, match="default_ttl"):
        EngramdbStore(ttl_config={"default_ttl": -5})


async def test_sync_calls_work_inside_a_running_loop(ours: EngramdbStore) -> None:
    """A sync LangGraph node may run while an event loop runs in the same thread."""
    ours.put(("a",), "k", {"v": 1})
    assert ours.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]


# --- TTL ----------------------------------------------------------------------------------------
# The installed InMemoryStore has no TTL (``supports_ttl`` is False: ``put(ttl=...)`` raises), so
# these cases pin the semantics LangGraph's own docstrings give (``PutOp.ttl``, ``TTLConfig``)
# on EngramdbStore alone, with real short TTLs (fractions of a minute) and real sleeps.

TTL_SECONDS = 3.0
TTL = TTL_SECONDS / 60  # minutes, as LangGraph counts them


@pytest.fixture
def ttl_store() -> Iterator[Any]:
    """A factory of EngramdbStores with a given ``ttl_config``, each on its own prefix."""
    made: list[EngramdbStore] = []

    def make(ttl_config: dict[str, Any] | None = None) -> EngramdbStore:
        made.append(EngramdbStore(ttl_config=ttl_config, dataset_prefix=f"ttl{len(made)}"))  # type: ignore[arg-type]
        return made[-1]

    yield make
    for store in made:
        store.close()


async def _stored_keys() -> list[str]:
    """The items physically held (expired or not), as another engine on the same storage sees
    them: what a sweep has not deleted yet."""
    from engramdb.engine import Engine

    keys: list[str] = []
    async with Engine() as probe:
        for dataset in await probe.list_datasets():
            for data in await probe.datasets.list_data(dataset.id):
                keys.append(data.external_metadata["langgraph_store"]["key"])
    return sorted(keys)


async def test_an_expired_item_is_invisible_before_any_sweep(ttl_store: Any) -> None:
    """PutOp.ttl: "the item will expire this many minutes after it was last accessed";
    TTLConfig.omit_expired: expired items "will not be returned by GET or SEARCH, or included
    in namespace listings, even before a TTL sweep deletes them"."""
    store = ttl_store({"default_ttl": TTL})
    await store.abatch(
        [
            PutOp(("gone",), "e", {"text": "ephemeral note"}, ttl=TTL),
            PutOp(("mixed",), "e", {"text": "ephemeral note"}, ttl=TTL),
            PutOp(("mixed",), "c", {"text": "lasting note"}),
            PutOp(("kept",), "c", {"text": "lasting note"}),
        ]
    )
    assert (await store.aget(("gone",), "e", refresh_ttl=False)) is not None
    assert len(await store.asearch((), refresh_ttl=False)) == 4
    await asyncio.sleep(TTL_SECONDS + 0.3)
    assert await store.aget(("gone",), "e") is None  # a refreshing read does not resurrect it
    assert await store.asearch(("gone",)) == []
    assert await store.asearch(("gone",), query="ephemeral note") == []
    found = await store.asearch((), query="note")
    assert sorted((r.namespace, r.key) for r in found) == [(("kept",), "c"), (("mixed",), "c")]
    assert await store.alist_namespaces() == [("kept",), ("mixed",)]
    assert await _stored_keys() == ["c", "c", "e", "e"]  # hidden, not yet deleted
    assert await store.asweep_ttl() == 2
    assert await _stored_keys() == ["c", "c"]
    assert await store.alist_namespaces() == [("kept",), ("mixed",)]  # the emptied one is gone
    assert await store.asweep_ttl() == 0


def test_reads_refresh_the_ttl_unless_told_not_to(ttl_store: Any) -> None:
    """TTLConfig.refresh_on_read: "TTLs will be refreshed on read operations (get/search) by
    default. This can be overridden per-operation by explicitly setting refresh_ttl"."""
    store = ttl_store()  # refresh_on_read defaults to True
    lazy = ttl_store({"refresh_on_read": False})
    store.batch([PutOp(("n",), k, {"k": k}, ttl=TTL) for k in ("got", "searched", "peeked")])
    lazy.batch([PutOp(("n",), k, {"k": k}, ttl=TTL) for k in ("got", "forced")])
    time.sleep(TTL_SECONDS * 0.6)
    assert store.get(("n",), "got") is not None
    assert [r.key for r in store.search(("n",), filter={"k": "searched"})] == ["searched"]
    assert store.get(("n",), "peeked", refresh_ttl=False) is not None
    assert lazy.get(("n",), "got") is not None
    assert lazy.get(("n",), "forced", refresh_ttl=True) is not None
    time.sleep(TTL_SECONDS * 0.6)  # past the first expiry: only the refreshed items are left
    assert sorted(r.key for r in store.search(("n",), refresh_ttl=False)) == ["got", "searched"]
    assert [r.key for r in lazy.search(("n",))] == ["forced"]


def test_ttl_none_keeps_an_item_and_a_put_sets_the_ttl_afresh(ttl_store: Any) -> None:
    """TTLConfig.default_ttl: "new items will expire after this many minutes"; PutOp.ttl:
    "Defaults to None (no expiration)"."""
    store = ttl_store({"default_ttl": TTL})
    store.put(("n",), "default", {"v": 1})  # no ttl given: the store's default
    store.put(("n",), "forever", {"v": 1}, ttl=None)
    store.put(("n",), "reset", {"v": 1})
    store.put(("n",), "reset", {"v": 2}, ttl=None)  # the new put's TTL replaces the old one
    first = store.get(("n",), "default", refresh_ttl=False)
    assert first is not None
    time.sleep(TTL_SECONDS + 0.3)
    assert store.get(("n",), "default") is None
    assert store.get(("n",), "forever").value == {"v": 1}  # type: ignore[union-attr]
    assert store.get(("n",), "reset").value == {"v": 2}  # type: ignore[union-attr]
    store.put(("n",), "default", {"v": 3}, ttl=None)  # a new item: the expired one was gone
    again = store.get(("n",), "default")
    assert again is not None and again.created_at > first.created_at
    assert store.sweep_ttl() == 0  # nothing expired is left: the new put has no TTL
    assert sorted(store.list_namespaces()) == [("n",)]


def test_the_sweeper_deletes_expired_items(ttl_store: Any) -> None:
    """TTLConfig.sweep_interval_minutes: "the store will periodically delete expired items"."""
    store = ttl_store({"default_ttl": TTL, "sweep_interval_minutes": 0.5 / 60})
    store.put(("n",), "k", {"v": 1})
    store.put(("other",), "k", {"v": 1}, ttl=None)
    assert asyncio.run(_stored_keys()) == ["k", "k"]
    time.sleep(TTL_SECONDS + 1.5)
    assert asyncio.run(_stored_keys()) == ["k"]  # deleted, not merely hidden
    assert store.list_namespaces() == [("other",)]
    assert store.stop_ttl_sweeper(timeout=5) is True
    manual = ttl_store()
    assert manual.start_ttl_sweeper().done()  # nothing configured: nothing to run
    running = manual.start_ttl_sweeper(0.5 / 60)
    assert not running.done() and manual.start_ttl_sweeper() is running
    assert manual.stop_ttl_sweeper(timeout=5) is True and running.cancelled()
