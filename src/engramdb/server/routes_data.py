"""Datasets (list, create, delete, share), sessions (feedback, entries), conflicts, skills."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query, Response, status

from engramdb.api.skills import Skill
from engramdb.engine import get_engine
from engramdb.improvement.conflicts import FactConflict
from engramdb.models.access import Grant, Permission
from engramdb.models.records import Dataset
from engramdb.models.results import ResponseQAEntry
from engramdb.server.auth import CurrentUser
from engramdb.server.schemas import (
    DatasetCreate,
    FeedbackRequest,
    GrantRequest,
    ResolveConflictRequest,
)
from engramdb.validation import validate_dataset_name

__all__ = ["router"]

router = APIRouter(prefix="/api/v1")


@router.get("/datasets", response_model=list[Dataset], tags=["datasets"])
async def list_datasets_route(user: CurrentUser) -> list[Dataset]:
    """The datasets you own."""
    from engramdb.api.datasets import list_datasets

    return await list_datasets(user=user)


@router.post(
    "/datasets",
    response_model=Dataset,
    status_code=status.HTTP_201_CREATED,
    tags=["datasets"],
)
async def create_dataset_route(body: DatasetCreate, user: CurrentUser) -> Dataset:
    """Create a dataset of yours (names are yours alone; an existing one is returned)."""
    name = validate_dataset_name(body.name)
    engine = get_engine()
    owner = await engine.resolve_user(user)
    return await engine.store.get_or_create_dataset(owner.id, name)


@router.delete(
    "/datasets/{dataset_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    tags=["datasets"],
)
async def delete_dataset_route(dataset_id: UUID, user: CurrentUser) -> Response:
    """Delete a dataset with everything in it (``forget(dataset=<id>)``)."""
    from engramdb.api.forget import forget

    await forget(dataset=dataset_id, user=user)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/datasets/{dataset_id}/grants",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    tags=["datasets"],
)
async def grant_route(dataset_id: UUID, body: GrantRequest, user: CurrentUser) -> Response:
    """Share a dataset: give another user read / write / delete / share on it (you need the
    share permission; the owner has it)."""
    from engramdb.access import grant

    await grant(dataset_id, body.grantee_id, body.permission, user=user)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/datasets/{dataset_id}/grants", response_model=list[Grant], tags=["datasets"])
async def list_grants_route(dataset_id: UUID, user: CurrentUser) -> list[Grant]:
    """The grants on a dataset you may share."""
    from engramdb.access import list_grants

    return await list_grants(dataset_id, user=user)


@router.delete(
    "/datasets/{dataset_id}/grants/{grantee_id}/{permission}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    tags=["datasets"],
)
async def revoke_route(
    dataset_id: UUID, grantee_id: UUID, permission: Permission, user: CurrentUser
) -> Response:
    """Take a grant back."""
    from engramdb.access import revoke

    await revoke(dataset_id, grantee_id, permission, user=user)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/sessions/{session_id}/feedback", tags=["sessions"])
async def feedback_route(session_id: str, body: FeedbackRequest, user: CurrentUser) -> bool:
    """Rate a recalled answer of your session (1..5, 3 is neutral)."""
    from engramdb.api import session

    return await session.add_feedback(
        session_id,
        body.qa_id,
        feedback_score=body.feedback_score,
        feedback_text=body.feedback_text,
        user=user,
    )


@router.get(
    "/sessions/{session_id}/entries", response_model=list[ResponseQAEntry], tags=["sessions"]
)
async def entries_route(
    session_id: str,
    user: CurrentUser,
    last_n: Annotated[int | None, Query(ge=1, le=10_000)] = None,
) -> list[ResponseQAEntry]:
    """The Q&A entries of your session, oldest first."""
    from engramdb.api import session

    return await session.get_session(session_id, last_n, user=user)


@router.get("/conflicts", response_model=list[FactConflict], tags=["conflicts"])
async def list_conflicts_route(
    user: CurrentUser,
    dataset: Annotated[str | None, Query(min_length=1, max_length=128)] = None,
    dataset_id: UUID | None = None,
    status_filter: Annotated[str | None, Query(alias="status", pattern="^(open|resolved)$")] = None,
) -> list[FactConflict]:
    """Stored fact conflicts of one of your datasets (by name or id), or of all of them."""
    from engramdb.api.conflicts import list_conflicts
    from engramdb.errors import EngramValidationError

    if dataset is not None and dataset_id is not None:
        raise EngramValidationError("pass dataset (a name) or dataset_id, not both")
    ref: str | UUID | None = dataset_id if dataset_id is not None else dataset
    return await list_conflicts(ref, status=status_filter, user=user)


@router.post("/conflicts/{conflict_id}/resolve", response_model=FactConflict, tags=["conflicts"])
async def resolve_conflict_route(
    conflict_id: UUID, body: ResolveConflictRequest, user: CurrentUser
) -> FactConflict:
    """Record which fact of a conflict is right."""
    from engramdb.api.conflicts import resolve_conflict

    return await resolve_conflict(conflict_id, body.fact_id, user=user)


@router.get("/skills/{skill_id}", response_model=Skill, tags=["skills"])
async def skill_route(skill_id: UUID, user: CurrentUser) -> Skill:
    """A skill with its procedure body."""
    from engramdb.api.skills import load_skill

    return await load_skill(skill_id, user=user)
