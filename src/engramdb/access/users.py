"""Creating and finding users."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engramdb.errors import PermissionDeniedError
from engramdb.models.access import MAX_EMAIL, validate_email
from engramdb.models.records import User
from engramdb.models.requests.access import CreateUserRequest, ListUsersRequest

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["MAX_EMAIL", "create_user", "find_user", "list_users", "validate_email"]


async def create_user(engine: Engine, request: CreateUserRequest) -> User:
    """Create a user (the database is created on first use).

    The address is trimmed and lower-cased; it must be unique (ConflictError otherwise).
    ``is_admin`` users may create users and manage everyone's API keys over the server; it
    gives no access to other users' datasets.
    """
    user = request.user
    require_admin(user, "creating users")
    address = validate_email(request.email)
    # Creates the database and its default user too (as the first remember() would), so the
    # read paths that look for an existing database find it.
    await engine.resolve_user(None)
    user = await engine.store.create_user(address)
    if request.is_admin:
        user = await engine.store.set_user_admin(user.id, True)
    return user


def require_admin(user: User | None, what: str) -> None:
    """Refuse ``what`` to a caller who is not an administrator (in-process calls without a
    ``user`` are the operator's own and allowed)."""
    if user is not None and not user.is_admin:
        raise PermissionDeniedError(f"{what} is for administrators")


async def find_user(engine: Engine, email: str) -> User | None:
    """The user with that e-mail address (compared trimmed and lower-cased), or None."""
    address = validate_email(email)
    if not await engine.database_exists():
        return None
    await engine.ensure_setup()
    return await engine.store.find_user_by_email(address)


async def list_users(engine: Engine, request: ListUsersRequest) -> list[User]:
    """Every user, oldest first (empty before the database exists)."""
    require_admin(request.user, "listing users")
    if not await engine.database_exists():
        return []
    await engine.ensure_setup()
    return await engine.store.list_users()
