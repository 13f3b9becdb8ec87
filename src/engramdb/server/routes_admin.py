"""Users and API keys. Creating users is for administrators; a user manages their own keys,
an administrator anyone's."""

from __future__ import annotations

from uuid import UUID

from fastapi import APIRouter, Response, status
from pydantic import BaseModel

from engramdb.errors import PermissionDeniedError
from engramdb.models.access import ApiKeyInfo
from engramdb.models.records import User
from engramdb.server.auth import AdminUser, CurrentUser
from engramdb.server.schemas import ApiKeyCreate, UserCreate

__all__ = ["CreatedApiKey", "router"]

router = APIRouter(prefix="/api/v1", tags=["users"])


class CreatedApiKey(BaseModel):
    """A new API key: ``api_key`` is shown this once and never again."""

    info: ApiKeyInfo
    api_key: str


def _own_or_admin(caller: User, user_id: UUID) -> None:
    if caller.id != user_id and not caller.is_admin:
        raise PermissionDeniedError("you can manage only your own API keys")


@router.get("/users/me", response_model=User)
async def me_route(user: CurrentUser) -> User:
    """The user the API key belongs to."""
    return user


@router.get("/users", response_model=list[User])
async def list_users_route(_admin: AdminUser) -> list[User]:
    """Every user (administrators only)."""
    from engramdb.access import list_users

    return await list_users()


@router.post("/users", response_model=User, status_code=status.HTTP_201_CREATED)
async def create_user_route(body: UserCreate, _admin: AdminUser) -> User:
    """Create a user (administrators only); 409 for an e-mail address already in use."""
    from engramdb.access import create_user

    return await create_user(body.email, is_admin=body.is_admin)


@router.post(
    "/users/{user_id}/api-keys",
    response_model=CreatedApiKey,
    status_code=status.HTTP_201_CREATED,
)
async def create_key_route(user_id: UUID, body: ApiKeyCreate, caller: CurrentUser) -> CreatedApiKey:
    """Create an API key for a user (yourself, or anyone as an administrator)."""
    from engramdb.access import create_api_key

    _own_or_admin(caller, user_id)
    info, key = await create_api_key(user_id, name=body.name)
    return CreatedApiKey(info=info, api_key=key)


@router.get("/users/{user_id}/api-keys", response_model=list[ApiKeyInfo])
async def list_keys_route(user_id: UUID, caller: CurrentUser) -> list[ApiKeyInfo]:
    """A user's API keys (metadata only; the keys themselves are never shown again)."""
    from engramdb.access import list_api_keys

    _own_or_admin(caller, user_id)
    return await list_api_keys(user_id)


@router.delete(
    "/api-keys/{key_id}", status_code=status.HTTP_204_NO_CONTENT, response_class=Response
)
async def revoke_key_route(key_id: UUID, caller: CurrentUser) -> Response:
    """Revoke an API key (yours, or anyone's as an administrator)."""
    from engramdb.access import revoke_api_key

    await revoke_api_key(key_id, user=caller)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
