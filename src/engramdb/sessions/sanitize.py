"""Turning an agent's call parameters and return values into bounded, JSON-safe trace data.

Agent code hands trace recording arbitrary Python objects. They are stored as JSON, so every
value is converted here: JSON scalars pass (non-finite floats become strings), containers are
walked to a bounded depth and size, pydantic models and dataclass-like objects are dumped, long
strings are cut, and anything else becomes its (cut) ``repr``. Values under keys that name
credentials (``api_key``, ``password``, ``token``, ...) are replaced by ``"[redacted]"``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from uuid import UUID

from pydantic import BaseModel

__all__ = ["MAX_ITEMS", "MAX_TEXT", "sanitize_value", "truncate"]

MAX_TEXT = 4_000
MAX_ITEMS = 100
MAX_DEPTH = 6
_SECRET_KEY = re.compile(r"(?i)(api[_-]?key|password|passwd|secret|token|authorization|credential)")


def truncate(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def sanitize_value(value: Any, _depth: int = 0) -> Any:
    """A JSON-safe, bounded copy of ``value`` (see the module docstring)."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return truncate(value)
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if _depth >= MAX_DEPTH:
        return truncate(repr(value), 200)
    if isinstance(value, BaseModel):
        return sanitize_value(value.model_dump(mode="json"), _depth + 1)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if index >= MAX_ITEMS:
                out["…"] = f"{len(value) - MAX_ITEMS} more"
                break
            name = truncate(str(key), 200)
            out[name] = (
                "[redacted]" if _SECRET_KEY.search(name) else sanitize_value(item, _depth + 1)
            )
        return out
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        cleaned = [sanitize_value(item, _depth + 1) for item in items[:MAX_ITEMS]]
        if len(items) > MAX_ITEMS:
            cleaned.append(f"… {len(items) - MAX_ITEMS} more")
        return cleaned
    return truncate(repr(value), 500)
