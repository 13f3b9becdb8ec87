"""The Store's tool connections and write proposals (recall's ``tools`` scope): owned per
user, replaced by name, resolved once. Backend-agnostic: runs against every backend of
``conftest.BACKENDS``."""

from __future__ import annotations

from uuid import uuid4

import pytest

from engramdb.models.records import User, utcnow
from engramdb.models.tools import ToolConnection, WriteProposal
from engramdb.storage.base import Store


def _connection(owner: User, name: str, dsn: str = "sqlite:///a.db") -> ToolConnection:
    now = utcnow()
    return ToolConnection(
        id=uuid4(),
        owner_id=owner.id,
        name=name,
        provider="sqlite",
        connection_string=dsn,
        options={"allowed_tables": ["orders"], "max_rows": 5, "allow_writes": True},
        created_at=now,
        updated_at=now,
    )


def _proposal(owner: User) -> WriteProposal:
    return WriteProposal(
        id=uuid4(),
        owner_id=owner.id,
        connection_name="shop",
        status="proposed",
        instruction="fix the total",
        evidence={"reason": "typo"},
        sql="UPDATE orders SET amount = 1 WHERE id = 1",
        target_table="orders",
        estimated_rows=1,
        created_at=utcnow(),
    )


@pytest.fixture
async def bob(store: Store) -> User:
    return await store.create_user("bob@example.com")


async def test_connections_are_owned_and_replaced_by_name(
    store: Store, user: User, bob: User
) -> None:
    first = await store.put_tool_connection(_connection(user, "shop"))
    again = await store.put_tool_connection(_connection(user, "shop", "sqlite:///b.db"))
    assert again.id == first.id and again.connection_string == "sqlite:///b.db"
    assert again.options["allowed_tables"] == ["orders"] and again.allow_writes
    await store.put_tool_connection(_connection(user, "archive"))
    assert [c.name for c in await store.list_tool_connections(user.id)] == ["archive", "shop"]
    assert await store.list_tool_connections(bob.id) == []
    assert await store.get_tool_connection(bob.id, "shop") is None
    assert await store.delete_tool_connection(bob.id, "shop") is False
    assert await store.delete_tool_connection(user.id, "shop") is True
    assert await store.get_tool_connection(user.id, "shop") is None


async def test_a_proposal_is_resolved_once_and_only_by_its_owner(
    store: Store, user: User, bob: User
) -> None:
    proposal = await store.add_write_proposal(_proposal(user))
    assert await store.get_write_proposal(user.id, proposal.id) == proposal
    assert await store.get_write_proposal(bob.id, proposal.id) is None
    assert (
        await store.resolve_write_proposal(bob.id, proposal.id, "applied", resolved_at=utcnow())
        is None
    )
    applied = await store.resolve_write_proposal(
        user.id, proposal.id, "applied", resolved_at=utcnow(), applied_rows=1
    )
    assert applied is not None and applied.status == "applied" and applied.applied_rows == 1
    assert applied.evidence == {"reason": "typo"}
    again = await store.resolve_write_proposal(
        user.id, proposal.id, "rejected", resolved_at=utcnow()
    )
    assert again is None
    other = await store.add_write_proposal(_proposal(user))
    assert [p.id for p in await store.list_write_proposals(user.id, "proposed")] == [other.id]
    assert {p.id for p in await store.list_write_proposals(user.id)} == {proposal.id, other.id}
    assert await store.list_write_proposals(bob.id) == []
