"""Who is calling: ``Authorization: Bearer <api key>`` or ``X-Api-Key: <api key>``.

Every route except ``/health`` depends on :func:`current_user`; the key is checked with
:func:`engramdb.access.authenticate` and the user it belongs to is passed as ``user=`` into the
SDK verb, which enforces dataset permissions and who may manage users and keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from engramdb.errors import AuthenticationError
from engramdb.models.records import User

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["CurrentUser", "authenticate_key", "current_user"]

_bearer = HTTPBearer(auto_error=False, description="An engramdb API key.")
_api_key = APIKeyHeader(name="X-Api-Key", auto_error=False, description="An engramdb API key.")

_MISSING = (
    "this route needs an API key: send 'Authorization: Bearer <key>' or 'X-Api-Key: <key>' "
    "(an admin creates keys with POST /api/v1/users/{user_id}/api-keys)"
)


async def authenticate_key(engine: Engine, key: str) -> User:
    """The user an API key belongs to on ``engine`` (the access package's 401 otherwise)."""
    from engramdb.access.keys import authenticate

    return await authenticate(engine, key)


async def current_user(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
    api_key: Annotated[str | None, Security(_api_key)],
) -> User:
    """The authenticated caller (401 without a valid key)."""
    from engramdb.server.bodies import engine_of

    key = bearer.credentials if bearer is not None else api_key
    if not key or not key.strip():
        raise AuthenticationError(_MISSING)
    return await authenticate_key(engine_of(request), key.strip())


CurrentUser = Annotated[User, Depends(current_user)]
