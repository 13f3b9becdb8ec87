"""Every verb's options are declared once (its request model); the SDK function, the Engine
method and the served REST body must all say the same thing."""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

import engramdb
from engramdb.models.verb_request import marked
from engramdb.server import create_app
from engramdb.server.verb_routes import GENERIC_VERBS
from engramdb.verbs import BODY_VERBS, VERBS
from engramdb.verbs.spec import Verb

_DOC = create_app().openapi()
_CHECKED_IN = json.loads((Path(__file__).parents[2] / "docs" / "openapi.json").read_text())


@pytest.mark.parametrize("name", sorted(VERBS))
def test_sdk_function_and_engine_method_have_the_request_models_options(name: str) -> None:
    verb = VERBS[name]
    fields = verb.request.model_fields
    public = importlib.import_module(verb.namespace)
    functions = [getattr(public, name)]
    if verb.namespace == "engramdb":
        functions.append(getattr(engramdb.Engine(), name))
    for function in functions:
        params = inspect.signature(function).parameters
        assert list(params) == [
            *verb.request.positional,
            *(f for f in fields if f not in verb.request.positional),
        ]
        for option, info in fields.items():
            default = params[option].default
            if info.is_required():
                assert default is inspect.Parameter.empty, option
            else:
                assert default == info.get_default(call_default_factory=True), option


@pytest.mark.parametrize("name", [*BODY_VERBS, *GENERIC_VERBS])
@pytest.mark.parametrize("document", [_DOC, _CHECKED_IN], ids=["served", "docs/openapi.json"])
def test_rest_body_has_every_option_that_can_cross_http(name: str, document: dict) -> None:
    """The served (and checked-in) schema lists each non-local option with the SDK default;
    local-only options (Python objects, the user) are not in it."""
    verb = VERBS[name]
    properties = _documented_options(verb, document)
    fields = verb.request.model_fields
    for option, info in fields.items():
        if marked(info, "engramdb_local"):
            # a local option crosses only in the form the verb declares for the wire
            assert option not in properties or option in verb.wire_extra, option
            continue
        assert option in properties, option
        in_path = verb.http is not None and option in verb.http.path_fields
        if not (info.is_required() or in_path or option in verb.wire_extra) and option != (
            verb.dataset_field
        ):
            expected = info.get_default(call_default_factory=True)
            assert properties[option].get("default") == getattr(expected, "value", expected), option
    declared = set(verb.wire_extra) | ({"dataset_id"} if verb.dataset_field else set())
    assert set(properties) - set(fields) <= declared, "undeclared wire fields"


def _documented_options(verb: Verb[Any, Any], document: dict[str, Any]) -> dict[str, Any]:
    """What the OpenAPI document says a verb's route takes: path and query parameters and the
    properties of its JSON body, by name."""
    schemas = document["components"]["schemas"]
    http = verb.http
    assert http is not None
    operation = document["paths"][http.path][http.method.lower()]
    found = {p["name"]: p["schema"] for p in operation.get("parameters", [])}
    body = operation.get("requestBody")
    if body is not None:
        ref = body["content"]["application/json"]["schema"]["$ref"]
        found.update(schemas[ref.rsplit("/", 1)[1]].get("properties", {}))
    return found


def test_a_new_option_is_declared_in_one_place() -> None:
    """Adding a field to the request model is all it takes for the SDK, the Engine and the
    REST body to accept it (the handler then uses it)."""
    from pydantic import Field, create_model

    from engramdb.models.requests import ForgetRequest
    from engramdb.verbs.spec import Verb

    extended = create_model(
        "ForgetRequest", __base__=ForgetRequest, dry_run=(bool, Field(default=False, strict=True))
    )
    verb = Verb("forget", extended, VERBS["forget"].handler_path)
    assert "dry_run" in verb.signature.parameters
    assert verb.bind((), {"dry_run": True}).dry_run is True  # type: ignore[attr-defined]
    assert "dry_run" in verb.wire_model.model_json_schema()["properties"]
    with pytest.raises(engramdb.EngramValidationError, match="dry_run"):
        verb.bind((), {"dry_run": "yes"})
