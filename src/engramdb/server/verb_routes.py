"""The REST routes of the verbs, derived from the verb table.

For each verb with an :class:`~engramdb.verbs.spec.Http` route that is not written by hand, one
route: options named in the path come from it, the others from the JSON body (POST) or the query
string (GET, DELETE); the whole is validated against the verb's wire model (errors name the
option), turned into its request as the caller, and run on the served engine. The OpenAPI
document describes each route from the same wire model.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import QueryParams

from engramdb.errors import EngramValidationError, NotFoundError
from engramdb.server.auth import CurrentUser
from engramdb.server.bodies import EngineDep, to_request
from engramdb.verbs import VERBS
from engramdb.verbs.spec import API_PREFIX, Verb

__all__ = ["GENERIC_VERBS", "add_verb_routes"]

#: Verbs whose route is derived here (the rest are written by hand or do not cross HTTP).
GENERIC_VERBS = tuple(name for name, v in VERBS.items() if v.http is not None and not v.http.custom)


def add_verb_routes(router: APIRouter) -> None:
    """Register the derived route of every verb in :data:`GENERIC_VERBS` on ``router``."""
    for name in GENERIC_VERBS:
        verb = VERBS[name]
        http = verb.http
        assert http is not None
        empty = http.status == 204
        router.add_api_route(
            http.path.removeprefix(API_PREFIX),
            _endpoint(verb),
            methods=[http.method],
            response_model=None if empty else verb.result,
            status_code=http.status,
            response_class=Response if empty else _default_response(),
            tags=list(http.tags),
            summary=(verb.request.__doc__ or "").split(":", 1)[0].strip("`") or None,
            description=verb.request.__doc__,
            openapi_extra=_openapi(verb),
            name=f"{verb.name}_route",
        )


def _default_response() -> Any:
    from fastapi.responses import JSONResponse

    return JSONResponse


def _endpoint(verb: Verb[Any, Any]) -> Callable[..., Awaitable[Any]]:
    http = verb.http
    assert http is not None

    async def endpoint(request: Request, user: CurrentUser, engine: EngineDep) -> Any:
        values = await _body(verb, request) if http.has_body else _query(verb, request.query_params)
        for name in http.path_fields:
            values[name] = _scalar(verb, name, request.path_params[name])
        try:
            wire = verb.wire_model.model_validate(values)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "request"
            message = "unknown option" if first.get("type") == "extra_forbidden" else first["msg"]
            raise EngramValidationError(f"invalid {verb.name} request: {where}: {message}") from exc
        result = await verb.handler(engine, to_request(verb, wire, user))
        if result is None and http.none_on_404:
            raise NotFoundError(f"no readable {verb.name.removeprefix('get_')} (or none exists)")
        if http.status == 204:
            return Response(status_code=204)
        return result

    endpoint.__name__ = f"{verb.name}_route"
    endpoint.__doc__ = verb.request.__doc__
    return endpoint


async def _body(verb: Verb[Any, Any], request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw:
        return {}
    try:
        values = json.loads(raw)
    except ValueError as exc:
        raise EngramValidationError(
            f"invalid {verb.name} request: the body is not JSON ({exc})"
        ) from exc
    if not isinstance(values, dict):
        raise EngramValidationError(f"invalid {verb.name} request: the body must be an object")
    return values


def _query(verb: Verb[Any, Any], params: QueryParams) -> dict[str, Any]:
    fields = verb.wire_model.model_fields
    unknown = sorted(set(params) - set(fields))
    if unknown:
        raise EngramValidationError(
            f"invalid {verb.name} request: unknown query parameter(s) {', '.join(unknown)}"
        )
    values: dict[str, Any] = {}
    for name in params:
        if _is_list(fields[name].annotation):
            values[name] = params.getlist(name)
        else:
            values[name] = _scalar(verb, name, params[name])
    return values


def _scalar(verb: Verb[Any, Any], name: str, text: str) -> Any:
    """A query or path value as its option's type (``"5"`` -> 5 for an integer option)."""
    info = verb.wire_model.model_fields.get(name)
    if info is None or info.annotation is None or info.annotation in (str, str | None):
        return text
    try:
        return TypeAdapter(info.annotation).validate_strings(text)
    except ValidationError:
        return text  # the wire model names the option and what is wrong with it


def _is_list(annotation: Any) -> bool:
    if typing.get_origin(annotation) is list:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_is_list(arg) for arg in typing.get_args(annotation))
    return False


def _openapi(verb: Verb[Any, Any]) -> dict[str, Any]:
    """Parameters and body of a derived route, from the verb's wire model."""
    http = verb.http
    assert http is not None
    schema = verb.wire_model.model_json_schema(ref_template="#/components/schemas/{model}")
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": properties[name]}
        for name in http.path_fields
    ]
    extra: dict[str, Any] = {}
    if http.has_body:
        ref = {"$ref": f"#/components/schemas/{verb.body_model.__name__}"}
        extra["requestBody"] = {
            "required": bool(required - set(http.path_fields)),
            "content": {"application/json": {"schema": ref}},
        }
    else:
        for name, prop in properties.items():
            if name in http.path_fields:
                continue
            parameters.append(
                {"name": name, "in": "query", "required": name in required, "schema": prop}
            )
    if parameters:
        extra["parameters"] = parameters
    return extra
