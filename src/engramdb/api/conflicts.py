"""list_conflicts() and resolve_conflict(): the facts improve()'s conflict review found."""

from __future__ import annotations

from engramdb.access.permissions import check, datasets_for_read
from engramdb.artifacts.conflicts import CONFLICT_TYPE, OWNER, conflict_from_node, load_conflicts
from engramdb.engine import Engine
from engramdb.errors import (
    EngramValidationError,
    NotFoundError,
    PermissionDeniedError,
)
from engramdb.models.conflicts import FactConflict
from engramdb.models.requests.graph import ListConflictsRequest, ResolveConflictRequest
from engramdb.storage.base import DerivedWrite
from engramdb.validation import validate_uuid

__all__ = ["FactConflict", "list_conflicts", "resolve_conflict"]


async def list_conflicts(engine: Engine, request: ListConflictsRequest) -> list[FactConflict]:
    """The stored fact conflicts of one dataset, or of every dataset you can read.

    A name means one of your own datasets (DatasetNotFoundError otherwise); a UUID may name a
    dataset shared with you and needs read permission (PermissionDeniedError otherwise, the same
    for an unknown UUID). resolve_conflict() needs write permission on the conflict's dataset.

    ``status`` ``"open"`` or ``"resolved"`` filters. Facts whose edges were deleted since the
    review are left out, and a conflict left with one fact is not listed.
    """
    if request.status not in (None, "open", "resolved"):
        raise EngramValidationError(
            f"status must be 'open', 'resolved' or None, got {request.status!r}"
        )
    if not await engine.database_exists():
        return []
    owner = await engine.resolve_user(request.user)
    datasets = await datasets_for_read(engine.store, owner, request.dataset)
    found = await load_conflicts(engine.store, [d.id for d in datasets])
    return [c for c in found if request.status is None or c.status == request.status]


async def resolve_conflict(engine: Engine, request: ResolveConflictRequest) -> FactConflict:
    """Record that the fact ``fact_id`` (a :class:`~engramdb.improvement.conflicts.ConflictFact`
    ``edge_id``) is the right one: it becomes ``current``, the others ``superseded``. Later
    reviews keep the choice while that fact exists. Raises NotFoundError for a conflict that is
    not in your datasets or a fact that is not one of its facts."""
    cid = validate_uuid(request.conflict_id, "conflict_id")
    fid = validate_uuid(request.fact_id, "fact_id")
    owner = await engine.resolve_user(request.user)
    store = engine.store
    (node,) = await store.get_nodes([cid]) or (None,)
    dataset = await store.get_dataset(node.dataset_id) if node is not None else None
    missing = NotFoundError(f"no fact conflict {cid} in your datasets")
    if node is None or node.type != CONFLICT_TYPE or dataset is None:
        raise missing
    try:  # needs write; a conflict the user cannot even read looks exactly like a missing one
        dataset = await check(owner, dataset.id, "write", store=store)
    except PermissionDeniedError as refused:
        try:
            await check(owner, dataset.id, "read", store=store)
        except PermissionDeniedError:
            raise missing from None
        raise refused from None
    conflict = conflict_from_node(node)
    if fid not in {f.edge_id for f in conflict.facts}:
        valid = ", ".join(str(f.edge_id) for f in conflict.facts)
        raise NotFoundError(f"fact {fid} is not one of conflict {cid}'s facts ({valid})")
    facts = [
        {**f, "label": "current" if f["edge_id"] == str(fid) else "superseded"}
        for f in node.properties.get("facts", [])
    ]
    updated = node.model_copy(
        update={"properties": {**node.properties, "facts": facts, "resolved_fact_id": str(fid)}}
    )
    await store.write_derived(DerivedWrite(dataset.id, OWNER, nodes=[updated]))
    return conflict_from_node(updated)
