"""Chat answers that fit whatever the client asked for, drawn from the words of the request.

:func:`answer_chat` is a default handler for :class:`~tests.support.openai_server.OpenAIServer`'s
``chat/completions`` route (``server.set_default("chat/completions", answer_chat)``) that lets a
whole program run against the server without scripting each call:

* a request with ``response_format`` ``json_schema`` gets a JSON document valid for that schema;
* a request with ``tools`` (instructor's tool mode, function calling) gets a tool call whose
  arguments are valid for the first tool's parameters;
* a request with ``response_format`` ``json_object`` gets JSON valid for the schema written into
  one of its messages (JSON mode), else ``{"answer": ...}``;
* a plain request whose last user message asks for JSON with named keys ("Return only JSON
  with keys: a, b, c", or the keys listed one per line as "- a") gets that JSON object, as a
  model following the instruction would (:func:`json_for_keys`);
* any other request gets plain text: the first sentences of the last user message's context,
  so an answer printed by a program shows words of its own data.

Strings are filled with capitalised words of the request's last user message (entity-like names),
so extracted nodes carry names from the program's data; ``uuid`` strings are distinct per field
(and the same for the same request), so DataPoint ids do not collide. Nothing here is clever:
it makes a client that needs an LLM runnable offline, not correct.
"""

from __future__ import annotations

import itertools
import json
import re
import uuid
from typing import Any

from tests.support.openai_server import RecordedRequest, Reply

__all__ = ["answer_chat", "asked_json_keys", "fill_schema", "json_for_keys", "plain_answer"]

_WORD = re.compile(r"\b[A-Z][a-zA-Z]{2,}\b")
#: "JSON with keys: a, b" (the keys on the line) or "JSON with these keys:" then "- a" lines.
_JSON_KEYS = re.compile(r"\bJSON\b[^\n]*?\bkeys\s*:[ \t]*([^\n]*)", re.IGNORECASE)
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LISTED_KEY = re.compile(r"^\s*[-*]\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")
#: Names joined by hyphens ("pr-comment-evaluator"): how texts name skills, tools, files.
_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b")
_NUMBER_KEY = re.compile(r"score|confidence|probability|rating|weight")
_NAME_KEY = re.compile(r"name|_id$|^id$|skill|target|_to_")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_MAX_DEPTH = 6
#: String fields answered with sentences of the request rather than a name.
_PROSE = frozenset({"answer", "summary", "description", "text", "content", "reasoning"})
_PLAIN_WORDS = 60


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def plain_answer(text: str) -> str:
    """The first sentences (up to ~60 words) of ``text`` after a "context" marker, else of it."""
    lowered = text.lower()
    start = lowered.rfind("context")
    body = text[start + len("context") :] if start >= 0 else text
    body = body.lstrip(" :\n\t-")
    words: list[str] = []
    for sentence in _SENTENCE.split(body.strip()):
        words.extend(sentence.split())
        if len(words) >= _PLAIN_WORDS:
            break
    return " ".join(words[:_PLAIN_WORDS]) or "No answer."


class _Filler:
    def __init__(self, schema: dict[str, Any], text: str) -> None:
        self.root = schema
        names = list(dict.fromkeys(_WORD.findall(text))) or ["Alpha", "Beta", "Gamma"]
        self.names = itertools.cycle(names)
        self.text = text
        self.uuids = 0

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            target: Any = self.root
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def value(self, node: dict[str, Any], depth: int, name: str = "") -> Any:
        node = self.resolve(node)
        for key in ("anyOf", "oneOf"):
            if key in node:
                options = [self.resolve(o) for o in node[key]]
                usable = [o for o in options if o.get("type") != "null"] or options
                return self.value(usable[0], depth, name)
        if "allOf" in node:
            merged: dict[str, Any] = {}
            for part in node["allOf"]:
                merged.update(self.resolve(part))
            return self.value(merged, depth, name)
        if "const" in node:
            return node["const"]
        if "enum" in node:
            return node["enum"][0]
        kind = node.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or "properties" in node:
            return {
                key: self.value(sub, depth + 1, key)
                for key, sub in (node.get("properties") or {}).items()
            }
        if kind == "array":
            if depth >= _MAX_DEPTH:
                return []
            count = max(int(node.get("minItems", 0)), 2)
            return [self.value(node.get("items") or {}, depth + 1, name) for _ in range(count)]
        if kind == "integer":
            return int(node.get("minimum", 1))
        if kind == "number":
            low, high = node.get("minimum", 0.0), node.get("maximum", 1.0)
            return (float(low) + float(high)) / 2
        if kind == "boolean":
            return False
        if kind == "null":
            return None
        fmt = node.get("format")
        if fmt == "date-time":
            return "2024-01-01T00:00:00Z"
        if fmt == "date":
            return "2024-01-01"
        if fmt == "uuid":  # distinct per field and request, the same for the same request
            self.uuids += 1
            return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.uuids}\x1f{self.text}"))
        if name.lower() in _PROSE or name.lower().rsplit("_", 1)[-1] in {"procedure", "rationale"}:
            return plain_answer(self.text)
        return next(self.names)


