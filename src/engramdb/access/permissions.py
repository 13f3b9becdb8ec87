"""The ONE permission check every verb goes through, and the dataset sets built on it.

Rules (SPEC R-ACL-1/2, ``docs/permissions.md``):

* A dataset's owner holds every permission; anyone else holds exactly the permissions granted
  to them (``read``, ``write``, ``delete``, ``share``: independent, none implies another).
  Being an administrator grants nothing on other users' datasets.
* An unknown dataset id and a dataset the user may not use are refused with the SAME
  :class:`~engramdb.errors.PermissionDeniedError` (same class, same message): a refusal never
  confirms that a dataset exists.
* Names are owner-scoped: a name only ever means one of the caller's own datasets; another
  user's dataset is reachable only by its UUID with a grant.
* Grants go to a user, a role or a tenant. What a user holds on a dataset is the union of their
  own grants, their roles' grants and their selected tenant's grants (:func:`permissions_on`).
* Tenants wall datasets off: a dataset belongs to the tenant its owner had selected when
  creating it (None: the owner's personal space), and a user reaches it -- as owner or through
  any grant -- only while working in that same tenant (``select_tenant``), as a member of it.
* Every decision reads the store (no cache), so a revoked grant stops working at once.
* Per-user nodes inside a dataset (a user's preference record) are shown to that user only
  (:func:`visible_nodes`), whoever can read the dataset.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engramdb.errors import ConflictError, DatasetNotFoundError, PermissionDeniedError
from engramdb.models.access import PERMISSIONS, Permission, validate_permission
from engramdb.models.records import Dataset, Edge, Node, User
from engramdb.storage.base import Store, Subgraph
from engramdb.storage.types import Membership
from engramdb.validation import validate_dataset_name, validate_uuid

__all__ = [
    "accessible_datasets",
    "check",
    "dataset_for_read",
    "dataset_for_write",
    "datasets_for_read",
    "denied",
    "own_dataset",
    "owned_datasets",
    "permissions_on",
    "readable_datasets",
    "validate_permission",
    "visible_nodes",
]


def denied(dataset_id: UUID | str, permission: str) -> PermissionDeniedError:
    """The refusal for a dataset id: identical whether the dataset is unknown or not permitted."""
    return PermissionDeniedError(
        f"Request owner does not have necessary permission: [{permission}] for all datasets "
        f"requested (dataset {dataset_id}, or no such dataset exists). Check the id, or ask the "
        f"dataset's owner for a {permission} grant."
    )


async def check(
    user: User,
    dataset_id: UUID | str,
    permission: Permission | str,
    *,
    store: Store,
) -> Dataset:
    """The dataset ``dataset_id`` if ``user`` holds ``permission`` on it (owners hold all).

    Raises PermissionDeniedError -- the same message for a dataset that does not exist and for
    one the user may not use -- and EngramValidationError for a malformed id or an unknown
    permission. (``engramdb.check`` runs it on the default engine.)
    """
    wanted = validate_permission(permission)
    ident = validate_uuid(dataset_id, "dataset id")
    dataset = await store.get_dataset(ident)
    if dataset is None:
        raise denied(ident, wanted)
    if wanted in await permissions_on(store, user, dataset):
        return dataset
    raise denied(ident, wanted)


async def permissions_on(store: Store, user: User, dataset: Dataset) -> frozenset[Permission]:
    """What ``user`` holds on ``dataset`` -- THE rule (see the module docstring): nothing
    outside the tenant the user works in; everything for the owner; else the union of the
    grants to the user, to their roles in that tenant and to the tenant itself."""
    scope = await store.membership(user.id)
    if not _in_scope(scope, dataset):
        return frozenset()
    if dataset.owner_id == user.id:
        return frozenset(PERMISSIONS)
    held = await store.permissions_of(dataset.id, _principals(user, scope))
    return frozenset(p for p in PERMISSIONS if p in held)


def _in_scope(scope: Membership, dataset: Dataset) -> bool:
    """Whether the dataset lies in the tenant the user works in (and they are a member)."""
    if scope.tenant_id is not None and not scope.member:
        return False
    return dataset.tenant_id == scope.tenant_id


def _principals(user: User, scope: Membership) -> list[UUID]:
    """The grantees whose grants the user holds: themselves, their roles, their tenant."""
    ids = [user.id]
    if scope.tenant_id is not None and scope.member:
        ids.extend(scope.role_ids)
        ids.append(scope.tenant_id)
    return ids


async def readable_datasets(store: Store, user: User) -> list[Dataset]:
    """Every dataset the user may read: their own (oldest first), then those granted ``read``
    (to them, their roles or their tenant), all in the tenant they work in."""
    return await _reachable(store, user, "read")


async def accessible_datasets(store: Store, user: User) -> list[Dataset]:
    """The user's own datasets, then those they hold any grant on (what list_datasets shows),
    all in the tenant they work in."""
    return await _reachable(store, user, None)


async def _reachable(store: Store, user: User, permission: Permission | None) -> list[Dataset]:
    scope = await store.membership(user.id)
    owned = await store.list_datasets(user.id)
    granted = await store.datasets_granted_to(_principals(user, scope), permission)
    return [d for d in _merge(owned, granted) if _in_scope(scope, d)]


async def own_dataset(store: Store, user: User, name: str) -> Dataset | None:
    """The user's own dataset called ``name`` in the tenant they work in, or None (names are
    owner-scoped and never reach another user's dataset)."""
    found = await store.find_dataset(user.id, validate_dataset_name(name))
    if found is None or not _in_scope(await store.membership(user.id), found):
        return None
    return found


