"""The multipart forms of the routes that take files (``POST /remember``, ``POST /add``).

A form carries the files (``files``), texts (``texts``, the body's ``data``) and every other
field of the verb's JSON body, each as text; both the OpenAPI schema of the form and its parsing
are derived from the verb's wire model, so a new option of the verb is a form field at once.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from starlette.datastructures import UploadFile

from engramdb.errors import EngramValidationError
from engramdb.server.bodies import parse_body, read_body
from engramdb.verbs.spec import Verb

__all__ = ["MAX_FILES", "UploadForm"]

MAX_FILES = 100


def _json_types(prop: dict[str, Any]) -> set[str]:
    """The JSON types a field's schema admits (``null`` left out)."""
    options = prop.get("anyOf", [prop])
    return {o["type"] for o in options if o.get("type") not in (None, "null")}


class UploadForm:
    """The form of one verb's upload route: :attr:`schema` for OpenAPI, :meth:`read` to parse."""

    def __init__(self, verb: Verb[Any, Any], title: str, what: str) -> None:
        self.verb, self.what = verb, what
        properties = verb.wire_model.model_json_schema()["properties"]
        #: The body fields a form carries besides its files (all but ``data``).
        self.fields = {name: prop for name, prop in properties.items() if name != "data"}
        self.schema: dict[str, Any] = {
            "title": title,
            "type": "object",
            "required": ["files"],
            "properties": {
                "files": {
                    "type": "array",
                    "items": {"type": "string", "format": "binary"},
                    "description": (
                        f"Files to {what} (.txt, .md, .csv, .json, .jsonl, .html, .pdf)."
                    ),
                },
                "texts": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": f"Texts to {what} along with the files.",
                },
                **{
                    name: (
                        {"type": "string", "description": "A JSON object, as text."}
                        if "object" in _json_types(prop)
                        else prop
                    )
                    for name, prop in self.fields.items()
                },
            },
        }

    async def body(self, request: Request) -> tuple[Any, list[UploadFile]]:
        """The request's body and its uploads: a JSON body (texts only) or this form."""
        kind = request.headers.get("content-type", "").lower()
        if kind.startswith("multipart/form-data"):
            return await self.read(request)
        if kind.startswith("application/json"):
            return await read_body(request, self.verb), []
        raise EngramValidationError(
            f"send {self.verb.name} as application/json (texts) or multipart/form-data (files)"
        )

    async def read(self, request: Request) -> tuple[Any, list[UploadFile]]:
        """The form as the verb's body (``data`` holds its texts) and its files."""
        try:
            form = await request.form(max_files=MAX_FILES, max_fields=200)
        except Exception as exc:  # malformed multipart: the parser's many errors mean "bad input"
            raise EngramValidationError(f"the multipart body could not be parsed: {exc}") from exc
        unknown = set(form.keys()) - set(self.schema["properties"])
        if unknown:
            raise EngramValidationError(f"unknown form field(s): {', '.join(sorted(unknown))}")
        uploads = [f for f in form.getlist("files") if isinstance(f, UploadFile)]
        if not uploads:
            raise EngramValidationError(
                f"a multipart {self.verb.name} needs at least one 'files' part"
            )
        body: dict[str, Any] = {"data": [t for t in form.getlist("texts") if isinstance(t, str)]}
        for name in self.fields:
            if name in form:
                body[name] = self._value(name, form)
        return parse_body(self.verb, json.dumps(body)), uploads

    def _value(self, name: str, form: Any) -> Any:
        """One form field as the JSON value of the body field ``name`` (by its declared type)."""
        types = _json_types(self.fields[name])
        if "array" in types:
            return [v for v in form.getlist(name) if isinstance(v, str)]
        text = form.get(name)
        if not isinstance(text, str):
            raise EngramValidationError(f"form field {name!r} must be text")
        try:
            if "object" in types:
                value = json.loads(text)
                if not isinstance(value, dict):
                    raise ValueError
                return value
            if "boolean" in types:
                return {"true": True, "1": True, "false": False, "0": False}[text.strip().lower()]
            if "integer" in types:
                return int(text)
            if "number" in types:
                return float(text)
        except (ValueError, KeyError) as exc:
            kind = next(iter(sorted(types)), "text")
            raise EngramValidationError(f"form field {name!r} must be a {kind}: {text!r}") from exc
        return text
