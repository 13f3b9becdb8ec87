"""Request models of the access verbs: users, API keys and grants."""

from __future__ import annotations

from typing import Annotated, ClassVar
from uuid import UUID

from pydantic import BeforeValidator, Field

from engramdb.models.access import MAX_EMAIL, Permission, validate_email, validate_permission
from engramdb.models.requests.common import Strict, UserOption, VerbRequest

__all__ = [
    "CreateApiKeyRequest",
    "CreateUserRequest",
    "GrantRequest",
    "ListApiKeysRequest",
    "ListGrantsRequest",
    "ListUsersRequest",
    "RevokeApiKeyRequest",
    "RevokeRequest",
]

MAX_KEY_NAME = 100


class CreateUserRequest(VerbRequest):
    """``create_user()``: a new user (in-process, or by an administrator over the server)."""

    positional: ClassVar[tuple[str, ...]] = ("email",)

    email: Annotated[str, BeforeValidator(validate_email), Field(max_length=MAX_EMAIL)]
    is_admin: Annotated[bool, Strict] = False
    user: UserOption = None


class ListUsersRequest(VerbRequest):
    """``list_users()``: every user, oldest first (administrators only over the server)."""

    user: UserOption = None


class CreateApiKeyRequest(VerbRequest):
    """``create_api_key()``: a key for a user (yourself, or anyone as an administrator)."""

    positional: ClassVar[tuple[str, ...]] = ("user_id",)

    user_id: UUID
    name: Annotated[str, Field(strict=True, max_length=MAX_KEY_NAME)] = ""
    user: UserOption = None


class ListApiKeysRequest(VerbRequest):
    """``list_api_keys()``: a user's keys, metadata only (yours, or anyone's as an admin)."""

    positional: ClassVar[tuple[str, ...]] = ("user_id",)

    user_id: UUID
    user: UserOption = None


class RevokeApiKeyRequest(VerbRequest):
    """``revoke_api_key()``: revoke a key at once (yours, or anyone's as an administrator)."""

    positional: ClassVar[tuple[str, ...]] = ("key_id",)

    key_id: UUID
    user: UserOption = None


class GrantRequest(VerbRequest):
    """``grant()``: give another user a permission on a dataset you may share."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_id", "grantee_id", "permission")

    dataset_id: UUID
    grantee_id: UUID
    permission: Annotated[Permission, BeforeValidator(validate_permission)]
    user: UserOption = None


class RevokeRequest(VerbRequest):
    """``revoke()``: take a grant back."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_id", "grantee_id", "permission")

    dataset_id: UUID
    grantee_id: UUID
    permission: Annotated[Permission, BeforeValidator(validate_permission)]
    user: UserOption = None


class ListGrantsRequest(VerbRequest):
    """``list_grants()``: the grants on a dataset you may share."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_id",)

    dataset_id: UUID
    user: UserOption = None
