"""Who am I, and creating API keys (the other user and key routes derive from the verb table:
:mod:`engramdb.server.verb_routes`). A user manages their own keys, an administrator anyone's;
the verbs enforce it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, status

from engramdb.models.access import CreatedApiKey
from engramdb.models.records import User
from engramdb.server.auth import CurrentUser
from engramdb.server.bodies import EngineDep, body_spec, read_body, to_request
from engramdb.verbs import VERBS
from engramdb.verbs.spec import API_PREFIX

__all__ = ["CreatedApiKey", "router"]

router = APIRouter(prefix=API_PREFIX, tags=["users"])


@router.get("/users/me", response_model=User)
async def me_route(user: CurrentUser) -> User:
    """The user the API key belongs to."""
    return user


@router.post(
    "/users/{user_id}/api-keys",
    response_model=CreatedApiKey,
    status_code=status.HTTP_201_CREATED,
    openapi_extra=body_spec("create_api_key"),
)
async def create_key_route(request: Request, user: CurrentUser, engine: EngineDep) -> Any:
    """Create an API key for a user (yourself, or anyone as an administrator); the key is in
    this answer and never again."""
    verb = VERBS["create_api_key"]
    body = await read_body(request, verb, path=request.path_params)
    info, key = await verb.handler(engine, to_request(verb, body, user))
    return CreatedApiKey(info=info, api_key=key)
