"""Records of access control: permissions, grants and API keys (see ``docs/permissions.md``)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal, get_args
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from engramdb.errors import EngramValidationError, PermissionNotFoundError

__all__ = [
    "MAX_EMAIL",
    "PERMISSIONS",
    "PRINCIPAL_KINDS",
    "ApiKeyInfo",
    "CreatedApiKey",
    "Grant",
    "Permission",
    "PrincipalKind",
    "Role",
    "Tenant",
    "validate_email",
    "validate_permission",
]

#: What a grant allows on one dataset. The four are independent (a write grant does not include
#: read); a dataset's owner holds all four without any grant row.
Permission = Literal["read", "write", "delete", "share"]

#: Every permission, in a fixed order (for messages and listings).
PERMISSIONS: tuple[Permission, ...] = get_args(Permission)


class _AccessRecord(BaseModel):
    model_config = ConfigDict(frozen=True)


#: Who a grant is given to: a user, a role (its users hold it) or a tenant (its members hold it
#: while they have it selected).
PrincipalKind = Literal["user", "role", "tenant"]

#: Every kind of grantee.
PRINCIPAL_KINDS: tuple[PrincipalKind, ...] = get_args(PrincipalKind)


class Grant(_AccessRecord):
    """``grantee_id`` (a user, role or tenant: ``grantee_kind``) holds ``permission`` on
    ``dataset_id``, given by ``granted_by``."""

    dataset_id: UUID
    grantee_id: UUID
    permission: Permission
    granted_by: UUID
    created_at: datetime
    grantee_kind: PrincipalKind = "user"


class Tenant(_AccessRecord):
    """An organisation: an owner and members. A user may belong to several and works in the one
    selected (``User.tenant_id``); datasets created meanwhile belong to it."""

    id: UUID
    name: str
    owner_id: UUID
    created_at: datetime


class Role(_AccessRecord):
    """A named group of users inside one tenant; a grant to a role is held by its users."""

    id: UUID
    tenant_id: UUID
    name: str
    created_at: datetime


class ApiKeyInfo(_AccessRecord):
    """An API key's metadata. The key itself is shown once, at creation, and never stored: the
    store keeps only a hash of its secret part. ``prefix`` is the public start of the key
    (``egm_<id>``), enough to recognise it in a list without revealing it."""

    id: UUID
    user_id: UUID
    name: str = ""
    prefix: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


class CreatedApiKey(BaseModel):
    """A new API key as it crosses HTTP: ``api_key`` is shown this once and never again."""

    info: ApiKeyInfo
    api_key: str


#: Longest e-mail address accepted (RFC 5321's path limit).
MAX_EMAIL = 254
_EMAIL_RE = re.compile(r"^[^@\s\x00-\x1f\x7f]+@[^@\s.\x00-\x1f\x7f]+(\.[^@\s.\x00-\x1f\x7f]+)+$")


def validate_email(email: object) -> str:
    """The address trimmed and lower-cased, or EngramValidationError naming the fix."""
    if not isinstance(email, str):
        raise EngramValidationError(
            f"email must be a string such as 'alice@example.com', got {type(email).__name__}"
        )
    normalised = email.strip().lower()
    if len(normalised) > MAX_EMAIL:
        raise EngramValidationError(
            f"email is {len(normalised)} characters long; use at most {MAX_EMAIL}"
        )
    if not _EMAIL_RE.match(normalised):
        raise EngramValidationError(
            f"email {email[:80]!r} is not an e-mail address; pass one like 'alice@example.com'"
        )
    return normalised


def validate_permission(permission: object) -> Permission:
    """``permission`` if it is one of read / write / delete / share, else a validation error."""
    for known in PERMISSIONS:
        if permission == known:
            return known
    raise PermissionNotFoundError(
        f"permission must be one of {', '.join(PERMISSIONS)}, got {permission!r}"
    )
