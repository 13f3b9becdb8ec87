"""Tenants and roles at the SDK level: grants to a role or a tenant reach exactly its users, the
tenant walls datasets off, and nobody outside learns anything -- against the real SQLite store
(the PostgreSQL run of the same rules is tests/postgres/test_tenants.py).

Alice owns the tenant "Lab" and its role "Researcher" and a dataset "lab" created while working
in Lab, holding a secret. Bob is a Lab member with the role; Dave a Lab member without it;
Carol is in no tenant. Every "cannot" has a positive control.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from uuid import UUID, uuid4

import pytest

import engramdb
from engramdb.errors import (
    ConflictError,
    EngramError,
    NotFoundError,
    PermissionDeniedError,
    RoleNotFoundError,
    TenantNotFoundError,
)
from engramdb.models.access import Role, Tenant
from engramdb.models.records import User
from tests.integration.test_permissions import _BY_ID, QUERY, SECRET, leaks


@dataclass
class Lab:
    alice: User
    bob: User  # Lab member, Researcher
    dave: User  # Lab member, no role
    carol: User  # in no tenant
    tenant: Tenant
    role: Role
    lab: UUID  # Alice's dataset in Lab
    personal: UUID  # Alice's personal dataset


@pytest.fixture
async def world() -> Lab:
    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    dave = await engramdb.create_user("dave@example.com")
    carol = await engramdb.create_user("carol@example.com")
    personal = await engramdb.remember(SECRET, "mine", user=alice, self_improvement=False)
    tenant = await engramdb.create_tenant("Lab", user=alice)  # Alice now works in Lab
    role = await engramdb.create_role("Researcher", user=alice)
    for member in (bob, dave):
        await engramdb.add_user_to_tenant(member.id, tenant.id, user=alice)
        await engramdb.select_tenant(tenant.id, user=member)
    await engramdb.add_user_to_role(bob.id, role.id, user=alice)
    lab = await engramdb.remember(SECRET, "lab", user=alice, self_improvement=False)
    await engramdb.grant(lab.dataset_id, role.id, "read", user=alice)
    return Lab(alice, bob, dave, carol, tenant, role, lab.dataset_id, personal.dataset_id)


async def _refusal(call: Any) -> EngramError:
    with pytest.raises(EngramError) as caught:
        await call
    return caught.value


async def _same_as_unknown(call: Any, real: UUID) -> None:
    """``call(id)`` refuses ``real`` exactly as it refuses an id that does not exist."""
    unknown = uuid4()
    a, b = await _refusal(call(real)), await _refusal(call(unknown))
    assert type(a) is type(b)
    assert str(a).replace(str(real), "<id>") == str(b).replace(str(unknown), "<id>")


# --- a role's grant reaches its users, and nobody else -----------------------------------------


async def test_a_role_member_reads_by_id_and_the_dataset_is_listed(world: Lab) -> None:
    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.bob))
    assert [d.id for d in await engramdb.list_datasets(user=world.bob)] == [world.lab]
    assert leaks(await engramdb.get_graph(user=world.bob))
    # read only: the role was given nothing else
    with pytest.raises(PermissionDeniedError):
        await engramdb.remember("Bob was here.", world.lab, user=world.bob)
    grants = await engramdb.list_grants(world.lab, user=world.alice)
    assert [(g.grantee_id, g.grantee_kind, g.permission) for g in grants] == [
        (world.role.id, "role", "read")
    ]


@pytest.mark.parametrize("who", ["carol", "dave", "bob_elsewhere"])
@pytest.mark.parametrize(("verb", "call"), _BY_ID, ids=[v for v, _ in _BY_ID])
async def test_outsiders_are_refused_as_for_a_dataset_that_does_not_exist(
    world: Lab, tmp_path: Path, who: str, verb: str, call: Any
) -> None:
    """Carol (no tenant), Dave (Lab member without the role) and Bob working in his personal
    space get, on every verb that takes a dataset id, what an unknown id gets."""
    if who == "bob_elsewhere":
        await engramdb.select_tenant(None, user=world.bob)
    actor = {"carol": world.carol, "dave": world.dave, "bob_elsewhere": world.bob}[who]
    w = SimpleNamespace(bob=actor, carol=world.alice)
    unknown = uuid4()
    real = await _refusal(call(world.lab, w, tmp_path))
    fake = await _refusal(call(unknown, w, tmp_path))
    assert type(real) is PermissionDeniedError and type(fake) is PermissionDeniedError, verb
    assert str(real).replace(str(world.lab), "<id>") == str(fake).replace(str(unknown), "<id>")
    assert "lab" not in str(real).lower().replace(str(world.lab), "")
    assert not leaks(await engramdb.get_graph(user=actor))
    assert world.lab not in [d.id for d in await engramdb.list_datasets(user=actor)]


async def test_revoking_the_roles_grant_takes_effect_at_once(world: Lab) -> None:
    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.bob))
    await engramdb.revoke(world.lab, world.role.id, "read", user=world.alice)
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.bob)
    assert not leaks(await engramdb.get_graph(user=world.bob))
    assert await engramdb.list_datasets(user=world.bob) == []


async def test_a_tenant_grant_reaches_every_member_working_in_it(world: Lab) -> None:
    with pytest.raises(PermissionDeniedError):  # control: Dave holds nothing yet
        await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.dave)
    await engramdb.grant(world.lab, world.tenant.id, "read", user=world.alice)
    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.dave))
    with pytest.raises(PermissionDeniedError):  # not a member
        await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.carol)
    await engramdb.select_tenant(None, user=world.dave)  # working elsewhere: nothing
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.dave)


async def test_effective_permissions_are_the_union_of_user_role_and_tenant(world: Lab) -> None:
    await engramdb.grant(world.lab, world.bob.id, "write", user=world.alice)
    await engramdb.grant(world.lab, world.tenant.id, "delete", user=world.alice)
    for permission in ("read", "write", "delete"):  # role, own, tenant
        assert (await engramdb.check(world.bob, world.lab, permission)).id == world.lab
    with pytest.raises(PermissionDeniedError):
        await engramdb.check(world.bob, world.lab, "share")
    # share through the role lets Bob pass on what he holds -- only inside the tenant's rules
    await engramdb.grant(world.lab, world.role.id, "share", user=world.alice)
    await engramdb.grant(world.lab, world.dave.id, "write", user=world.bob)
    assert (await engramdb.check(world.dave, world.lab, "write")).id == world.lab


# --- the tenant walls datasets off -------------------------------------------------------------


async def test_a_dataset_is_reachable_only_from_its_tenant_even_for_its_owner(
    world: Lab,
) -> None:
    # Alice works in Lab: her personal dataset is out of reach, and cannot be shared with a role
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.personal], user=world.alice)
    with pytest.raises(PermissionDeniedError):
        await engramdb.grant(world.personal, world.role.id, "read", user=world.alice)
    assert [d.name for d in await engramdb.list_datasets(user=world.alice)] == ["lab"]
    # back in her personal space: the other way round
    await engramdb.select_tenant(None, user=world.alice)
    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.personal], user=world.alice))
    assert [d.name for d in await engramdb.list_datasets(user=world.alice)] == ["mine"]
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.alice)


async def test_names_are_resolved_in_the_tenant_one_works_in(world: Lab) -> None:
    # "mine" is Alice's personal dataset: from Lab the name is refused, not silently reused
    with pytest.raises(ConflictError, match="another tenant"):
        await engramdb.remember("More notes.", "mine", user=world.alice)
    with pytest.raises(engramdb.DatasetNotFoundError):
        await engramdb.recall(QUERY, datasets=["mine"], user=world.alice)
    assert leaks(await engramdb.recall(QUERY, datasets=["lab"], user=world.alice))


async def test_a_role_or_tenant_of_another_tenant_cannot_be_granted(world: Lab) -> None:
    other = await engramdb.create_tenant("Other", user=world.carol)
    other_role = await engramdb.create_role("Spies", user=world.carol)
    for foreign in (other.id, other_role.id):
        await _same_as_unknown(
            lambda g: engramdb.grant(world.lab, g, "read", user=world.alice), foreign
        )
    with pytest.raises(NotFoundError):
        await engramdb.grant(world.lab, other_role.id, "read", user=world.alice)
    assert len(await engramdb.list_grants(world.lab, user=world.alice)) == 1


# --- managing tenants and roles ----------------------------------------------------------------


async def test_outsiders_learn_nothing_about_tenants_and_roles(world: Lab) -> None:
    carol = world.carol
    await _same_as_unknown(lambda t: engramdb.select_tenant(t, user=carol), world.tenant.id)
    await _same_as_unknown(
        lambda t: engramdb.add_user_to_tenant(carol.id, t, user=carol), world.tenant.id
    )
    await _same_as_unknown(
        lambda r: engramdb.add_user_to_role(carol.id, r, user=carol), world.role.id
    )
    with pytest.raises(TenantNotFoundError):
        await engramdb.select_tenant(world.tenant.id, user=carol)
    with pytest.raises(RoleNotFoundError):
        await engramdb.add_user_to_role(carol.id, world.role.id, user=carol)
    assert await engramdb.list_tenants(user=carol) == []
    assert [t.id for t in await engramdb.list_tenants(user=world.bob)] == [world.tenant.id]


async def test_only_the_tenant_owner_manages_users_and_roles(world: Lab) -> None:
    with pytest.raises(PermissionDeniedError):
        await engramdb.add_user_to_tenant(world.carol.id, world.tenant.id, user=world.dave)
    with pytest.raises(PermissionDeniedError):
        await engramdb.create_role("Interns", user=world.dave)
    with pytest.raises(PermissionDeniedError):
        await engramdb.add_user_to_role(world.dave.id, world.role.id, user=world.bob)
    # a role needs a tenant to work in; its users must be members of that tenant
    with pytest.raises(TenantNotFoundError, match="personal space"):
        await engramdb.create_role("Loners", user=world.carol)
    with pytest.raises(TenantNotFoundError, match="not a member"):
        await engramdb.add_user_to_role(world.carol.id, world.role.id, user=world.alice)
    with pytest.raises(ConflictError):
        await engramdb.add_user_to_role(world.bob.id, world.role.id, user=world.alice)
    with pytest.raises(ConflictError):
        await engramdb.add_user_to_tenant(world.bob.id, world.tenant.id, user=world.alice)
    with pytest.raises(ConflictError):
        await engramdb.create_role("Researcher", user=world.alice)
    # the owner can: Dave gets the role and with it the read grant
    await engramdb.add_user_to_role(world.dave.id, world.role.id, user=world.alice)
    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.lab], user=world.dave))


async def test_create_tenant_can_leave_the_selected_tenant_alone(world: Lab) -> None:
    before = await engramdb.create_tenant("Side", set_as_active_tenant=False, user=world.carol)
    stored = await engramdb.select_tenant(None, user=world.carol)
    assert stored.tenant_id is None
    assert [t.name for t in await engramdb.list_tenants(user=world.carol)] == [before.name]
    selected = await engramdb.select_tenant(before.id, user=world.carol)
    assert selected.tenant_id == before.id


async def test_prune_keeps_a_dataset_in_its_tenant_with_its_role_grants(world: Lab) -> None:
    await engramdb.select_tenant(None, user=world.alice)  # Alice works elsewhere meanwhile
    await engramdb.prune.prune_data()
    (again,) = await engramdb.list_datasets(user=world.bob)
    assert again.name == "lab" and again.tenant_id == world.tenant.id and again.id != world.lab
    assert (await engramdb.check(world.bob, again.id, "read")).id == again.id
