"""Who is calling: ``Authorization: Bearer <api key>`` or ``X-Api-Key: <api key>``.

Every route except ``/health`` depends on :func:`current_user`; the key is checked with
:func:`engramdb.access.authenticate` and the user it belongs to is passed as ``user=`` into the
SDK verb, which enforces dataset permissions. Admin routes depend on :func:`admin_user`.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from fastapi import Depends, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from engramdb.errors import AuthenticationError, PermissionDeniedError
from engramdb.models.records import User

__all__ = ["AdminUser", "CurrentUser", "admin_user", "authenticate_key", "current_user"]

_bearer = HTTPBearer(auto_error=False, description="An engramdb API key.")
_api_key = APIKeyHeader(name="X-Api-Key", auto_error=False, description="An engramdb API key.")

_MISSING = (
    "this route needs an API key: send 'Authorization: Bearer <key>' or 'X-Api-Key: <key>' "
    "(an admin creates keys with POST /api/v1/users/{user_id}/api-keys)"
)


async def authenticate_key(key: str) -> User:
    """The user an API key belongs to (raises the access package's 401 error otherwise)."""
    from engramdb import access

    found: Any = access.authenticate(key)
    if inspect.isawaitable(found):
        found = await found
    if not isinstance(found, User):
        raise AuthenticationError("the API key is not valid")
    return found


async def current_user(
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
    api_key: Annotated[str | None, Security(_api_key)],
) -> User:
    """The authenticated caller (401 without a valid key)."""
    key = bearer.credentials if bearer is not None else api_key
    if not key or not key.strip():
        raise AuthenticationError(_MISSING)
    return await authenticate_key(key.strip())


async def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    """The caller, who must be an admin (403 otherwise)."""
    if not getattr(user, "is_admin", False):
        raise PermissionDeniedError("this route is for administrators")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
AdminUser = Annotated[User, Depends(admin_user)]
