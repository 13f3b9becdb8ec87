"""Users, API keys, grants and the one permission check (SPEC R-ACL; ``docs/permissions.md``).

::

    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    result = await engramdb.remember("Owls hunt at night.", "notes", user=alice)
    await engramdb.grant(result.dataset_id, bob.id, "read", user=alice)
    await engramdb.recall("owls", dataset_ids=[result.dataset_id], user=bob)

Every verb that touches a dataset goes through :func:`check`; an unknown dataset id and one the
user may not use get the same :class:`~engramdb.errors.PermissionDeniedError`.
"""

from __future__ import annotations

from typing import Any

from engramdb.access.permissions import (
    accessible_datasets,
    dataset_for_write,
    readable_datasets,
    validate_permission,
    visible_nodes,
)
from engramdb.access.users import validate_email
from engramdb.models.access import PERMISSIONS, ApiKeyInfo, Grant, Permission

#: The verbs (and the default-engine helpers) this module offers are the module-level ones of
#: :mod:`engramdb.facade`; the handlers they run live in ``users``, ``keys`` and ``grants``.
_FACADE = frozenset(
    {
        "add_user_to_role",
        "add_user_to_tenant",
        "authenticate",
        "check",
        "create_role",
        "create_tenant",
        "list_tenants",
        "select_tenant",
        "create_api_key",
        "create_user",
        "find_user",
        "grant",
        "list_api_keys",
        "list_grants",
        "list_users",
        "revoke",
        "revoke_api_key",
    }
)


def __getattr__(name: str) -> Any:
    if name in _FACADE:
        from engramdb import facade

        return getattr(facade, name)
    raise AttributeError(f"module 'engramdb.access' has no attribute {name!r}")


__all__ = [
    "PERMISSIONS",
    "ApiKeyInfo",
    "Grant",
    "Permission",
    "accessible_datasets",
    "authenticate",
    "check",
    "create_api_key",
    "create_user",
    "dataset_for_write",
    "find_user",
    "grant",
    "list_api_keys",
    "list_grants",
    "list_users",
    "readable_datasets",
    "revoke",
    "revoke_api_key",
    "validate_email",
    "validate_permission",
    "visible_nodes",
]
