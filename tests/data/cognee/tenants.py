"""A cognee program (written in the shape of cognee's permission examples): a tenant, a role,
a grant to the role, an outsider refused, the grant revoked. Runs on cognee and, unchanged,
under ``engramdb run-cognee``."""

import asyncio
from uuid import UUID

import cognee
from cognee.modules.engine.operations.setup import setup
from cognee.modules.search.types import SearchType
from cognee.modules.users.exceptions import PermissionDeniedError
from cognee.modules.users.methods import create_user, get_user
from cognee.modules.users.permissions.methods import (
    authorized_give_permission_on_datasets,
    authorized_revoke_permission_on_datasets,
)
from cognee.modules.users.roles.methods import add_user_to_role, create_role
from cognee.modules.users.tenants.methods import add_user_to_tenant, create_tenant, select_tenant

TEXT = "A quantum computer uses qubits, which hold superpositions of zero and one."


async def read(user, dataset_id):
    results = await cognee.recall(
        query_text="What do qubits hold?",
        query_type=SearchType.CHUNKS,
        user=user,
        dataset_ids=[dataset_id],
    )
    return " ".join(str(getattr(r, "text", r)) for r in results)


async def main():
    await setup()
    owner = await create_user("owner@example.com", "example")
    researcher = await create_user("researcher@example.com", "example")
    outsider = await create_user("outsider@example.com", "example")
    personal = await cognee.remember([TEXT], dataset_name="PERSONAL", user=owner)

    tenant_id = await create_tenant("Lab", owner.id)
    await select_tenant(user_id=owner.id, tenant_id=tenant_id)
    role_id = await create_role(role_name="Researcher", owner_id=owner.id)
    await add_user_to_tenant(user_id=researcher.id, tenant_id=tenant_id, owner_id=owner.id)
    await add_user_to_role(user_id=researcher.id, role_id=role_id, owner_id=owner.id)
    await select_tenant(user_id=researcher.id, tenant_id=tenant_id)
    try:
        await authorized_give_permission_on_datasets(
            role_id, [UUID(personal.dataset_id)], "read", owner.id
        )
    except PermissionDeniedError:
        print("personal dataset refused for the role")

    owner = await get_user(owner.id)
    lab = await cognee.remember([TEXT], dataset_name="LAB", user=owner)
    lab_id = UUID(lab.dataset_id)
    await authorized_give_permission_on_datasets(role_id, [lab_id], "read", owner.id)
    if "superpositions" in await read(researcher, lab_id):
        print("researcher reads: superpositions")
    try:
        await read(outsider, lab_id)
    except PermissionDeniedError:
        print("outsider refused")
    await authorized_revoke_permission_on_datasets(role_id, [lab_id], "read", owner.id)
    try:
        await read(researcher, lab_id)
    except PermissionDeniedError:
        print("researcher refused after revoke")


if __name__ == "__main__":
    asyncio.run(main())
