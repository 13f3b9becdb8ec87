"""Users, API keys and grants (access control data).

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from uuid import UUID

from engramdb.models.access import ApiKeyInfo, Grant
from engramdb.models.records import Dataset, User
from engramdb.storage.types import (
    StoredApiKey,
)

__all__ = ["AccessStore"]


class AccessStore(ABC):
    """Users, API keys and grants (access control data)."""

    # --- users, api keys, grants (issue 6) ----------
    #
    # Access control data; the decisions live in :mod:`engramdb.access`, never in a backend.
    # Rules every backend keeps:
    #
    # * E-mails are unique (compared exactly; callers normalise them). Users are never deleted.
    # * An API key is stored as its metadata plus a hash of its secret; the key itself never
    #   reaches the store. Revoking keeps the row (with ``revoked_at``) so a listing shows it.
    # * A grant is one (dataset, grantee, permission) row: adding an existing one changes
    #   nothing, and grants are deleted with their dataset (also by ``delete_everything``).
    #   Owners hold no grant rows: ownership is ``Dataset.owner_id``.

    @abstractmethod
    async def find_user_by_email(self, email: str) -> User | None:
        """The user with exactly that e-mail, or None."""

    @abstractmethod
    async def list_users(self) -> list[User]:
        """Every user, oldest first."""

    @abstractmethod
    async def set_user_admin(self, user_id: UUID, is_admin: bool) -> User:
        """Set the user's administrator flag and return the user as stored. NotFoundError for an
        unknown user."""

    @abstractmethod
    async def add_api_key(self, key: ApiKeyInfo, secret_hash: str) -> ApiKeyInfo:
        """Store a new key (``revoked_at`` as given, normally None) with the hash of its secret.
        ConflictError when ``key.id`` exists, NotFoundError when ``key.user_id`` is not a user."""

    @abstractmethod
    async def get_api_key(self, key_id: UUID) -> StoredApiKey | None:
        """The key's metadata and stored hash (revoked keys too), or None."""

    @abstractmethod
    async def list_api_keys(self, user_id: UUID) -> list[ApiKeyInfo]:
        """The user's keys, revoked ones included, oldest first."""

    @abstractmethod
    async def revoke_api_key(self, key_id: UUID) -> ApiKeyInfo | None:
        """Set ``revoked_at`` (kept when already set) and return the key as stored; None for an
        unknown id. Committed before returning: the next lookup sees the revocation."""

    @abstractmethod
    async def add_grant(self, grant: Grant) -> Grant:
        """Store the grant unless that (dataset, grantee, permission) exists; return the stored
        one (an existing grant keeps its ``granted_by`` and ``created_at``). NotFoundError when
        the dataset or the grantee does not exist; nothing is written then."""

    @abstractmethod
    async def remove_grant(self, dataset_id: UUID, grantee_id: UUID, permission: str) -> bool:
        """Delete that one grant; False when there was none. Committed before returning."""

    @abstractmethod
    async def list_grants(self, dataset_id: UUID) -> list[Grant]:
        """The dataset's grants ordered by creation time, then grantee id, then permission."""

    @abstractmethod
    async def granted_permissions(self, dataset_id: UUID, grantee_id: UUID) -> frozenset[str]:
        """The permissions the grantee holds on the dataset through grants (one indexed lookup;
        empty for an unknown dataset or user). Ownership is not a grant: not included."""

    @abstractmethod
    async def list_granted_datasets(
        self, grantee_id: UUID, permission: str | None = None
    ) -> list[Dataset]:
        """Datasets on which the grantee holds ``permission`` (any permission when None) through
        a grant, each once, ordered by the dataset's creation time. Owned datasets are not
        included unless granted, which :mod:`engramdb.access` never does."""
