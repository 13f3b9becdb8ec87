"""Datasets (list, create, delete, share), sessions (entries, feedback, traces, guidance),
conflicts, skills, and reading the graph."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query, Response, status

from engramdb.api.graph import GraphSnapshot
from engramdb.api.skills import Skill, SkillRecord
from engramdb.errors import NotFoundError
from engramdb.models.access import Grant, Permission
from engramdb.models.conflicts import FactConflict
from engramdb.models.records import Dataset, Node
from engramdb.models.results import ResponseAgentTraceEntry, ResponseQAEntry
from engramdb.models.sessions import SessionRecord
from engramdb.server.auth import CurrentUser
from engramdb.server.bodies import EngineDep
from engramdb.server.schemas import (
    DatasetCreate,
    FeedbackRequest,
    GrantRequest,
    GuidanceRequest,
    QARequest,
    ResolveConflictRequest,
    SkillRequest,
    SkillsMarkdownRequest,
    TraceRequest,
)
from engramdb.validation import validate_dataset_name
from engramdb.verbs import VERBS

__all__ = ["router"]

router = APIRouter(prefix="/api/v1")


@router.get("/datasets", response_model=list[Dataset], tags=["datasets"])
async def list_datasets_route(user: CurrentUser, engine: EngineDep) -> list[Dataset]:
    """The datasets you own, then those shared with you."""
    verb = VERBS["list_datasets"]
    found: list[Dataset] = await verb.handler(engine, verb.build({"user": user}))
    return found


@router.post(
    "/datasets",
    response_model=Dataset,
    status_code=status.HTTP_201_CREATED,
    tags=["datasets"],
)
async def create_dataset_route(
    body: DatasetCreate, user: CurrentUser, engine: EngineDep
) -> Dataset:
    """Create a dataset of yours (names are yours alone; an existing one is returned)."""
    name = validate_dataset_name(body.name)
    owner = await engine.resolve_user(user)
    return await engine.store.get_or_create_dataset(owner.id, name)


@router.delete(
    "/datasets/{dataset_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    tags=["datasets"],
)
async def delete_dataset_route(dataset_id: UUID, user: CurrentUser, engine: EngineDep) -> Response:
    """Delete a dataset with everything in it (``forget(dataset=<id>)``)."""
    verb = VERBS["forget"]
    await verb.handler(engine, verb.build({"dataset": dataset_id, "user": user}))
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


@router.post("/sessions/{session_id}/entries", tags=["sessions"])
async def add_qa_route(session_id: str, body: QARequest, user: CurrentUser) -> str:
    """Store a Q&A turn the application produced itself; the answer is its ``qa_id``."""
    from engramdb.api import session

    return await session.add_qa(
        session_id,
        body.question,
        body.answer,
        context=body.context,
        feedback_score=body.feedback_score,
        feedback_text=body.feedback_text,
        used_graph_element_ids=body.used_graph_element_ids,
        user=user,
    )


@router.delete("/sessions/{session_id}/entries/{qa_id}/feedback", tags=["sessions"])
async def delete_feedback_route(session_id: str, qa_id: str, user: CurrentUser) -> bool:
    """Remove the rating and feedback text of a Q&A entry of your session (404 when the session
    has no such entry of yours)."""
    from engramdb.api import session

    return await session.delete_feedback(session_id, qa_id, user=user)


@router.get("/sessions", response_model=list[SessionRecord], tags=["sessions"])
async def list_sessions_route(user: CurrentUser) -> list[SessionRecord]:
    """Your sessions, most recently active first."""
    from engramdb.api import session

    return await session.list_sessions(user=user)


@router.delete("/sessions/{session_id}", tags=["sessions"])
async def delete_session_route(session_id: str, user: CurrentUser) -> bool:
    """Delete your session with every entry in it; false when you have no such session."""
    from engramdb.api import session

    return await session.delete_session(session_id, user=user)


@router.post("/sessions/{session_id}/traces", tags=["sessions"])
async def add_trace_route(session_id: str, body: TraceRequest, user: CurrentUser) -> str:
    """Record one agent step in your session; the answer is its trace id."""
    from engramdb.api import session

    return await session.add_trace(
        session_id,
        body.origin_function,
        status=body.status,
        method_params=body.method_params,
        method_return_value=body.method_return_value,
        error_message=body.error_message,
        memory_query=body.memory_query,
        memory_context=body.memory_context,
        session_feedback=body.session_feedback,
        user=user,
    )


@router.get(
    "/sessions/{session_id}/traces",
    response_model=list[ResponseAgentTraceEntry],
    tags=["sessions"],
)
async def get_traces_route(
    session_id: str,
    user: CurrentUser,
    last_n: Annotated[int | None, Query(ge=1, le=10_000)] = None,
) -> list[ResponseAgentTraceEntry]:
    """The recorded agent steps of your session, oldest first."""
    from engramdb.api import session

    return await session.get_traces(session_id, last_n, user=user)


@router.post("/sessions/{session_id}/guidance", tags=["sessions"])
async def add_guidance_route(session_id: str, body: GuidanceRequest, user: CurrentUser) -> str:
    """Add one guidance entry to your session; the answer is its id."""
    from engramdb.api import session

    return await session.add_guidance(
        session_id,
        body.content,
        section=body.section,
        context_profile=body.context_profile,
        user=user,
    )


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


@router.post("/skills", response_model=SkillRecord, tags=["skills"])
async def remember_skill_route(body: SkillRequest, user: CurrentUser) -> SkillRecord:
    """Store one skill in a dataset of yours."""
    from engramdb.api.skills import remember_skill

    return await remember_skill(
        body.name,
        body.description,
        body.procedure,
        dataset_name=body.dataset_name,
        tags=body.tags,
        user=user,
    )


@router.post("/skills/markdown", response_model=list[SkillRecord], tags=["skills"])
async def remember_skills_route(
    body: SkillsMarkdownRequest, user: CurrentUser
) -> list[SkillRecord]:
    """Store skills written as SKILL.md-style markdown texts (``remember_skills``; the client
    reads files and directories, the server never reads a path)."""
    from engramdb.api.skills import parse_skill_markdown, remember_skill

    parsed = [parse_skill_markdown(d.text, default_name=d.default_name) for d in body.documents]
    records = []
    for name, description, procedure, own_tags in parsed:
        merged = list(dict.fromkeys([*(body.tags or []), *own_tags]))
        records.append(
            await remember_skill(
                name, description, procedure, dataset_name=body.dataset_name, tags=merged, user=user
            )
        )
    return records


@router.get("/graph", response_model=GraphSnapshot, tags=["graph"])
async def graph_route(
    user: CurrentUser,
    datasets: Annotated[list[str] | None, Query(max_length=1000)] = None,
    dataset_ids: Annotated[list[UUID] | None, Query(max_length=1000)] = None,
    limit: Annotated[int, Query(ge=1, le=100_000)] = 10_000,
) -> GraphSnapshot:
    """Nodes and edges of the named datasets of yours (``datasets``) or readable datasets
    (``dataset_ids``); every readable dataset when none are named. ``truncated`` says when more
    than ``limit`` nodes or ``2 * limit`` edges exist."""
    from engramdb.api.graph import get_graph

    return await get_graph(datasets, dataset_ids=dataset_ids, limit=limit, user=user)


@router.get("/nodes/{node_id}", response_model=Node, tags=["graph"])
async def node_route(node_id: UUID, user: CurrentUser) -> Node:
    """One node with all its stored fields (404 for unknown nodes and nodes you may not read
    alike)."""
    from engramdb.api.graph import get_node

    found = await get_node(node_id, user=user)
    if found is None:
        raise NotFoundError(f"no readable node {node_id} (or it does not exist)")
    return found
