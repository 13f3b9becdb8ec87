"""Setup, existence, users and datasets."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from uuid import uuid4

import pytest

from engramdb.errors import ConflictError
from engramdb.models.records import Dataset, User
from engramdb.storage.base import Store


async def test_exists_is_false_before_setup_and_creates_nothing(
    unready_store: Store, tmp_path: Path
) -> None:
    before = sorted(tmp_path.rglob("*"))
    assert await unready_store.exists() is False
    assert sorted(tmp_path.rglob("*")) == before


async def test_setup_is_idempotent_and_keeps_data(store: Store, user: User) -> None:
    created = await store.get_or_create_dataset(user.id, "kept")
    await store.setup()
    await store.setup()
    assert await store.get_dataset(created.id) == created
    assert await store.get_default_user() == user


async def test_exists_needs_the_default_user(store: Store) -> None:
    assert await store.exists() is False
    await store.get_or_create_default_user()
    assert await store.exists() is True


async def test_concurrent_setup_of_two_store_objects(open_store: Callable[[], Store]) -> None:
    first, second = open_store(), open_store()
    try:
        await asyncio.gather(first.setup(), second.setup())
        user = await first.get_or_create_default_user()
        assert await second.get_default_user() == user
    finally:
        await first.close()
        await second.close()


async def test_default_user_is_single_under_concurrency(
    store: Store, open_store: Callable[[], Store]
) -> None:
    other = open_store()
    try:
        users = await asyncio.gather(
            *(store.get_or_create_default_user() for _ in range(8)),
            *(other.get_or_create_default_user() for _ in range(8)),
        )
    finally:
        await other.close()
    assert len({u.id for u in users}) == 1
    default = users[0]
    assert default.is_default
    assert await store.get_default_user() == default
    assert await store.get_user(default.id) == default


async def test_default_user_absent_until_created(store: Store) -> None:
    assert await store.get_default_user() is None


async def test_create_user_and_email_conflict(store: Store, user: User) -> None:
    alice = await store.create_user("alice@example.org")
    assert alice.email == "alice@example.org"
    assert not alice.is_default
    assert await store.get_user(alice.id) == alice
    with pytest.raises(ConflictError):
        await store.create_user("alice@example.org")
    with pytest.raises(ConflictError):
        await store.create_user(user.email)
    assert await store.get_default_user() == user


async def test_times_are_aware_utc(store: Store, user: User, dataset: Dataset) -> None:
    for moment in (user.created_at, dataset.created_at):
        assert moment.tzinfo is not None
        assert moment.utcoffset() == timedelta(0)


async def test_unknown_ids_read_as_none(store: Store, user: User) -> None:
    assert await store.get_user(uuid4()) is None
    assert await store.get_dataset(uuid4()) is None
    assert await store.find_dataset(user.id, "missing") is None
    assert await store.get_data(uuid4()) is None


async def test_dataset_names_are_unique_per_owner(store: Store, user: User) -> None:
    bob = await store.create_user("bob@example.org")
    mine = await store.get_or_create_dataset(user.id, "notes")
    again = await store.get_or_create_dataset(user.id, "notes")
    bobs = await store.get_or_create_dataset(bob.id, "notes")
    assert mine == again
    assert bobs.id != mine.id
    assert bobs.owner_id == bob.id
    assert await store.find_dataset(user.id, "notes") == mine
    assert await store.find_dataset(bob.id, "notes") == bobs
    assert await store.find_dataset(user.id, "Notes") is None


async def test_concurrent_get_or_create_dataset_returns_one(
    store: Store, user: User, open_store: Callable[[], Store]
) -> None:
    other = open_store()
    try:
        found = await asyncio.gather(
            *(store.get_or_create_dataset(user.id, "race") for _ in range(6)),
            *(other.get_or_create_dataset(user.id, "race") for _ in range(6)),
        )
    finally:
        await other.close()
    assert len({d.id for d in found}) == 1
    assert len(await store.list_datasets(user.id)) == 1


async def test_list_datasets_orders_by_creation_and_filters_owner(store: Store, user: User) -> None:
    bob = await store.create_user("bob@example.org")
    names = ["c", "a", "b"]
    for name in names:
        await store.get_or_create_dataset(user.id, name)
    theirs = await store.get_or_create_dataset(bob.id, "z")
    assert [d.name for d in await store.list_datasets(user.id)] == names
    assert await store.list_datasets(bob.id) == [theirs]
    assert [d.name for d in await store.list_datasets()] == [*names, "z"]


async def test_set_dataset_embedding_only_once(store: Store, dataset: Dataset) -> None:
    assert dataset.embedding_model is None and dataset.embedding_dim is None
    first = await store.set_dataset_embedding(dataset.id, "mini", 16)
    assert (first.embedding_model, first.embedding_dim) == ("mini", 16)
    second = await store.set_dataset_embedding(dataset.id, "other", 32)
    assert (second.embedding_model, second.embedding_dim) == ("mini", 16)
    assert await store.get_dataset(dataset.id) == second
