"""The Store's tenants and roles: members, the selected tenant, a dataset's tenant, grants to any
principal. Backend-agnostic: runs against every backend of ``conftest.BACKENDS``."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID, uuid4

import pytest

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.access import Grant, Permission, PrincipalKind, Role, Tenant
from engramdb.models.records import Dataset, User, utcnow
from engramdb.storage.base import Store
from engramdb.storage.types import Membership


def _tenant(owner: User, name: str = "Lab") -> Tenant:
    return Tenant(id=uuid4(), name=name, owner_id=owner.id, created_at=utcnow())


def _role(tenant: Tenant, name: str = "Researcher") -> Role:
    return Role(id=uuid4(), tenant_id=tenant.id, name=name, created_at=utcnow())


def _grant(
    dataset: Dataset, grantee: UUID, kind: PrincipalKind, permission: Permission, by: User
) -> Grant:
    return Grant(
        dataset_id=dataset.id,
        grantee_id=grantee,
        permission=permission,
        granted_by=by.id,
        created_at=utcnow(),
        grantee_kind=kind,
    )


@pytest.fixture
async def bob(store: Store) -> User:
    return await store.create_user(f"bob-{uuid4().hex[:8]}@example.com")


async def test_a_tenant_starts_with_its_owner_as_member_and_can_be_selected(
    store: Store, user: User, bob: User
) -> None:
    lab = await store.create_tenant(_tenant(user), select=True)
    assert await store.get_tenant(lab.id) == lab
    assert await store.get_tenant(uuid4()) is None
    assert await store.list_user_tenants(user.id) == [lab]
    assert (await store.get_user(user.id)).tenant_id == lab.id  # type: ignore[union-attr]
    assert await store.membership(user.id) == Membership(lab.id, True, ())

    side = await store.create_tenant(_tenant(bob, "Side"), select=False)
    assert (await store.get_user(bob.id)).tenant_id is None  # type: ignore[union-attr]
    assert await store.membership(bob.id) == Membership(None, False, ())
    with pytest.raises(NotFoundError):
        await store.create_tenant(
            _tenant(User(id=uuid4(), email="g@x.io", created_at=utcnow())), select=True
        )
    assert [t.id for t in await store.list_user_tenants(bob.id)] == [side.id]


async def test_members_and_selection(store: Store, user: User, bob: User) -> None:
    lab = await store.create_tenant(_tenant(user), select=True)
    # not a member: selecting changes nothing
    assert await store.select_tenant(bob.id, lab.id) is None
    assert (await store.get_user(bob.id)).tenant_id is None  # type: ignore[union-attr]
    assert await store.add_tenant_member(lab.id, bob.id) is True
    assert await store.add_tenant_member(lab.id, bob.id) is False
    selected = await store.select_tenant(bob.id, lab.id)
    assert selected is not None and selected.tenant_id == lab.id
    back = await store.select_tenant(bob.id, None)
    assert back is not None and back.tenant_id is None
    assert await store.select_tenant(uuid4(), None) is None
    with pytest.raises(NotFoundError):
        await store.add_tenant_member(uuid4(), bob.id)
    with pytest.raises(NotFoundError):
        await store.add_tenant_member(lab.id, uuid4())


async def test_roles_are_unique_per_tenant_and_held_only_by_members(
    store: Store, user: User, bob: User, open_store: Callable[[], Store]
) -> None:
    lab = await store.create_tenant(_tenant(user), select=True)
    side = await store.create_tenant(_tenant(user, "Side"), select=False)
    role = await store.create_role(_role(lab))
    assert await store.get_role(role.id) == role
    with pytest.raises(ConflictError):
        await store.create_role(_role(lab))
    await store.create_role(_role(side))  # the same name in another tenant is another role
    with pytest.raises(NotFoundError):
        await store.create_role(Role(id=uuid4(), tenant_id=uuid4(), name="x", created_at=utcnow()))

    with pytest.raises(NotFoundError):  # Bob is not a member of Lab: nothing written
        await store.add_role_member(role.id, bob.id)
    await store.add_tenant_member(lab.id, bob.id)
    assert await store.add_role_member(role.id, bob.id) is True
    assert await store.add_role_member(role.id, bob.id) is False
    with pytest.raises(NotFoundError):
        await store.add_role_member(uuid4(), bob.id)
    assert await store.list_user_roles(bob.id, lab.id) == [role]
    assert await store.list_user_roles(bob.id, side.id) == []

    other = open_store()  # another process sees the role once Bob works in Lab
    try:
        assert await other.membership(bob.id) == Membership(None, False, ())
        await store.select_tenant(bob.id, lab.id)
        assert await other.membership(bob.id) == Membership(lab.id, True, (role.id,))
    finally:
        await other.close()


async def test_a_dataset_takes_its_owners_selected_tenant(store: Store, user: User) -> None:
    personal = await store.get_or_create_dataset(user.id, "personal")
    lab = await store.create_tenant(_tenant(user), select=True)
    in_lab = await store.get_or_create_dataset(user.id, "in-lab")
    assert personal.tenant_id is None and in_lab.tenant_id == lab.id
    assert (await store.get_dataset(in_lab.id)).tenant_id == lab.id  # type: ignore[union-attr]
    # an existing dataset keeps its tenant whatever its owner works in now
    assert (await store.get_or_create_dataset(user.id, "personal")).tenant_id is None


async def test_grants_to_roles_and_tenants_and_the_multi_principal_reads(
    store: Store, user: User, bob: User
) -> None:
    lab = await store.create_tenant(_tenant(user), select=True)
    role = await store.create_role(_role(lab))
    first = await store.get_or_create_dataset(user.id, "first")
    second = await store.get_or_create_dataset(user.id, "second")
    stored = await store.add_grant(_grant(first, role.id, "role", "read", user))
    assert stored.grantee_kind == "role"
    await store.add_grant(_grant(second, lab.id, "tenant", "write", user))
    await store.add_grant(_grant(second, bob.id, "user", "share", user))
    with pytest.raises(NotFoundError):  # the grantee must exist as that kind
        await store.add_grant(_grant(first, bob.id, "role", "read", user))
    with pytest.raises(NotFoundError):
        await store.add_grant(_grant(first, uuid4(), "tenant", "read", user))

    assert [g.grantee_kind for g in await store.list_grants(first.id)] == ["role"]
    assert await store.permissions_of(first.id, [bob.id]) == frozenset()
    assert await store.permissions_of(first.id, [bob.id, role.id]) == {"read"}
    assert await store.permissions_of(second.id, [bob.id, role.id, lab.id]) == {"write", "share"}
    assert await store.permissions_of(second.id, []) == frozenset()
    everyone = [bob.id, role.id, lab.id]
    assert [d.id for d in await store.datasets_granted_to(everyone)] == [first.id, second.id]
    assert [d.id for d in await store.datasets_granted_to(everyone, "read")] == [first.id]
    assert await store.datasets_granted_to([]) == []
    assert await store.remove_grant(first.id, role.id, "read") is True
    assert await store.permissions_of(first.id, [role.id]) == frozenset()


async def test_a_recreated_dataset_keeps_owner_name_and_tenant(store: Store, user: User) -> None:
    lab = await store.create_tenant(_tenant(user), select=True)
    old = await store.get_or_create_dataset(user.id, "in-lab")
    await store.select_tenant(user.id, None)  # the owner works elsewhere now
    await store.delete_dataset(old.id)
    fresh = await store.recreate_dataset(old)
    assert fresh.id != old.id
    assert (fresh.owner_id, fresh.name, fresh.tenant_id) == (user.id, "in-lab", lab.id)
    assert await store.recreate_dataset(old) == fresh  # already there: returned as is
