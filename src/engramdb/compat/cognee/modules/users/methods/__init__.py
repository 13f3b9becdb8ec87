"""``cognee.modules.users.methods`` over engramdb: ``create_user``, ``get_user``,
``get_user_by_email``, ``get_default_user``. In-process only."""

from __future__ import annotations

from uuid import UUID

from engramdb.compat.cognee.modules.users._engine import ready_engine, user_by_id
from engramdb.errors import FeatureNotAvailableError
from engramdb.models.records import User

__all__ = ["create_user", "get_default_user", "get_user", "get_user_by_email"]


async def create_user(
    email: str,
    password: str | None = None,
    is_superuser: bool = False,
    is_active: bool = True,
    is_verified: bool = False,
    auto_login: bool = False,
    parent_user_id: UUID | None = None,
) -> User:
    """Create a user, as cognee's ``create_user`` (ConflictError when the address is taken).

    engramdb has no password login -- users authenticate with API keys
    (``engramdb.create_api_key``) -- so ``password`` is accepted for cognee's signature and not
    stored. ``is_superuser`` makes an administrator (``is_admin``); ``is_verified`` and
    ``auto_login`` change nothing here. Inactive users and agent users (``parent_user_id``) do
    not exist in engramdb: FeatureNotAvailableError.
    """
    del password, is_verified, auto_login  # see the docstring
    if not is_active:
        raise FeatureNotAvailableError(
            "engramdb has no inactive users; create the user, and revoke its API keys "
            "(engramdb.revoke_api_key) to lock it out"
        )
    if parent_user_id is not None:
        raise FeatureNotAvailableError(
            "engramdb has no agent users (parent_user_id); create an ordinary user and grant "
            "it permissions (authorized_give_permission_on_datasets)"
        )
    engine = await ready_engine()
    created: User = await engine.create_user(email, is_admin=is_superuser)
    return created


async def get_user(user_id: UUID) -> User:
    """The user with that id, read afresh (its selected tenant included); UserNotFoundError
    (a NotFoundError) for an unknown id."""
    return await user_by_id(user_id)


async def get_user_by_email(user_email: str) -> User | None:
    """The user with that e-mail address, or None."""
    engine = await ready_engine()
    return await engine.store.find_user_by_email(user_email.strip().lower())


async def get_default_user() -> User:
    """The default user of the default engine (created, with the database, on first use), as
    cognee's; pass it as ``user=`` to any verb. In-process only."""
    from engramdb.engine import get_engine

    return await get_engine().resolve_user(None)
