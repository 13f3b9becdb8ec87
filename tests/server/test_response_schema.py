"""Rebuilding validation models from response_schema (remote mode's response_model)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, ValidationError

from engramdb.errors import EngramValidationError
from engramdb.server.response_schema import model_from_schema


class Address(BaseModel):
    city: str
    zip: str | None = None


class Person(BaseModel):
    name: str
    age: int
    height: float | None = None
    tags: list[str] = []
    kind: Literal["human", "robot"] = "human"
    home: Address
    others: list[Address] = []
    extra: dict[str, int] = {}


def test_structure_round_trips() -> None:
    model = model_from_schema(Person.model_json_schema())
    good = {"name": "Ada", "age": 36, "home": {"city": "London"}, "others": [{"city": "Paris"}]}
    assert model.model_validate(good).model_dump() == Person.model_validate(good).model_dump()
    for bad in (
        {"name": "Ada", "home": {"city": "London"}},  # missing required
        {"name": "Ada", "age": "old", "home": {"city": "London"}},  # wrong type
        {"name": "Ada", "age": 3, "kind": "cat", "home": {"city": "London"}},  # not in enum
        {"name": "Ada", "age": 3, "home": {}},  # nested required
    ):
        with pytest.raises(ValidationError):
            model.model_validate(bad)


@pytest.mark.parametrize(
    ("schema", "feature"),
    [
        ({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}, "oneOf"),
        ({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}}, "allOf"),
        ({"type": "object", "properties": {"a": {"not": {"type": "string"}}}}, "not"),
        ({"type": "object", "patternProperties": {"^x": {}}}, "patternProperties"),
        ({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, "list of types"),
        ({"type": "object", "properties": {"a": {"$ref": "https://x/y"}}}, "local references"),
        (
            {
                "$defs": {"N": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}},
                "$ref": "#/$defs/N",
            },
            "recursive",
        ),
        ({"type": "object", "properties": {"__class__": {"type": "string"}}}, "property name"),
        ({"type": "string"}, "root must be an object"),
        ([1, 2], "JSON object"),
    ],
)
def test_unsupported_features_are_refused_by_name(schema: Any, feature: str) -> None:
    with pytest.raises(EngramValidationError, match="response_schema") as info:
        model_from_schema(schema)
    assert feature in str(info.value)
    assert info.value.status_code == 422


def test_size_and_depth_are_bounded() -> None:
    wide = {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(600)}}
    with pytest.raises(EngramValidationError, match="properties in total"):
        model_from_schema(wide)
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(20):
        deep = {"type": "object", "properties": {"x": deep}}
    with pytest.raises(EngramValidationError, match="deeper"):
        model_from_schema(deep)
