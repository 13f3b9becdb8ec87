"""Users, API keys and grants (access control data).

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from uuid import UUID

from engramdb.models.access import ApiKeyInfo, Grant, Role, Tenant
from engramdb.models.records import Dataset, User
from engramdb.storage.types import (
    Membership,
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
    # * A grantee is a user, a role or a tenant (``Grant.grantee_kind``); ids never collide.
    #   ``add_grant`` checks that the grantee of that kind exists.
    # * Tenants and roles are never deleted. A tenant's owner is one of its members. A role
    #   belongs to one tenant; its name is unique there. A user holds a role only while a
    #   member of its tenant (``add_role_member`` checks it in the same transaction).
    # * A user's selected tenant (``User.tenant_id``) is one they are a member of, or None.
    #   A new dataset takes its owner's selected tenant at creation (``Dataset.tenant_id``),
    #   read in the creating transaction; it never changes afterwards.

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

    @abstractmethod
    async def permissions_of(
        self, dataset_id: UUID, principal_ids: Sequence[UUID]
    ) -> frozenset[str]:
        """The permissions any of the principals (users, roles, tenants) holds on the dataset
        through grants, in one lookup (empty for none). Ownership is not included."""

    @abstractmethod
    async def datasets_granted_to(
        self, principal_ids: Sequence[UUID], permission: str | None = None
    ) -> list[Dataset]:
        """Datasets on which any of the principals holds ``permission`` (any when None) through
        a grant, each once, ordered by the dataset's creation time."""

    # --- tenants and roles ----------

    @abstractmethod
    async def create_tenant(self, tenant: Tenant, *, select: bool) -> Tenant:
        """Store the tenant with its owner as first member, and (``select``) make it the owner's
        selected tenant, in one transaction. NotFoundError when the owner is not a user."""

    @abstractmethod
    async def get_tenant(self, tenant_id: UUID) -> Tenant | None:
        """The tenant, or None."""

    @abstractmethod
    async def add_tenant_member(self, tenant_id: UUID, user_id: UUID) -> bool:
        """Make the user a member; False when they already were. NotFoundError for an unknown
        tenant or user (nothing is written then)."""

    @abstractmethod
    async def list_user_tenants(self, user_id: UUID) -> list[Tenant]:
        """The tenants the user is a member of, by creation time."""

    @abstractmethod
    async def select_tenant(self, user_id: UUID, tenant_id: UUID | None) -> User | None:
        """Set the user's selected tenant (None: their personal space) and return the user as
        stored; None -- and nothing changes -- when the user does not exist or is not a member
        of ``tenant_id``."""

    @abstractmethod
    async def create_role(self, role: Role) -> Role:
        """Store the role. ConflictError when its tenant already has a role of that name,
        NotFoundError when the tenant does not exist."""

    @abstractmethod
    async def get_role(self, role_id: UUID) -> Role | None:
        """The role, or None."""

    @abstractmethod
    async def add_role_member(self, role_id: UUID, user_id: UUID) -> bool:
        """Give the user the role; False when they already held it. NotFoundError -- nothing
        written -- when the role does not exist or the user is not a member of its tenant."""

    @abstractmethod
    async def list_user_roles(self, user_id: UUID, tenant_id: UUID) -> list[Role]:
        """The roles the user holds in the tenant, by creation time."""

    @abstractmethod
    async def membership(self, user_id: UUID) -> Membership:
        """The user's selected tenant, whether they are a member of it and the roles they hold
        in it, read in one transaction (an unknown user: no tenant, no roles)."""
