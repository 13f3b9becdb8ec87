"""The Store's "users, api keys, grants" section: administrator flags, hashed API keys, grants.

Backend-agnostic: runs against every backend of ``conftest.BACKENDS``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from uuid import uuid4

import pytest

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.access import ApiKeyInfo, Grant, Permission
from engramdb.models.records import Dataset, User, utcnow
from engramdb.storage.base import DocumentWrite, Store
from tests.conformance._helpers import data_record, entity


def _key(user: User, name: str = "") -> ApiKeyInfo:
    key_id = uuid4()
    return ApiKeyInfo(
        id=key_id, user_id=user.id, name=name, prefix=f"egm_{key_id.hex}", created_at=utcnow()
    )


def _grant(dataset: Dataset, grantee: User, permission: Permission, by: User) -> Grant:
    return Grant(
        dataset_id=dataset.id,
        grantee_id=grantee.id,
        permission=permission,
        granted_by=by.id,
        created_at=utcnow(),
    )


@pytest.fixture
async def bob(store: Store) -> User:
    return await store.create_user(f"bob-{uuid4().hex[:8]}@example.com")


# --- users ---------------------------------------------------------------------------------------


async def test_users_are_not_admins_until_made_so(store: Store, user: User, bob: User) -> None:
    assert user.is_admin is False and bob.is_admin is False
    promoted = await store.set_user_admin(bob.id, True)
    assert promoted.is_admin is True and promoted.email == bob.email
    fetched = await store.get_user(bob.id)
    assert fetched is not None and fetched.is_admin is True
    assert (await store.set_user_admin(bob.id, False)).is_admin is False
    with pytest.raises(NotFoundError):
        await store.set_user_admin(uuid4(), True)


async def test_find_user_by_email_is_exact_and_list_users_is_oldest_first(
    store: Store, user: User, bob: User
) -> None:
    assert await store.find_user_by_email(bob.email) == bob
    assert await store.find_user_by_email("nobody@example.com") is None
    assert [u.id for u in await store.list_users()] == [user.id, bob.id]


# --- api keys ------------------------------------------------------------------------------------


async def test_api_key_round_trip_and_listing(store: Store, user: User, bob: User) -> None:
    first = await store.add_api_key(_key(bob, "laptop"), "a" * 64)
    second = await store.add_api_key(_key(bob), "b" * 64)
    await store.add_api_key(_key(user), "c" * 64)

    stored = await store.get_api_key(first.id)
    assert stored is not None
    assert stored.info == first and stored.secret_hash == "a" * 64
    assert [k.id for k in await store.list_api_keys(bob.id)] == [first.id, second.id]
    assert await store.get_api_key(uuid4()) is None
    assert await store.list_api_keys(uuid4()) == []


async def test_api_key_errors_write_nothing(store: Store, bob: User) -> None:
    key = await store.add_api_key(_key(bob), "a" * 64)
    with pytest.raises(ConflictError):
        await store.add_api_key(key.model_copy(update={"name": "again"}), "b" * 64)
    stranger = User(id=uuid4(), email="ghost@example.com", created_at=utcnow())
    with pytest.raises(NotFoundError):
        await store.add_api_key(_key(stranger), "c" * 64)
    stored = await store.get_api_key(key.id)
    assert stored is not None and stored.secret_hash == "a" * 64 and stored.info.name == ""
    assert await store.list_api_keys(stranger.id) == []


async def test_revoking_a_key_is_durable_and_idempotent(
    store: Store, bob: User, open_store: Callable[[], Store]
) -> None:
    key = await store.add_api_key(_key(bob), "a" * 64)
    revoked = await store.revoke_api_key(key.id)
    assert revoked is not None and revoked.revoked and revoked.id == key.id
    again = await store.revoke_api_key(key.id)
    assert again is not None and again.revoked_at == revoked.revoked_at  # first time kept
    assert await store.revoke_api_key(uuid4()) is None

    other = open_store()  # "another process" sees the revocation at once
    try:
        seen = await other.get_api_key(key.id)
        assert seen is not None and seen.info.revoked
    finally:
        await other.close()


# --- grants --------------------------------------------------------------------------------------


async def test_grants_are_idempotent_and_listed_in_order(
    store: Store, user: User, bob: User, dataset: Dataset
) -> None:
    carol = await store.create_user(f"carol-{uuid4().hex[:8]}@example.com")
    first = await store.add_grant(_grant(dataset, bob, "read", user))
    # the same grant again (by someone else, later) keeps the stored one
    later = _grant(dataset, bob, "read", carol).model_copy(
        update={"created_at": utcnow() + timedelta(seconds=5)}
    )
    assert await store.add_grant(later) == first
    await store.add_grant(_grant(dataset, bob, "write", user))
    await store.add_grant(_grant(dataset, carol, "share", user))

    listed = await store.list_grants(dataset.id)
    assert [(g.grantee_id, g.permission) for g in listed] == [
        (bob.id, "read"),
        (bob.id, "write"),
        (carol.id, "share"),
    ]
    assert listed[0].granted_by == user.id
    assert await store.granted_permissions(dataset.id, bob.id) == frozenset({"read", "write"})
    assert await store.granted_permissions(dataset.id, user.id) == frozenset()  # owner: no rows
    assert await store.granted_permissions(uuid4(), bob.id) == frozenset()


async def test_grant_to_unknown_dataset_or_user_writes_nothing(
    store: Store, user: User, bob: User, dataset: Dataset
) -> None:
    ghost_ds = dataset.model_copy(update={"id": uuid4()})
    with pytest.raises(NotFoundError):
        await store.add_grant(_grant(ghost_ds, bob, "read", user))
    ghost = User(id=uuid4(), email="ghost@example.com", created_at=utcnow())
    with pytest.raises(NotFoundError):
        await store.add_grant(_grant(dataset, ghost, "read", user))
    assert await store.list_grants(dataset.id) == []
    assert await store.list_granted_datasets(bob.id) == []


async def test_remove_grant_takes_effect_for_every_store_object(
    store: Store,
    user: User,
    bob: User,
    dataset: Dataset,
    open_store: Callable[[], Store],
) -> None:
    await store.add_grant(_grant(dataset, bob, "read", user))
    await store.add_grant(_grant(dataset, bob, "delete", user))
    other = open_store()
    try:
        assert await other.granted_permissions(dataset.id, bob.id) == {"read", "delete"}
        assert await store.remove_grant(dataset.id, bob.id, "read") is True
        assert await store.remove_grant(dataset.id, bob.id, "read") is False
        assert await other.granted_permissions(dataset.id, bob.id) == {"delete"}
        assert [d.id for d in await other.list_granted_datasets(bob.id, "read")] == []
    finally:
        await other.close()


async def test_list_granted_datasets_filters_by_grantee_and_permission(
    store: Store, user: User, bob: User, dataset: Dataset, other_dataset: Dataset
) -> None:
    carol = await store.create_user(f"carol-{uuid4().hex[:8]}@example.com")
    await store.add_grant(_grant(other_dataset, bob, "write", user))
    await store.add_grant(_grant(dataset, bob, "read", user))
    await store.add_grant(_grant(dataset, bob, "share", user))
    await store.add_grant(_grant(other_dataset, carol, "read", user))

    # ordered by the datasets' creation, each once
    assert [d.id for d in await store.list_granted_datasets(bob.id)] == [
        dataset.id,
        other_dataset.id,
    ]
    assert [d.id for d in await store.list_granted_datasets(bob.id, "read")] == [dataset.id]
    assert [d.id for d in await store.list_granted_datasets(bob.id, "delete")] == []
    assert [d.id for d in await store.list_granted_datasets(carol.id)] == [other_dataset.id]
    assert await store.list_granted_datasets(user.id) == []  # ownership is not a grant


async def test_grants_go_with_their_dataset(
    store: Store, user: User, bob: User, dataset: Dataset, other_dataset: Dataset
) -> None:
    await store.write_document(
        DocumentWrite(data=data_record(dataset.id), nodes=[entity(dataset.id, "Owl")], vectors=())
    )
    await store.add_grant(_grant(dataset, bob, "read", user))
    await store.add_grant(_grant(other_dataset, bob, "read", user))
    await store.delete_dataset(dataset.id)
    assert await store.list_grants(dataset.id) == []
    assert [d.id for d in await store.list_granted_datasets(bob.id)] == [other_dataset.id]

    # a new dataset of the same name is a new dataset: the old grant does not carry over
    again = await store.get_or_create_dataset(user.id, dataset.name)
    assert again.id != dataset.id
    assert await store.granted_permissions(again.id, bob.id) == frozenset()

    await store.delete_everything()
    assert await store.list_granted_datasets(bob.id) == []
    # users and their keys survive delete_everything
    assert await store.get_user(bob.id) is not None