def asked_json_keys(text: str) -> list[str]:
    """The keys of the JSON object ``text`` asks for (the last such request in it), or []."""
    keys: list[str] = []
    for match in _JSON_KEYS.finditer(text):
        following = text[match.end() :].lstrip("\n").splitlines()
        found = _key_list(match.group(1)) or _key_list(following[0] if following else "")
        if not found:  # the keys follow, one per line
            for line in following:
                listed = _LISTED_KEY.match(line)
                if listed is None:
                    break
                found.append(listed.group(1))
        keys = found or keys
    return keys


def _key_list(line: str) -> list[str]:
    """The keys of "a, b, c." (every item must look like a key), or []."""
    items = [k.strip(" .`'\"") for k in line.split(",")]
    return items if items and all(_KEY.match(k) for k in items) else []


def json_for_keys(keys: list[str], text: str) -> dict[str, Any]:
    """A JSON object with ``keys``, valued from ``text``: a number (0.5) for a score-like key,
    the name joined by hyphens that ``text`` mentions most for a key naming a thing (a skill, a
    target), else the first sentences of ``text`` (:func:`plain_answer`)."""
    named = _IDENTIFIER.findall(text)
    most = max(dict.fromkeys(named), key=named.count) if named else None
    names = _Filler({}, text).names
    value: dict[str, Any] = {}
    for key in keys:
        lowered = key.lower()
        if _NUMBER_KEY.search(lowered):
            value[key] = 0.5
        elif _NAME_KEY.search(lowered):
            value[key] = most or next(names)
        else:
            value[key] = plain_answer(text)
    return value


def fill_schema(schema: dict[str, Any], text: str) -> Any:
    """A JSON value valid for ``schema`` (a JSON Schema as pydantic writes them), strings drawn
    from ``text``."""
    return _Filler(schema, text).value(schema, 0)


def _schema_in_messages(body: dict[str, Any]) -> dict[str, Any] | None:
    """A JSON schema written into a message (JSON mode: the client puts the schema in the
    prompt), or None."""
    decoder = json.JSONDecoder()
    for message in body.get("messages") or []:
        content = message.get("content")
        if not isinstance(content, str):
            continue
        start = content.find("{")
        while start >= 0:
            try:
                value, _ = decoder.raw_decode(content, start)
            except ValueError:
                value = None
            if isinstance(value, dict) and ("properties" in value or "$defs" in value):
                return value
            start = content.find("{", start + 1)
    return None


def answer_chat(request: RecordedRequest) -> Reply:
    """The default chat answer described in the module docstring."""
    body = request.json or {}
    text = _last_user_text(body)
    model = str(body.get("model") or "schema-answers")
    message: dict[str, Any] = {"role": "assistant"}
    response_format = body.get("response_format") or {}
    tools = body.get("tools") or []
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema") or {}
        message["content"] = json.dumps(fill_schema(schema, text))
    elif tools:
        function = tools[0].get("function") or {}
        arguments = fill_schema(function.get("parameters") or {}, text)
        message["content"] = None
        message["tool_calls"] = [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": function.get("name", "answer"),
                    "arguments": json.dumps(arguments),
                },
            }
        ]
    elif response_format.get("type") == "json_object":
        embedded = _schema_in_messages(body)
        value = fill_schema(embedded, text) if embedded else {"answer": plain_answer(text)}
        message["content"] = json.dumps(value)
    elif keys := asked_json_keys(text):
        message["content"] = json.dumps(json_for_keys(keys, text))
    else:
        message["content"] = plain_answer(text)
    finish = "tool_calls" if tools and not response_format else "stop"
    if body.get("stream"):
        delta = {k: v for k, v in message.items() if v is not None}
        chunk = {"id": "chatcmpl-schema", "object": "chat.completion.chunk", "created": 0}
        return Reply.sse(
            [
                {
                    **chunk,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
            ]
        )
    return Reply.json(
        {
            "id": "chatcmpl-schema",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": len(text.split()),
                "completion_tokens": 1,
                "total_tokens": 1,
            },
        }
    )
