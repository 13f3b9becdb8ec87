"""``cognee.modules.users.exceptions`` over engramdb: cognee's names for engramdb's own errors
(the same classes, so ``except PermissionDeniedError`` catches what engramdb raises)."""

from engramdb.errors import (
    PermissionDeniedError,
    PermissionNotFoundError,
    RoleNotFoundError,
    TenantNotFoundError,
    UserNotFoundError,
)

__all__ = [
    "PermissionDeniedError",
    "PermissionNotFoundError",
    "RoleNotFoundError",
    "TenantNotFoundError",
    "UserNotFoundError",
]
