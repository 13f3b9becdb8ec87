"""Records of access control: permissions, grants and API keys (see ``docs/permissions.md``)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args
from uuid import UUID

from pydantic import BaseModel, ConfigDict

__all__ = ["PERMISSIONS", "ApiKeyInfo", "Grant", "Permission"]

#: What a grant allows on one dataset. The four are independent (a write grant does not include
#: read); a dataset's owner holds all four without any grant row.
Permission = Literal["read", "write", "delete", "share"]

#: Every permission, in a fixed order (for messages and listings).
PERMISSIONS: tuple[Permission, ...] = get_args(Permission)


class _AccessRecord(BaseModel):
    model_config = ConfigDict(frozen=True)


class Grant(_AccessRecord):
    """``grantee_id`` holds ``permission`` on ``dataset_id``, given by ``granted_by``."""

    dataset_id: UUID
    grantee_id: UUID
    permission: Permission
    granted_by: UUID
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
