"""Creating and finding users."""

from __future__ import annotations

import re

from engramdb.engine import get_engine
from engramdb.errors import EngramValidationError
from engramdb.models.records import User

__all__ = ["MAX_EMAIL", "create_user", "find_user", "list_users", "validate_email"]

#: Longest e-mail address accepted (RFC 5321's path limit).
MAX_EMAIL = 254
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$")


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


async def create_user(email: str, *, is_admin: bool = False) -> User:
    """Create a user (the database is created on first use).

    The address is trimmed and lower-cased; it must be unique (ConflictError otherwise).
    ``is_admin`` users may create users and manage everyone's API keys over the server; it
    gives no access to other users' datasets.
    """
    address = validate_email(email)
    if not isinstance(is_admin, bool):
        raise EngramValidationError(f"is_admin must be True or False, got {is_admin!r}")
    engine = get_engine()
    # Creates the database and its default user too (as the first remember() would), so the
    # read paths that look for an existing database find it.
    await engine.resolve_user(None)
    user = await engine.store.create_user(address)
    if is_admin:
        user = await engine.store.set_user_admin(user.id, True)
    return user


async def find_user(email: str) -> User | None:
    """The user with that e-mail address (compared trimmed and lower-cased), or None."""
    address = validate_email(email)
    engine = get_engine()
    if not await engine.database_exists():
        return None
    await engine.ensure_setup()
    return await engine.store.find_user_by_email(address)


async def list_users() -> list[User]:
    """Every user, oldest first (empty before the database exists)."""
    engine = get_engine()
    if not await engine.database_exists():
        return []
    await engine.ensure_setup()
    return await engine.store.list_users()
