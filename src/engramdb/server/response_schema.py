"""Rebuild a validation model from a ``response_schema`` (remote mode's ``response_model``).

A Python class cannot cross HTTP, so the SDK sends ``response_model.model_json_schema()`` and
the server rebuilds an equivalent pydantic model here. Only structure travels: field names,
types, required-ness, nesting, lists, string enums, descriptions and defaults. Constraints and
custom validators do not (validate again on the client when you need them).

Supported: ``type`` object / string / integer / number / boolean / array / null, ``properties``,
``required``, ``items``, ``enum`` (of strings, numbers or booleans), ``const``, ``anyOf`` (a
union, e.g. ``Optional``), ``$ref`` into ``$defs`` (non-recursive), ``additionalProperties``
(a schema or a boolean), ``title``, ``description``, ``default``, and the value constraints
(``minimum``, ``maxLength``, ``format``, ...) which are accepted and ignored. Anything else
(``oneOf``, ``allOf``, ``not``, ``if``/``then``/``else``, ``patternProperties``, recursive or
external ``$ref``, type lists) is refused with :class:`EngramValidationError` (422) naming the
feature, as is a schema with more than ``MAX_FIELDS`` properties in total or nested deeper than
``MAX_DEPTH``.
"""

from __future__ import annotations

import keyword
import re
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from engramdb.errors import EngramValidationError

__all__ = ["MAX_DEPTH", "MAX_FIELDS", "model_from_schema"]

MAX_DEPTH = 12
MAX_FIELDS = 500

_IGNORED = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$schema",
        "$id",
        "$comment",
        "discriminator",
        "contentEncoding",
        "contentMediaType",
    }
)
_KNOWN = _IGNORED | {
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "additionalProperties",
}
_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


def _refuse(where: str, what: str) -> EngramValidationError:
    return EngramValidationError(
        f"response_schema is not supported at {where or '<root>'}: {what}. Supported: object, "
        "string, integer, number, boolean, array, null, enum, anyOf, $ref into $defs; use a "
        "simpler response_model"
    )


class _Builder:
    def __init__(self, root: dict[str, Any]) -> None:
        defs = root.get("$defs", root.get("definitions", {}))
        if not isinstance(defs, dict):
            raise _refuse("$defs", "$defs must be an object")
        self.defs: dict[str, Any] = defs
        self.models: dict[str, type[BaseModel]] = {}
        self.resolving: set[str] = set()
        self.fields = 0

    def type_for(self, schema: object, where: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise _refuse(where, f"nesting deeper than {MAX_DEPTH} levels")
        if schema is True or schema == {}:
            return Any
        if not isinstance(schema, dict):
            raise _refuse(where, "a schema must be an object")
        unknown = sorted(set(schema) - _KNOWN)
        if unknown:
            raise _refuse(where, f"keyword(s) {', '.join(map(repr, unknown))}")
        if "$ref" in schema:
            return self._ref(schema["$ref"], where, depth)
        if "anyOf" in schema:
            options = schema["anyOf"]
            if not isinstance(options, list) or not options:
                raise _refuse(where, "anyOf must be a non-empty list")
            types = tuple(
                self.type_for(o, f"{where}.anyOf[{i}]", depth + 1) for i, o in enumerate(options)
            )
            return types[0] if len(types) == 1 else Union[types]  # noqa: UP007 - built at runtime
        if "const" in schema:
            return self._literal([schema["const"]], where)
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                raise _refuse(where, "enum must be a non-empty list")
            return self._literal(values, where)
        kind = schema.get("type")
        if isinstance(kind, list):
            raise _refuse(where, "a list of types (use anyOf)")
        if kind is None:
            return Any if "properties" not in schema else self._object(schema, where, depth)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "null":
            return type(None)
        if kind == "array":
            items = schema.get("items", {})
            return list[self.type_for(items, f"{where}[]", depth + 1)]  # type: ignore[misc]
        if kind == "object":
            return self._object(schema, where, depth)
        raise _refuse(where, f"type {kind!r}")

    def _literal(self, values: list[Any], where: str) -> Any:
        if not all(isinstance(v, str | int | float | bool) or v is None for v in values):
            raise _refuse(where, "enum values must be strings, numbers, booleans or null")
        return Literal[tuple(values)]

    def _ref(self, ref: object, where: str, depth: int) -> Any:
        if not isinstance(ref, str) or not ref.startswith(("#/$defs/", "#/definitions/")):
            raise _refuse(where, f"$ref {ref!r} (only local references into $defs)")
        name = ref.rsplit("/", 1)[1]
        if name in self.models:
            return self.models[name]
        if name in self.resolving:
            raise _refuse(where, f"recursive $ref {ref!r}")
        target = self.defs.get(name)
        if target is None:
            raise _refuse(where, f"$ref {ref!r} names no definition")
        self.resolving.add(name)
        try:
            built = self.type_for(target, f"$defs.{name}", depth + 1)
        finally:
            self.resolving.discard(name)
        if isinstance(built, type) and issubclass(built, BaseModel):
            self.models[name] = built
        return built

    def _object(self, schema: dict[str, Any], where: str, depth: int) -> Any:
        props = schema.get("properties")
        extra = schema.get("additionalProperties", True)
        if props is None:
            value = Any if extra in (True, None) or extra == {} else extra
            if value is False:
                return dict[str, Any]
            inner = value if value is Any else self.type_for(value, f"{where}{{}}", depth + 1)
            return dict[str, inner]  # type: ignore[valid-type]
        if not isinstance(props, dict):
            raise _refuse(where, "properties must be an object")
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise _refuse(where, "required must be a list of names")
        self.fields += len(props)
        if self.fields > MAX_FIELDS:
            raise _refuse(where, f"more than {MAX_FIELDS} properties in total")
        definitions: dict[str, Any] = {}
        for name, sub in props.items():
            if not isinstance(name, str) or not _NAME_RE.match(name) or keyword.iskeyword(name):
                raise _refuse(where, f"property name {str(name)[:40]!r}")
            if name.startswith("_") or name in BaseModel.__dict__ or name == "model_config":
                raise _refuse(where, f"property name {name!r} (reserved)")
            annotation = self.type_for(sub, f"{where}.{name}", depth + 1)
            description = sub.get("description") if isinstance(sub, dict) else None
            if name in required:
                default: Any = ...
            elif isinstance(sub, dict) and "default" in sub:
                default = sub["default"]
            else:
                annotation, default = Optional[annotation], None  # noqa: UP045 - runtime value
            definitions[name] = (annotation, Field(default, description=description))
        title = schema.get("title")
        model_name = title if isinstance(title, str) and _NAME_RE.match(title) else "Response"
        config = ConfigDict(extra="forbid") if extra is False else ConfigDict(extra="ignore")
        return create_model(model_name, __config__=config, **definitions)


def model_from_schema(schema: object) -> type[BaseModel]:
    """A pydantic model validating what ``schema`` describes (the root must be an object)."""
    if not isinstance(schema, dict):
        raise _refuse("", "response_schema must be a JSON object")
    built = _Builder(schema).type_for(
        {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}, "", 0
    )
    if not (isinstance(built, type) and issubclass(built, BaseModel)):
        raise _refuse("", "the root must be an object schema with properties")
    return built
