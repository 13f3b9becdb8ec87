"""Granting and revoking permissions on a dataset.

Who may do what:

* The owner may grant and revoke any permission to anyone (except themselves: they already hold
  everything).
* A holder of ``share`` may grant and revoke the permissions they hold themselves (``share``
  included, which is how re-sharing works), to and from anyone but themselves and the owner.
* Anyone may give up a permission they were granted (``revoke`` with their own id).
* Grants do not cascade: revoking B's ``share`` leaves the grants B gave in place.
* The grantee is a user, a role or a tenant (its id says which). A role or a tenant can only be
  given permissions on datasets of its own tenant; any other id -- unknown, or a role or tenant
  elsewhere -- gets the same NotFoundError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from engramdb.access.permissions import check, permissions_on, validate_permission
from engramdb.errors import EngramValidationError, NotFoundError, PermissionDeniedError
from engramdb.models.access import Grant, Permission, PrincipalKind
from engramdb.models.records import Dataset, User, utcnow
from engramdb.models.requests.access import GrantRequest, ListGrantsRequest, RevokeRequest

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["grant", "list_grants", "revoke"]


async def grant(engine: Engine, request: GrantRequest) -> None:
    """Give ``grantee_id`` -- a user, a role or a tenant -- the ``permission`` on the dataset
    (idempotent).

    The acting ``user`` (default: the default local user) must own the dataset or hold
    ``share`` and the permission given. PermissionDeniedError when not allowed (the same for an
    unknown dataset), NotFoundError for an unknown grantee (or a role or tenant outside the
    dataset's tenant), EngramValidationError for granting to oneself or to the owner.
    """
    dataset_id = request.dataset_id
    grantee_id = request.grantee_id
    permission = request.permission
    engine, actor, wanted, ds_id, grantee = await _prepare(
        engine, dataset_id, grantee_id, permission, request.user
    )
    dataset = await _managed(engine, actor, ds_id, wanted)
    kind = await _grantee_kind(engine, dataset, grantee)
    if kind == "user" and grantee == actor.id:
        raise EngramValidationError(
            "you cannot grant permissions to yourself; ask the dataset's owner"
        )
    if grantee == dataset.owner_id:
        raise EngramValidationError(
            f"user {grantee} owns dataset {dataset.id} and already holds every permission"
        )
    await engine.store.add_grant(
        Grant(
            dataset_id=dataset.id,
            grantee_id=grantee,
            permission=wanted,
            granted_by=actor.id,
            created_at=utcnow(),
            grantee_kind=kind,
        )
    )


async def _grantee_kind(engine: Engine, dataset: Dataset, grantee: UUID) -> PrincipalKind:
    """Whether ``grantee`` is a user, a role of the dataset's tenant or that tenant."""
    store = engine.store
    if await store.get_user(grantee) is not None:
        return "user"
    if dataset.tenant_id is not None:
        if grantee == dataset.tenant_id:
            return "tenant"
        role = await store.get_role(grantee)
        if role is not None and role.tenant_id == dataset.tenant_id:
            return "role"
    raise NotFoundError(
        f"No user, and no role or tenant of this dataset's tenant, with id {grantee}; create a "
        "user with 'engramdb users create <email>', or a role with create_role()."
    )


async def revoke(engine: Engine, request: RevokeRequest) -> None:
    """Take ``permission`` on the dataset away from ``grantee_id``, effective immediately
    (idempotent). Allowed for the owner, for a holder of ``share`` and that permission, and for
    the grantee themselves; PermissionDeniedError otherwise (the same for an unknown dataset)."""
    engine, actor, wanted, ds_id, grantee = await _prepare(
        engine, request.dataset_id, request.grantee_id, request.permission, request.user
    )
    if grantee == actor.id:
        dataset = await check(actor, ds_id, wanted, store=engine.store)
        if dataset.owner_id == actor.id:
            raise EngramValidationError(
                "an owner's permissions come from owning the dataset and cannot be revoked; "
                "forget the dataset to give it up"
            )
    else:
        dataset = await _managed(engine, actor, ds_id, wanted)
        if grantee == dataset.owner_id:
            raise EngramValidationError(
                f"user {grantee} owns dataset {dataset.id}; an owner's permissions cannot be "
                "revoked"
            )
    await engine.store.remove_grant(dataset.id, grantee, wanted)


async def list_grants(engine: Engine, request: ListGrantsRequest) -> list[Grant]:
    """The dataset's grants (owner or ``share`` holder only; PermissionDeniedError otherwise,
    the same for an unknown dataset)."""
    ds_id = request.dataset_id
    actor = await engine.resolve_user(request.user)
    dataset = await check(actor, ds_id, "share", store=engine.store)
    return await engine.store.list_grants(dataset.id)


async def _prepare(
    engine: Engine, dataset_id: UUID, grantee_id: UUID, permission: object, user: User | None
) -> tuple[Engine, User, Permission, UUID, UUID]:
    wanted = validate_permission(permission)
    ds_id, grantee = dataset_id, grantee_id
    actor = await engine.resolve_user(user)
    return engine, actor, wanted, ds_id, grantee


async def _managed(
    engine: Engine, actor: User, dataset_id: UUID, permission: Permission
) -> Dataset:
    """The dataset if ``actor`` may hand out or take back ``permission`` on it."""
    dataset = await check(actor, dataset_id, "share", store=engine.store)
    if permission not in await permissions_on(engine.store, actor, dataset):
        raise PermissionDeniedError(
            f"you may only share permissions you hold yourself, and you do not hold "
            f"[{permission}] on dataset {dataset.id}; ask the dataset's owner"
        )
    return dataset
