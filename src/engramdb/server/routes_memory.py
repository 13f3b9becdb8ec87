"""The memory verbs over HTTP: remember, recall, improve, forget, and background run status.

Each route authenticates the caller, turns the body into the SDK verb's arguments and calls the
verb with ``user=``: permissions are enforced by the verbs, exactly as in-process.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request, Response, status
from fastapi.responses import JSONResponse
from pydantic import TypeAdapter

from engramdb.errors import EngramValidationError
from engramdb.ingest import chunkers
from engramdb.ingest.types import Chunker
from engramdb.models.improve import ImproveResult
from engramdb.models.results import RecallResponse, RememberResult
from engramdb.server.auth import CurrentUser
from engramdb.server.bodies import EngineDep, body_spec, read_body, to_request
from engramdb.server.forms import UploadForm
from engramdb.server.runs import RunRegistry, RunStatusOut
from engramdb.server.uploads import UploadDir, refuse_server_paths
from engramdb.verbs import VERBS
from engramdb.verbs.spec import API_PREFIX

__all__ = ["REMEMBER_BODY", "chunker_class", "router", "runs_of"]

router = APIRouter(prefix=API_PREFIX, tags=["memory"])

_RECALL_LIST: TypeAdapter[list[RecallResponse]] = TypeAdapter(list[RecallResponse])
_REMEMBER, _RECALL, _IMPROVE, _FORGET = (
    VERBS[name] for name in ("remember", "recall", "improve", "forget")
)

#: The two bodies ``POST /api/v1/remember`` accepts (documented by hand: FastAPI cannot declare
#: a JSON and a multipart body for one route).
REMEMBER_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/RememberRequest"}},
            "multipart/form-data": {
                "schema": {"$ref": "#/components/schemas/RememberUpload"},
                "encoding": {"node_set": {"style": "form", "explode": True}},
            },
        },
    }
}


_REMEMBER_FORM = UploadForm(_REMEMBER, "RememberUpload", "ingest")
#: The multipart form of ``POST /api/v1/remember`` (merged into the OpenAPI components).
REMEMBER_UPLOAD_SCHEMA: dict[str, Any] = _REMEMBER_FORM.schema


def runs_of(request: Request) -> RunRegistry:
    """The app's registry of background runs."""
    registry = request.app.state.runs
    assert isinstance(registry, RunRegistry)
    return registry


def chunker_class(name: str | None) -> type[Chunker] | None:
    """A built-in chunker by the name that crosses HTTP (None: the default)."""
    if name is None:
        return None
    table: dict[str, type[Chunker]] = {
        "TextChunker": chunkers.TextChunker,
        "TextChunkerWithOverlap": chunkers.TextChunkerWithOverlap,
        "CsvChunker": chunkers.CsvChunker,
    }
    found = table.get(name)
    if found is None:
        raise EngramValidationError(
            "chunker must be TextChunker, TextChunkerWithOverlap or CsvChunker"
        )
    return found


@router.post(
    "/remember",
    response_model=RememberResult,
    summary="Ingest texts (JSON) or uploaded files (multipart)",
    openapi_extra=REMEMBER_BODY,
    responses={202: {"model": RememberResult, "description": "started in the background"}},
)
async def remember_route(
    request: Request, user: CurrentUser, response: Response, engine: EngineDep
) -> Any:
    """``remember()``: a JSON body carries texts, a multipart body carries files. With
    ``run_in_background`` the answer is 202 with ``run_id``; poll ``GET /api/v1/runs/{run_id}``."""
    settings = engine.settings
    body, uploads = await _REMEMBER_FORM.body(request)
    upload_dir: UploadDir | None = None
    data: Any
    texts = [body.data] if isinstance(body.data, str) else list(body.data)
    if not texts and not uploads:
        raise EngramValidationError("data is empty; send a text or a list of texts")
    refuse_server_paths(texts, settings.max_file_bytes)
    data = body.data
    if uploads:
        upload_dir = UploadDir()
        try:
            data = [*texts, *await upload_dir.save(uploads, settings.max_file_bytes)]
        except BaseException:
            upload_dir.remove()
            raise
    try:
        call = to_request(_REMEMBER, body, user, data=data, chunker=chunker_class(body.chunker))
        result = await _REMEMBER.handler(engine, call)
    except BaseException:
        if upload_dir is not None:
            upload_dir.remove()
        raise
    task = result._task
    if task is None:
        if upload_dir is not None:
            upload_dir.remove()
        return result
    run = runs_of(request).add(
        "remember",
        user.id,
        task,
        result,
        cleanup=upload_dir.remove if upload_dir is not None else None,
        run_id=result.run_id,
    )
    response.status_code = status.HTTP_202_ACCEPTED
    return result.model_copy(update={"run_id": run.run_id})


@router.post(
    "/recall",
    response_model=list[RecallResponse],
    summary="Query memory",
    openapi_extra=body_spec("recall"),
)
async def recall_route(request: Request, user: CurrentUser, engine: EngineDep) -> Response:
    """``recall()``. ``response_schema`` (a JSON schema) replaces the SDK's ``response_model``."""
    from engramdb.server.response_schema import model_from_schema

    body: Any = await read_body(request, _RECALL)
    config = dict(body.retriever_specific_config or {})
    if "response_model" in config:
        raise EngramValidationError(
            "retriever_specific_config cannot carry response_model over HTTP; send its JSON "
            "schema as response_schema"
        )
    model = model_from_schema(body.response_schema) if body.response_schema is not None else None
    call = to_request(_RECALL, body, user, response_model=model)
    results = await _RECALL.handler(engine, call)
    # Serialised directly (validated types already): no second validation pass per request.
    return Response(_RECALL_LIST.dump_json(results), media_type="application/json")


@router.post(
    "/improve",
    response_model=ImproveResult,
    summary="Enrich a dataset (the nine improve stages)",
    openapi_extra=body_spec("improve"),
    responses={202: {"model": ImproveResult, "description": "started in the background"}},
)
async def improve_route(request: Request, user: CurrentUser, engine: EngineDep) -> Any:
    """``improve()``. With ``run_in_background`` the answer is 202 and carries ``run_id``."""
    body = await read_body(request, _IMPROVE)
    result = await _IMPROVE.handler(engine, to_request(_IMPROVE, body, user))
    task = result._task
    if task is None:
        return result
    run = runs_of(request).add("improve", user.id, task, result)
    document = result.model_dump(mode="json")
    document["run_id"] = str(run.run_id)
    return JSONResponse(document, status_code=status.HTTP_202_ACCEPTED)


@router.get("/runs/{run_id}", response_model=RunStatusOut, summary="Status of a background run")
async def run_status(run_id: UUID, user: CurrentUser, request: Request) -> RunStatusOut:
    """A background remember / improve of yours: ``running`` until it finished, then its
    result (or the problem document of its error). Unknown and other users' ids: 404."""
    registry = runs_of(request)
    return registry.status(registry.get(run_id, user.id))
