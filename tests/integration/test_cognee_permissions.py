"""cognee's users, roles, tenants and permission functions (``cognee.modules.users.*``,
``cognee.modules.data.methods``) over engramdb, called the way cognee's permission examples call
them; and a cognee-style program run unchanged by ``engramdb run-cognee``, offline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from uuid import UUID, uuid4

import pytest

import engramdb
from engramdb.compat.cognee.modules.data.methods import (
    get_authorized_existing_datasets,
    get_datasets,
    load_or_create_datasets,
)
from engramdb.compat.cognee.modules.users import exceptions
from engramdb.compat.cognee.modules.users.methods import (
    create_user,
    get_default_user,
    get_user,
    get_user_by_email,
)
from engramdb.compat.cognee.modules.users.permissions import PERMISSION_TYPES
from engramdb.compat.cognee.modules.users.permissions.methods import (
    authorized_give_permission_on_datasets,
    authorized_revoke_permission_on_datasets,
    get_principal,
    give_permission_on_dataset,
)
from engramdb.compat.cognee.modules.users.roles.methods import add_user_to_role, create_role
from engramdb.compat.cognee.modules.users.tenants.methods import (
    add_user_to_tenant,
    create_tenant,
    select_tenant,
)
from engramdb.errors import (
    ConflictError,
    DatasetNotFoundError,
    FeatureNotAvailableError,
    NotFoundError,
)
from engramdb.models.access import Role, Tenant

TEXT = "A quantum computer uses qubits, which hold superpositions of zero and one."
PROGRAM = Path(__file__).resolve().parents[1] / "data" / "cognee" / "tenants.py"


def _chunks(results: list[engramdb.RecallResponse]) -> str:
    return " ".join(r.text or "" for r in results)


async def _recall(user: object, dataset_id: UUID) -> str:
    return _chunks(
        await engramdb.recall(
            query_text="What do qubits hold?",
            query_type=engramdb.SearchType.CHUNKS,
            user=user,
            dataset_ids=[dataset_id],
        )
    )


def test_the_exceptions_are_engramdbs_own_classes() -> None:
    assert exceptions.PermissionDeniedError is engramdb.PermissionDeniedError
    assert exceptions.TenantNotFoundError is engramdb.TenantNotFoundError
    assert exceptions.RoleNotFoundError is engramdb.RoleNotFoundError
    assert exceptions.UserNotFoundError is engramdb.UserNotFoundError
    assert issubclass(exceptions.PermissionNotFoundError, engramdb.EngramValidationError)
    assert PERMISSION_TYPES == ["read", "write", "delete", "share"]


async def test_the_tenant_and_role_setup_example_flow() -> None:
    user_1 = await create_user("user_1@example.com", "example")
    tenant_id = await create_tenant("CogneeLab", user_1.id)
    await select_tenant(user_id=user_1.id, tenant_id=tenant_id)
    role_id = await create_role(role_name="Researcher", owner_id=user_1.id)
    user_2 = await create_user("user_2@example.com", "example")
    user_3 = await create_user("user_3@example.com", "example")
    await add_user_to_tenant(user_id=user_2.id, tenant_id=tenant_id, owner_id=user_1.id)
    await add_user_to_role(user_id=user_2.id, role_id=role_id, owner_id=user_1.id)
    await select_tenant(user_id=user_2.id, tenant_id=tenant_id)

    user_1 = await get_user(user_1.id)  # as the example does: its tenant, read afresh
    assert user_1.tenant_id == tenant_id
    result = await engramdb.remember(
        [TEXT], dataset_name="QUANTUM_COGNEE_LAB", user=user_1, self_improvement=False
    )
    dataset_id = UUID(result.dataset_id)  # cognee's programs read the id as a string
    await authorized_give_permission_on_datasets(role_id, [dataset_id], "read", user_1.id)

    # user_2 was fetched before select_tenant: the check reads the tenant from the store
    assert "superpositions" in await _recall(user_2, dataset_id)
    with pytest.raises(exceptions.PermissionDeniedError):
        await _recall(user_3, dataset_id)

    await authorized_revoke_permission_on_datasets(role_id, dataset_id, "read", user_1.id)
    with pytest.raises(exceptions.PermissionDeniedError):
        await _recall(user_2, dataset_id)

    assert isinstance(await get_principal(role_id), Role)
    assert isinstance(await get_principal(tenant_id), Tenant)
    assert (await get_principal(user_2.id)).email == "user_2@example.com"
    with pytest.raises(NotFoundError):
        await get_principal(uuid4())


async def test_the_constraints_example_a_personal_dataset_is_not_the_tenants() -> None:
    user_1 = await create_user("user_1@example.com", "example")
    quantum = await engramdb.remember(
        [TEXT], dataset_name="QUANTUM", user=user_1, self_improvement=False
    )
    tenant_id = await create_tenant("CogneeLab", user_1.id)
    role_id = await create_role(role_name="Researcher", owner_id=user_1.id)
    with pytest.raises(exceptions.PermissionDeniedError):
        await authorized_give_permission_on_datasets(
            role_id, [quantum.dataset_id], "read", user_1.id
        )
    assert (
        await engramdb.list_grants(quantum.dataset_id, user=await select_tenant(user_1.id, None))
        == []
    )
    assert (await get_user(user_1.id)).tenant_id is None
    await select_tenant(user_1.id, tenant_id)
    with pytest.raises(exceptions.TenantNotFoundError):
        await select_tenant(user_1.id, uuid4())


async def test_a_direct_grant_between_users_as_in_the_access_control_example() -> None:
    user_1 = await create_user("user_1@example.com", "example")
    user_2 = await create_user("user_2@example.com", "example")
    quantum = await engramdb.remember(
        [TEXT], dataset_name="QUANTUM", user=user_2, self_improvement=False
    )
    with pytest.raises(exceptions.PermissionDeniedError):
        await _recall(user_1, quantum.dataset_id)
    with pytest.raises(exceptions.PermissionDeniedError):
        await engramdb.remember(
            [TEXT], dataset_id=quantum.dataset_id, user=user_1, self_improvement=False
        )
    await authorized_give_permission_on_datasets(user_1.id, [quantum.dataset_id], "read", user_2.id)
    assert "superpositions" in await _recall(user_1, quantum.dataset_id)
    # giving the owner a permission changes nothing (cognee stores it, engramdb needs not)
    await authorized_give_permission_on_datasets(user_2.id, quantum.dataset_id, "read", user_2.id)
    assert [g.grantee_id for g in await engramdb.list_grants(quantum.dataset_id, user=user_2)] == [
        user_1.id
    ]
    with pytest.raises(FeatureNotAvailableError, match="authorized_give_permission_on_datasets"):
        await give_permission_on_dataset(user_1, quantum.dataset_id, "write")


async def test_user_methods_match_cognee() -> None:
    made = await create_user("Someone@Example.com", "pw", is_superuser=True)
    assert made.is_admin
    assert await get_user_by_email("someone@example.com") == made
    assert await get_user_by_email("nobody@example.com") is None
    with pytest.raises(ConflictError):
        await create_user("someone@example.com", "pw")
    with pytest.raises(FeatureNotAvailableError, match="inactive"):
        await create_user("idle@example.com", "pw", is_active=False)
    with pytest.raises(exceptions.UserNotFoundError):
        await get_user(uuid4())
    assert (await get_default_user()).is_default


async def test_data_methods_match_cognee() -> None:
    user = await get_default_user()
    made = await load_or_create_datasets(["notes"], [], user)
    again = await load_or_create_datasets(["notes", made[0].id], made, user)
    assert [d.id for d in again] == [made[0].id, made[0].id]
    with pytest.raises(DatasetNotFoundError):
        await load_or_create_datasets([uuid4()], [], user)
    assert [d.name for d in await get_datasets(user.id)] == ["notes"]
    found = await get_authorized_existing_datasets(["notes", "missing"], "write", user)
    assert [d.name for d in found] == ["notes"]
    with pytest.raises(DatasetNotFoundError):
        await get_authorized_existing_datasets(["missing"], "read", user, strict=True)
    assert [d.id for d in await get_authorized_existing_datasets(None, "read", user)] == [
        made[0].id
    ]
    other = await create_user("other@example.com", "pw")
    with pytest.raises(exceptions.PermissionDeniedError):
        await get_authorized_existing_datasets([made[0].id], "read", other)


def test_a_cognee_tenant_program_runs_unchanged(isolated_config: Path) -> None:
    exe = Path(sys.executable).with_name("engramdb")
    env = {"PATH": "/usr/bin:/bin", "ENGRAMDB_DATA_DIR": str(isolated_config)}
    env.update(EMBEDDING_PROVIDER="fake", EMBEDDING_DIMENSIONS="64")
    done = subprocess.run(
        [str(exe), "run-cognee", str(PROGRAM)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "personal dataset refused for the role",
        "researcher reads: superpositions",
        "outsider refused",
        "researcher refused after revoke",
    ]
