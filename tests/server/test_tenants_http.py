"""Tenants and roles over the server: the same verbs over REST (and the remote client), each
acting as the caller's API key; outsiders get what an unknown id gets."""

from __future__ import annotations

from uuid import uuid4

import engramdb
from engramdb.models.access import Role, Tenant
from tests.server.conftest import Account, LiveServer

API = "/api/v1"


def test_a_role_grant_over_rest_reaches_its_members_only(
    live_server: LiveServer, alice: Account
) -> None:
    bob = live_server.account("bob@example.com")
    carol = live_server.account("carol@example.com")
    with (
        live_server.client(alice) as a,
        live_server.client(bob) as b,
        live_server.client(carol) as c,
    ):
        made = a.post(f"{API}/tenants", json={"name": "Lab"})
        assert made.status_code == 201, made.text
        tenant = Tenant.model_validate(made.json())
        role = Role.model_validate(a.post(f"{API}/roles", json={"name": "Researcher"}).json())
        assert role.tenant_id == tenant.id
        assert (
            a.post(
                f"{API}/tenants/{tenant.id}/users", json={"user_id": str(bob.user.id)}
            ).status_code
            == 204
        )
        assert (
            a.post(f"{API}/roles/{role.id}/users", json={"user_id": str(bob.user.id)}).status_code
            == 204
        )
        picked = b.post(f"{API}/tenants/select", json={"tenant_id": str(tenant.id)})
        assert picked.status_code == 200 and picked.json()["tenant_id"] == str(tenant.id)
        assert [t["id"] for t in b.get(f"{API}/tenants").json()] == [str(tenant.id)]

        stored = a.post(
            f"{API}/remember",
            json={"data": "The beamline opens on Monday.", "dataset_name": "beamline"},
        )
        dataset_id = stored.json()["dataset_id"]
        granted = a.post(
            f"{API}/datasets/{dataset_id}/grants",
            json={"grantee_id": str(role.id), "permission": "read"},
        )
        assert granted.status_code == 204, granted.text
        query = {"query_text": "beamline Monday", "query_type": "CHUNKS"}
        read = b.post(f"{API}/recall", json={**query, "dataset_ids": [dataset_id]})
        assert read.status_code == 200 and "Monday" in read.text

        # Carol, outside: the dataset, the tenant and the role read as unknown ids
        for real, unknown in (
            (
                c.post(f"{API}/recall", json={**query, "dataset_ids": [dataset_id]}),
                c.post(f"{API}/recall", json={**query, "dataset_ids": [str(uuid4())]}),
            ),
            (
                c.post(f"{API}/tenants/select", json={"tenant_id": str(tenant.id)}),
                c.post(f"{API}/tenants/select", json={"tenant_id": str(uuid4())}),
            ),
            (
                c.post(f"{API}/roles/{role.id}/users", json={"user_id": str(carol.user.id)}),
                c.post(f"{API}/roles/{uuid4()}/users", json={"user_id": str(carol.user.id)}),
            ),
        ):
            assert real.status_code == unknown.status_code and real.status_code in (403, 404)
            assert real.json()["code"] == unknown.json()["code"]
        # Bob, a member but not the owner, may not manage the tenant
        refused = b.post(f"{API}/tenants/{tenant.id}/users", json={"user_id": str(carol.user.id)})
        assert refused.status_code == 403

        revoked = a.delete(f"{API}/datasets/{dataset_id}/grants/{role.id}/read")
        assert revoked.status_code == 204
        again = b.post(f"{API}/recall", json={**query, "dataset_ids": [dataset_id]})
        assert again.status_code == 403


async def test_the_remote_client_has_the_tenant_verbs(
    live_server: LiveServer, alice: Account
) -> None:
    await engramdb.serve(live_server.url, api_key=alice.key)
    try:
        tenant = await engramdb.create_tenant("Remote Lab")
        assert isinstance(tenant, Tenant) and tenant.owner_id == alice.user.id
        role = await engramdb.create_role("Readers")
        assert isinstance(role, Role) and role.tenant_id == tenant.id
        assert [t.id for t in await engramdb.list_tenants()] == [tenant.id]
        me = await engramdb.select_tenant(None)
        assert me.tenant_id is None
        try:
            await engramdb.select_tenant(uuid4())
        except engramdb.TenantNotFoundError as refused:
            assert refused.status_code == 404
        else:
            raise AssertionError("an unknown tenant was selected")
    finally:
        await engramdb.disconnect()
