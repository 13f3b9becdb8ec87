"""The contextual fields of a log line: which verb, dataset and run the code is working for.

They live in context variables, so they follow the call into awaited code and into the
background tasks it starts (a task copies the context it was created in).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any

__all__ = ["FIELDS", "current_fields", "log_context"]

#: The contextual fields, in the order a JSON log line shows them.
FIELDS: tuple[str, ...] = ("verb", "dataset_id", "run_id", "stage")

_VARS: dict[str, ContextVar[str | None]] = {
    name: ContextVar(f"engramdb_log_{name}", default=None) for name in FIELDS
}


@contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Set some of :data:`FIELDS` (None values are left as they are) for the block."""
    tokens: list[tuple[ContextVar[str | None], Token[str | None]]] = []
    for name, value in fields.items():
        if value is not None:
            var = _VARS[name]
            tokens.append((var, var.set(str(value))))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def current_fields() -> dict[str, str]:
    """The fields set in the running context."""
    found: dict[str, str] = {}
    for name, var in _VARS.items():
        value = var.get()
        if value is not None:
            found[name] = value
    return found
