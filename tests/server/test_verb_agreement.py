"""Every verb's options are declared once (its request model); the SDK function, the Engine
method and the served REST body must all say the same thing."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import engramdb
from engramdb.models.verb_request import marked
from engramdb.server import create_app
from engramdb.verbs import BODY_VERBS, VERBS

_DOC = create_app().openapi()
_CHECKED_IN = json.loads((Path(__file__).parents[2] / "docs" / "openapi.json").read_text())


@pytest.mark.parametrize("name", sorted(VERBS))
def test_sdk_function_and_engine_method_have_the_request_models_options(name: str) -> None:
    verb = VERBS[name]
    fields = verb.request.model_fields
    for function in (getattr(engramdb, name), getattr(engramdb.Engine(), name)):
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


@pytest.mark.parametrize("name", BODY_VERBS)
@pytest.mark.parametrize("document", [_DOC, _CHECKED_IN], ids=["served", "docs/openapi.json"])
def test_rest_body_has_every_option_that_can_cross_http(name: str, document: dict) -> None:
    """The served (and checked-in) schema lists each non-local option with the SDK default;
    local-only options (Python objects, the user) are not in it."""
    verb = VERBS[name]
    schema = document["components"]["schemas"][verb.wire_model.__name__]
    properties = schema["properties"]
    fields = verb.request.model_fields
    for option, info in fields.items():
        if marked(info, "engramdb_local"):
            # a local option crosses only in the form the verb declares for the wire
            assert option not in properties or option in verb.wire_extra, option
            continue
        assert option in properties, option
        if not info.is_required() and option not in verb.wire_extra:
            expected = info.get_default(call_default_factory=True)
            assert properties[option].get("default") == getattr(expected, "value", expected), option
    assert set(properties) - set(fields) <= set(verb.wire_extra), "undeclared wire fields"


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