async def owned_datasets(store: Store, user: User) -> list[Dataset]:
    """The user's own datasets in the tenant they work in, oldest first."""
    scope = await store.membership(user.id)
    return [d for d in await store.list_datasets(user.id) if _in_scope(scope, d)]


async def dataset_for_read(store: Store, user: User, ref: str | UUID) -> Dataset:
    """The dataset a reading verb (list_conflicts, list_improve_runs) names: a UUID needs read
    permission (else PermissionDeniedError, the same for an unknown id); a name is one of the
    user's own datasets (else DatasetNotFoundError)."""
    if isinstance(ref, UUID):
        return await check(user, ref, "read", store=store)
    found = await own_dataset(store, user, ref)
    if found is None:
        raise DatasetNotFoundError(f"dataset {str(ref)!r} not found", missing=[str(ref)])
    return found


async def datasets_for_read(store: Store, user: User, ref: str | UUID | None) -> list[Dataset]:
    """What a reading verb's optional ``dataset`` names: that one dataset
    (:func:`dataset_for_read`), or every dataset the user may read when it is None."""
    if ref is None:
        return await readable_datasets(store, user)
    return [await dataset_for_read(store, user, ref)]


async def dataset_for_write(store: Store, user: User, ref: str | UUID) -> Dataset:
    """The dataset a writing verb (remember, improve) works on.

    A UUID must name a dataset the user may write (else PermissionDeniedError, see
    :func:`check`); a name is owner-scoped: the user's own dataset of that name, created if
    missing (in the tenant the user works in) -- never another user's dataset of the same name.
    A name is unique across the owner's tenants: one already used in another of them is
    refused with ConflictError.
    """
    if isinstance(ref, UUID):
        return await check(user, ref, "write", store=store)
    scope = await store.membership(user.id)
    if scope.tenant_id is not None and not scope.member:
        raise PermissionDeniedError(
            "you are no longer a member of the tenant you selected; select another one "
            "(select_tenant) or your personal space (select_tenant(None))"
        )
    dataset = await store.get_or_create_dataset(user.id, validate_dataset_name(ref))
    if not _in_scope(scope, dataset):
        raise ConflictError(
            f"you already have a dataset named {dataset.name!r} in another tenant (or in your "
            "personal space); dataset names are unique per owner across tenants in engramdb: "
            "choose another name, or select that tenant to use it"
        )
    return dataset


def visible_nodes(user: User, nodes: Sequence[Node], edges: Sequence[Edge]) -> Subgraph:
    """``nodes`` and ``edges`` without another user's per-user internal nodes.

    A dataset can hold nodes that belong to one user rather than to the dataset -- a user's
    preference record (``properties["internal"]`` with a ``user_id``), built from that user's
    sessions. Readers of the dataset, its owner included, see only their own; edges touching a
    hidden node are hidden with it.
    """
    mine = str(user.id)
    hidden = {
        n.id
        for n in nodes
        if n.properties.get("internal") and str(n.properties.get("user_id", mine)) != mine
    }
    if not hidden:
        return Subgraph(nodes=list(nodes), edges=list(edges))
    return Subgraph(
        nodes=[n for n in nodes if n.id not in hidden],
        edges=[e for e in edges if e.source_id not in hidden and e.target_id not in hidden],
    )


def _merge(first: list[Dataset], second: list[Dataset]) -> list[Dataset]:
    seen = {d.id for d in first}
    return first + [d for d in second if d.id not in seen]
