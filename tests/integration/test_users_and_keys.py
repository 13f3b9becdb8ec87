"""Users and API keys through the public API, against the real SQLite store: keys are shown
once, stored only hashed, refused identically when unknown, revoked or malformed, and revoked
at once."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest

import engramdb
from engramdb import access
from engramdb.engine import get_engine
from engramdb.errors import (
    AuthenticationError,
    ConflictError,
    EngramValidationError,
    NotFoundError,
    PermissionDeniedError,
)


async def _auth_refusal(key: object) -> AuthenticationError:
    with pytest.raises(AuthenticationError) as caught:
        await engramdb.authenticate(key)  # type: ignore[arg-type]
    return caught.value


async def test_create_user_normalises_and_refuses_duplicates() -> None:
    alice = await engramdb.create_user("  Alice@Example.COM ")
    assert alice.email == "alice@example.com" and not alice.is_admin and not alice.is_default
    with pytest.raises(ConflictError):
        await engramdb.create_user("ALICE@example.com")
    root = await engramdb.create_user("root@example.com", is_admin=True)
    assert root.is_admin and (await get_engine().store.get_user(root.id)) == root
    assert await access.find_user("Root@Example.com") == root
    emails = [u.email for u in await access.list_users()]
    assert emails == ["default_user@example.com", "alice@example.com", "root@example.com"]


@pytest.mark.parametrize("email", ["", "alice", "alice@", "@example.com", "a b@example.com", 42])
async def test_bad_emails_are_refused_and_write_nothing(email: object) -> None:
    with pytest.raises(EngramValidationError, match=r"alice@example\.com"):
        await engramdb.create_user(email)  # type: ignore[arg-type]
    assert await access.list_users() == []  # not even the database was created


async def test_a_key_is_shown_once_and_stored_only_hashed(isolated_config: Path) -> None:
    bob = await engramdb.create_user("bob@example.com")
    info, key = await engramdb.create_api_key(bob.id, name="laptop")
    assert key.startswith(f"{info.prefix}_") and info.prefix == f"egm_{info.id.hex}"
    assert (info.user_id, info.name, info.revoked) == (bob.id, "laptop", False)
    assert await engramdb.authenticate(key) == bob
    assert await engramdb.authenticate(f"  {key}\n") == bob  # pasted with whitespace

    secret = key.removeprefix(f"{info.prefix}_")
    listed = await engramdb.list_api_keys(bob.id)
    assert listed == [info] and secret not in listed[0].model_dump_json()
    stored = await get_engine().store.get_api_key(info.id)
    assert stored is not None and secret not in stored.secret_hash and len(stored.secret_hash) == 64
    await get_engine().close()
    for path in isolated_config.rglob("*"):  # the database files never hold the key
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


async def test_unknown_revoked_tampered_and_malformed_keys_get_the_same_refusal() -> None:
    bob = await engramdb.create_user("bob@example.com")
    info, key = await engramdb.create_api_key(bob.id)
    other_info, other_key = await engramdb.create_api_key(bob.id)
    tampered = key[:-1] + ("A" if key[-1] != "A" else "B")
    unknown = f"egm_{uuid4().hex}_{key.split('_', 2)[2]}"
    spliced = f"{info.prefix}_{other_key.split('_', 2)[2]}"  # right id, another key's secret

    await engramdb.revoke_api_key(info.id, user=bob)
    refusals = [
        await _auth_refusal(k)
        for k in (key, tampered, unknown, spliced, "", "egm_", "Bearer x", None, 12)
    ]
    assert {str(r) for r in refusals} == {str(refusals[0])}
    assert refusals[0].status_code == 401 and refusals[0].code == "unauthenticated"
    assert key not in str(refusals[0])
    # the other key still works; revoking is idempotent and listed
    assert await engramdb.authenticate(other_key) == bob
    await engramdb.revoke_api_key(info.id, user=bob)
    states = {k.id: k.revoked for k in await engramdb.list_api_keys(bob.id)}
    assert states == {info.id: True, other_info.id: False}


async def test_only_the_owner_or_an_administrator_revokes_a_key() -> None:
    bob = await engramdb.create_user("bob@example.com")
    carol = await engramdb.create_user("carol@example.com")
    root = await engramdb.create_user("root@example.com", is_admin=True)
    info, key = await engramdb.create_api_key(bob.id)

    missing = uuid4()
    with pytest.raises(PermissionDeniedError) as theirs:
        await engramdb.revoke_api_key(info.id, user=carol)
    with pytest.raises(PermissionDeniedError) as unknown:
        await engramdb.revoke_api_key(missing, user=carol)
    assert str(theirs.value).replace(str(info.id), "<id>") == str(unknown.value).replace(
        str(missing), "<id>"
    )
    with pytest.raises(PermissionDeniedError):
        await engramdb.revoke_api_key(info.id)  # the default user is not an administrator
    assert await engramdb.authenticate(key) == bob

    await engramdb.revoke_api_key(info.id, user=root)
    with pytest.raises(AuthenticationError):
        await engramdb.authenticate(key)


async def test_key_input_errors() -> None:
    bob = await engramdb.create_user("bob@example.com")
    with pytest.raises(NotFoundError, match="users create"):
        await engramdb.create_api_key(uuid4())
    with pytest.raises(EngramValidationError):
        await engramdb.create_api_key(bob.id, name="x" * 101)
    with pytest.raises(EngramValidationError):
        await engramdb.create_api_key("nope")  # type: ignore[arg-type]
    assert await engramdb.list_api_keys(bob.id) == []


async def test_authenticate_before_anything_exists_creates_nothing(isolated_config: Path) -> None:
    with pytest.raises(AuthenticationError):
        await engramdb.authenticate(f"egm_{uuid4().hex}_{'x' * 43}")
    assert not any(isolated_config.iterdir())
    assert await engramdb.list_api_keys(uuid4()) == []
