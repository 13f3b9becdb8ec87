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
* Every decision reads the store (no cache), so a revoked grant stops working at once.
* Per-user nodes inside a dataset (a user's preference record) are shown to that user only
  (:func:`visible_nodes`), whoever can read the dataset.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engramdb.errors import PermissionDeniedError
from engramdb.models.access import Permission, validate_permission
from engramdb.models.records import Dataset, Edge, Node, User
from engramdb.storage.base import Store, Subgraph
from engramdb.validation import validate_dataset_name, validate_uuid

__all__ = [
    "accessible_datasets",
    "check",
    "dataset_for_write",
    "denied",
    "readable_datasets",
    "validate_permission",
    "visible_nodes",
]


def denied(dataset_id: UUID | str, permission: str) -> PermissionDeniedError:
    """The refusal for a dataset id: identical whether the dataset is unknown or not permitted."""
    return PermissionDeniedError(
        f"Request owner does not have necessary permission: [{permission}] for dataset "
        f"{dataset_id} (or no such dataset exists). Check the id, or ask the dataset's owner "
        f"for a {permission} grant."
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
    if dataset.owner_id == user.id:
        return dataset
    if wanted in await store.granted_permissions(dataset.id, user.id):
        return dataset
    raise denied(ident, wanted)


async def readable_datasets(store: Store, user: User) -> list[Dataset]:
    """Every dataset the user may read: their own (oldest first), then those granted ``read``."""
    owned = await store.list_datasets(user.id)
    granted = await store.list_granted_datasets(user.id, "read")
    return _merge(owned, granted)


async def accessible_datasets(store: Store, user: User) -> list[Dataset]:
    """The user's own datasets, then those they hold any grant on (what list_datasets shows)."""
    owned = await store.list_datasets(user.id)
    granted = await store.list_granted_datasets(user.id)
    return _merge(owned, granted)


async def dataset_for_write(store: Store, user: User, ref: str | UUID) -> Dataset:
    """The dataset a writing verb (remember, improve) works on.

    A UUID must name a dataset the user may write (else PermissionDeniedError, see
    :func:`check`); a name is owner-scoped: the user's own dataset of that name, created if
    missing -- never another user's dataset of the same name.
    """
    if isinstance(ref, UUID):
        return await check(user, ref, "write", store=store)
    return await store.get_or_create_dataset(user.id, validate_dataset_name(ref))


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
