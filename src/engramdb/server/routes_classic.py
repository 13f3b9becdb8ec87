"""cognee's classic verbs over HTTP: ``add`` (texts as JSON, files as multipart) and ``cognify``
(background runs polled like remember's). ``search`` has a derived route (verb_routes.py).

As for remember, a JSON text is never read as a path on the server: files travel as uploads,
which ``add`` reads before it answers (the upload directory is removed then).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response, status
from fastapi.responses import JSONResponse
from pydantic import TypeAdapter

from engramdb.errors import EngramValidationError
from engramdb.models.results import RememberResult
from engramdb.server.auth import CurrentUser
from engramdb.server.bodies import EngineDep, body_spec, read_body, to_request
from engramdb.server.forms import UploadForm
from engramdb.server.routes_memory import chunker_class, runs_of
from engramdb.server.runs import RunRegistry
from engramdb.server.uploads import UploadDir, refuse_server_paths
from engramdb.verbs import VERBS
from engramdb.verbs.spec import API_PREFIX

__all__ = ["ADD_BODY", "ADD_UPLOAD_SCHEMA", "router"]

router = APIRouter(prefix=API_PREFIX, tags=["classic"])

_ADD, _COGNIFY = VERBS["add"], VERBS["cognify"]
_RESULTS: TypeAdapter[dict[str, RememberResult]] = TypeAdapter(dict[str, RememberResult])

_ADD_FORM = UploadForm(_ADD, "AddUpload", "add")
#: The multipart form of ``POST /api/v1/add`` (merged into the OpenAPI components).
ADD_UPLOAD_SCHEMA: dict[str, Any] = _ADD_FORM.schema

#: The two bodies ``POST /api/v1/add`` accepts.
ADD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/AddRequest"}},
            "multipart/form-data": {
                "schema": {"$ref": "#/components/schemas/AddUpload"},
                "encoding": {"node_set": {"style": "form", "explode": True}},
            },
        },
    }
}


@router.post(
    "/add",
    response_model=RememberResult,
    summary="Add texts (JSON) or uploaded files (multipart) without building them",
    openapi_extra=ADD_BODY,
)
async def add_route(request: Request, user: CurrentUser, engine: EngineDep) -> Any:
    """``add()``: store inputs in a dataset; ``POST /api/v1/cognify`` builds them."""
    settings = engine.settings
    body, uploads = await _ADD_FORM.body(request)
    texts = [body.data] if isinstance(body.data, str) else list(body.data)
    if not texts and not uploads:
        raise EngramValidationError("data is empty; send a text or a list of texts")
    refuse_server_paths(texts, settings.max_file_bytes)
    upload_dir = UploadDir() if uploads else None
    try:
        data: Any = body.data
        if upload_dir is not None:
            data = [*texts, *await upload_dir.save(uploads, settings.max_file_bytes)]
        return await _ADD.handler(engine, to_request(_ADD, body, user, data=data))
    finally:
        if upload_dir is not None:
            upload_dir.remove()


@router.post(
    "/cognify",
    response_model=dict[str, RememberResult],
    summary="Build what add() stored",
    openapi_extra=body_spec("cognify"),
    responses={202: {"model": dict[str, RememberResult], "description": "started"}},
)
async def cognify_route(request: Request, user: CurrentUser, engine: EngineDep) -> Response:
    """``cognify()``: one result per dataset, by dataset id. With ``run_in_background`` the
    answer is 202 and each result carries a ``run_id``; poll ``GET /api/v1/runs/{run_id}``."""
    body: Any = await read_body(request, _COGNIFY)
    names, ids = body.datasets, body.dataset_ids
    refs: list[Any] | None = (
        None if names is None and ids is None else [*(names or []), *(ids or [])]
    )
    call = to_request(_COGNIFY, body, user, datasets=refs, chunker=chunker_class(body.chunker))
    results = await _COGNIFY.handler(engine, call)
    registry: RunRegistry = runs_of(request)
    answer: dict[str, RememberResult] = {}
    background = False
    for dataset_id, result in results.items():
        task = result._task
        if task is not None:
            background = True
            run = registry.add("cognify", user.id, task, result, run_id=result.run_id)
            result = result.model_copy(update={"run_id": run.run_id})
        answer[str(dataset_id)] = result
    code = status.HTTP_202_ACCEPTED if background else status.HTTP_200_OK
    return JSONResponse(_RESULTS.dump_python(answer, mode="json"), status_code=code)
