"""Datasets (list, create, delete, share), sessions (entries, feedback, traces, guidance),
conflicts, skills, and reading the graph."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request, Response, status

from engramdb.access.permissions import dataset_for_write
from engramdb.models.records import Dataset
from engramdb.models.skills import SkillRecord
from engramdb.server.auth import CurrentUser
from engramdb.server.bodies import EngineDep, body_spec, read_body
from engramdb.server.schemas import (
    DatasetCreate,
)
from engramdb.validation import validate_dataset_name
from engramdb.verbs import VERBS
from engramdb.verbs.spec import API_PREFIX

__all__ = ["router"]

router = APIRouter(prefix=API_PREFIX)


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
    return await dataset_for_write(engine.store, owner, name)


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
    "/skills/markdown",
    response_model=list[SkillRecord],
    tags=["skills"],
    openapi_extra=body_spec("remember_skills"),
)
async def remember_skills_route(
    request: Request, user: CurrentUser, engine: EngineDep
) -> list[SkillRecord]:
    """Store skills written as SKILL.md-style markdown texts (``remember_skills``; the client
    reads files and directories, the server never reads a path)."""
    from engramdb.api.skills import parse_skill_markdown, remember_skill

    verb = VERBS["remember_skill"]
    body: Any = await read_body(request, VERBS["remember_skills"])
    parsed = [parse_skill_markdown(d.text, default_name=d.default_name) for d in body.documents]
    records = []
    for name, description, procedure, own_tags in parsed:
        merged = list(dict.fromkeys([*(body.tags or []), *own_tags]))
        call = verb.build(
            {
                "name": name,
                "description": description,
                "procedure": procedure,
                "dataset_name": body.dataset_name,
                "tags": merged,
                "user": user,
            }
        )
        records.append(await remember_skill(engine, call))
    return records
