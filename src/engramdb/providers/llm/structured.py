"""Structured output without server support: the schema in the prompt, lenient JSON parsing of
the answer, and the repair request.

Pure functions, kept apart from the HTTP client so they are easy to read and test: how an answer
is turned into a validated model must not depend on which server produced it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from engramdb.providers.llm.base import ChatMessage, T

__all__ = ["repair_prompt", "schema_name", "validate_answer", "with_schema_instruction"]

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)
_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]")


def validate_answer(text: str, schema: type[T]) -> tuple[T | None, str]:
    """``schema`` parsed from the model's text, tolerating code fences, <think> blocks and prose
    around the JSON object; or None and what was wrong with it."""
    stripped = _THINK.sub("", text).strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    if not stripped:
        return None, "the answer was empty"
    candidates = [stripped]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end and (start, end) != (0, len(stripped) - 1):
        candidates.append(stripped[start : end + 1])
    problem = ""
    for candidate in candidates:
        try:
            return schema.model_validate_json(candidate), ""
        except ValidationError as exc:
            if not problem:
                problem = _summarise(exc)
    return None, problem


def _summarise(exc: ValidationError, limit: int = 5) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors]
    text = "; ".join(parts[:limit])
    if len(parts) > limit:
        text += f" (and {len(parts) - limit} more errors)"
    return text


def repair_prompt(problem: str, finish_reason: str | None) -> str:
    """The follow-up that asks for a corrected answer. It names the concrete validation error,
    because models fix a named mistake far more reliably than a generic "invalid JSON"."""
    prompt = (
        f"Your previous answer could not be used: {problem}. Reply again with ONLY the corrected "
        "JSON object that follows the required schema: no explanation, no code fences."
    )
    if finish_reason == "length":
        prompt += " Your answer was cut off at the length limit; keep it shorter."
    return prompt


def with_schema_instruction(
    messages: list[ChatMessage], json_schema: dict[str, Any]
) -> list[ChatMessage]:
    """``messages`` with the JSON Schema spelled out in the (first) system message.

    Merged rather than appended as a second system message: several local chat templates accept
    a system message only at the start.
    """
    instruction = (
        "Answer with one JSON object, and nothing else, that validates against this JSON "
        f"Schema:\n{json.dumps(json_schema, ensure_ascii=False, separators=(',', ':'))}"
    )
    if messages and messages[0]["role"] == "system":
        first: ChatMessage = {
            "role": "system",
            "content": f"{messages[0]['content']}\n\n{instruction}",
        }
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def schema_name(name: str) -> str:
    """OpenAI requires ``^[a-zA-Z0-9_-]{1,64}$`` for json_schema names."""
    return (_SCHEMA_NAME.sub("_", name) or "answer")[:64]
