"""REST bodies derived from the verbs' request models, and the engine a request runs on.

A route of a verb reads its JSON body with :func:`read_body` (validated against
:attr:`Verb.wire_model <engramdb.verbs.spec.Verb.wire_model>`, errors say where the body broke),
turns it into the verb's request with :func:`to_request` (the caller as ``user``; a dataset
sent as ``<field>_id`` becomes that field) and runs the verb's handler on :func:`engine_of`.
The OpenAPI document lists the same wire models (:func:`components`), so the served schema and
the SDK signature cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request
from pydantic import BaseModel, ValidationError

from engramdb.errors import EngramValidationError
from engramdb.models.records import User
from engramdb.verbs import VERBS
from engramdb.verbs.spec import Verb

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = [
    "EngineDep",
    "body_spec",
    "components",
    "engine_of",
    "read_body",
    "to_request",
]


def engine_of(request: Request) -> Engine:
    """The engine the app serves: the one given to ``create_app(engine)``, else the default
    engine of the current settings."""
    engine = getattr(request.app.state, "engine", None)
    if engine is not None:
        return engine  # type: ignore[no-any-return]
    from engramdb.engine import get_engine

    return get_engine()


EngineDep = Annotated["Engine", Depends(engine_of)]


def _where(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "body"
    return f"{where}: {first.get('msg', 'invalid value')}"


async def read_body(
    request: Request, verb: Verb[Any, Any], *, path: Mapping[str, str] | None = None
) -> BaseModel:
    """The verb's wire body from the request's JSON, with the options in the ``path``
    (EngramValidationError naming the field)."""
    raw = await request.body()
    if not path:
        return parse_body(verb, raw)
    try:
        values = json.loads(raw) if raw else {}
    except ValueError as exc:
        raise EngramValidationError(f"invalid {verb.name} request: the body is not JSON") from exc
    if not isinstance(values, dict):
        raise EngramValidationError(f"invalid {verb.name} request: the body must be an object")
    return parse_body(verb, json.dumps({**values, **path}))


def parse_body(verb: Verb[Any, Any], raw: bytes | str) -> BaseModel:
    try:
        return verb.wire_model.model_validate_json(raw)
    except ValidationError as exc:
        raise EngramValidationError(f"invalid {verb.name} request: {_where(exc)}") from exc


def to_request(verb: Verb[Any, Any], body: BaseModel, user: User, **local: Any) -> Any:
    """The verb's request for a wire body, run as ``user`` (``local`` sets local-only options
    the route built, e.g. a response model from ``response_schema``)."""
    values = {
        name: getattr(body, name)
        for name in verb.request.model_fields
        if name in type(body).model_fields
    }
    field = verb.dataset_field
    dataset_id = getattr(body, "dataset_id", None)
    if field is not None and dataset_id is not None:
        if field in body.model_fields_set:
            raise EngramValidationError(f"pass {field} (a name) or dataset_id, not both")
        values[field] = dataset_id
    values.update(local)
    values["user"] = user
    return verb.build(values)


def body_spec(name: str) -> dict[str, Any]:
    """``openapi_extra`` of a hand-written route whose JSON body is verb ``name``'s body model
    (and whose path carries the options its route names)."""
    verb = VERBS[name]
    ref = {"$ref": f"#/components/schemas/{verb.body_model.__name__}"}
    spec: dict[str, Any] = {
        "requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}
    }
    in_path = verb.http.path_fields if verb.http is not None else ()
    if in_path:
        properties = verb.wire_model.model_json_schema()["properties"]
        spec["parameters"] = [
            {"name": n, "in": "path", "required": True, "schema": properties[n]} for n in in_path
        ]
    return spec


def components() -> dict[str, Any]:
    """The JSON schemas every verb route refers to, for the OpenAPI components: the body model
    of each route with a JSON body, and the types its query and path parameters use."""
    ref = "#/components/schemas/{model}"
    found: dict[str, Any] = {}
    for verb in VERBS.values():
        if verb.http is None:
            continue
        found.update(verb.wire_model.model_json_schema(ref_template=ref).pop("$defs", {}))
        if verb.http.has_body:
            schema = verb.body_model.model_json_schema(ref_template=ref)
            found.update(schema.pop("$defs", {}))
            found[verb.body_model.__name__] = schema
    return found
