"""API keys: created with a random secret, shown once, stored only as a hash, revocable.

A key reads ``egm_<32 hex digits of its id>_<secret>``. The id part finds the stored row in one
lookup; the SHA-256 of the whole key is compared with the stored hash in constant time. The
secret is 256 random bits, so a fast hash is enough (there is nothing to brute-force). Unknown,
revoked and malformed keys are refused with the SAME :class:`AuthenticationError`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TYPE_CHECKING
from uuid import UUID, uuid4

from engramdb.errors import (
    AuthenticationError,
    NotFoundError,
    PermissionDeniedError,
)
from engramdb.models.access import ApiKeyInfo
from engramdb.models.records import User, utcnow
from engramdb.models.requests.access import (
    CreateApiKeyRequest,
    ListApiKeysRequest,
    RevokeApiKeyRequest,
)

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = [
    "KEY_PREFIX",
    "authenticate",
    "create_api_key",
    "hash_key",
    "list_api_keys",
    "revoke_api_key",
]

#: Every key starts with this (secret scanners and people can recognise it).
KEY_PREFIX = "egm_"
_KEY_RE = re.compile(r"^egm_([0-9a-f]{32})_([A-Za-z0-9_\-]{32,128})$")
#: Compared against when no key row exists, so a miss costs what a hit does.
_DUMMY_HASH = "0" * 64

_REFUSED = (
    "Invalid API key: it is unknown, revoked or malformed. Use a key created with "
    "'engramdb users keys create <email>' (keys look like egm_<id>_<secret>)."
)


def hash_key(api_key: str) -> str:
    """The hex SHA-256 the store keeps for a key."""
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


async def create_api_key(engine: Engine, request: CreateApiKeyRequest) -> tuple[ApiKeyInfo, str]:
    """Create a key for the user; returns its metadata and the key itself.

    The key is returned this once and never stored: keep it (only its hash is kept, so a lost
    key cannot be shown again -- revoke it and create another). NotFoundError for an unknown
    user, EngramValidationError for a bad ``name``.
    """
    owner_id = request.user_id
    if request.user is not None and request.user.id != owner_id:
        # A key is the user's whole data access: nobody mints one for someone else over the
        # server, administrators included (docs/permissions.md); the operator does, in-process.
        raise PermissionDeniedError(
            "an API key can be created only by its own user; the operator creates a user's "
            "first key on the server machine: engramdb users keys create <email>"
        )
    await engine.ensure_setup()
    store = engine.store
    if await store.get_user(owner_id) is None:
        raise NotFoundError(
            f"No user with id {owner_id}; create one with 'engramdb users create <email>'."
        )
    key_id = uuid4()
    prefix = f"{KEY_PREFIX}{key_id.hex}"
    api_key = f"{prefix}_{secrets.token_urlsafe(32)}"
    info = ApiKeyInfo(
        id=key_id, user_id=owner_id, name=request.name.strip(), prefix=prefix, created_at=utcnow()
    )
    stored = await store.add_api_key(info, hash_key(api_key))
    return stored, api_key


async def list_api_keys(engine: Engine, request: ListApiKeysRequest) -> list[ApiKeyInfo]:
    """The user's keys (metadata only; revoked ones included), oldest first."""
    owner_id = request.user_id
    own_or_admin(request.user, owner_id)
    if not await engine.database_exists():
        return []
    await engine.ensure_setup()
    return await engine.store.list_api_keys(owner_id)


async def revoke_api_key(engine: Engine, request: RevokeApiKeyRequest) -> None:
    """Revoke a key at once (the next :func:`authenticate` with it fails). Idempotent.

    ``user`` (default: the default local user) must own the key or be an administrator; an
    unknown key and another user's key get the same PermissionDeniedError.
    """
    ident = request.key_id
    refused = PermissionDeniedError(
        f"No API key {ident} that you may revoke (or no such key exists); list your keys with "
        "'engramdb users keys list <email>'."
    )
    if not await engine.database_exists():
        raise refused
    actor = await engine.resolve_user(request.user)
    stored = await engine.store.get_api_key(ident)
    if stored is None or (stored.info.user_id != actor.id and not actor.is_admin):
        raise refused
    await engine.store.revoke_api_key(ident)


def own_or_admin(caller: User | None, user_id: UUID) -> None:
    """Refuse managing another user's keys to a caller who is not an administrator."""
    if caller is not None and caller.id != user_id and not caller.is_admin:
        raise PermissionDeniedError("you can manage only your own API keys")


async def authenticate(engine: Engine, api_key: str) -> User:
    """The user an API key belongs to. AuthenticationError (401) -- one message for every
    cause -- when the key is malformed, unknown or revoked, or its user is gone."""
    refused = AuthenticationError(_REFUSED)
    if not isinstance(api_key, str):
        raise refused
    match = _KEY_RE.match(api_key.strip())
    if match is None:
        raise refused
    if not await engine.database_exists():
        raise refused
    await engine.ensure_setup()
    store = engine.store
    stored = await store.get_api_key(UUID(hex=match.group(1)))
    expected = stored.secret_hash if stored is not None else _DUMMY_HASH
    matches = hmac.compare_digest(expected, hash_key(api_key.strip()))
    if stored is None or not matches or stored.info.revoked:
        raise refused
    user = await store.get_user(stored.info.user_id)
    if user is None:
        raise refused
    return user
