"""Input checks shared by the verbs, the CLI and the server. Each raises EngramValidationError
with a message that names the fix, before anything is written."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from engramdb.errors import EngramValidationError

__all__ = [
    "MAX_DATASET_NAME",
    "validate_dataset_name",
    "validate_external_metadata",
    "validate_importance_weight",
    "validate_node_set",
    "validate_top_k",
    "validate_uuid",
]

MAX_DATASET_NAME = 128
_NAME_RE = re.compile(r"^[\w][\w .\-]*$")
MAX_TOP_K = 10_000


def validate_importance_weight(value: object) -> float:
    """A float in [0, 1]; bools, strings, NaN and infinities are refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngramValidationError(
            f"importance_weight must be a number between 0.0 and 1.0, got {type(value).__name__} "
            f"{value!r}; pass e.g. importance_weight=0.7"
        )
    weight = float(value)
    if math.isnan(weight) or math.isinf(weight) or not 0.0 <= weight <= 1.0:
        raise EngramValidationError(
            f"importance_weight must be between 0.0 and 1.0 (0.5 is neutral), got {value!r}"
        )
    return weight


def validate_dataset_name(name: object) -> str:
    if not isinstance(name, str):
        raise EngramValidationError(
            f"dataset name must be a string, got {type(name).__name__}; to address a dataset by "
            "id pass a UUID where the call accepts one"
        )
    if not name or not name.strip():
        raise EngramValidationError("dataset name must not be empty; e.g. dataset_name='notes'")
    if len(name) > MAX_DATASET_NAME:
        raise EngramValidationError(
            f"dataset name is {len(name)} characters long; use at most {MAX_DATASET_NAME}"
        )
    if name != name.strip() or not _NAME_RE.match(name):
        raise EngramValidationError(
            f"dataset name {name[:60]!r} is malformed: use letters, digits, '_', '-', '.' and "
            "inner spaces, starting with a letter, digit or '_'"
        )
    return name


def validate_external_metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise EngramValidationError(
            "external_metadata must be a dict with string keys, e.g. "
            "{'effective_date': '2024-05-01'}"
        )
    try:
        encoded = json.dumps(dict(value), allow_nan=False, default=_reject)
    except (TypeError, ValueError) as exc:
        raise EngramValidationError(
            f"external_metadata must be JSON-serialisable (strings, numbers, booleans, lists, "
            f"dicts): {exc}"
        ) from exc
    if len(encoded) > 64 * 1024:
        raise EngramValidationError("external_metadata is larger than 64 kB; store less per item")
    result: dict[str, Any] = json.loads(encoded)
    return result


def _reject(obj: object) -> None:
    raise TypeError(f"value of type {type(obj).__name__} is not JSON-serialisable")


def validate_node_set(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or not all(isinstance(v, str) and v for v in value):
        raise EngramValidationError(
            "node_set must be a list of non-empty strings, e.g. node_set=['policies']"
        )
    return list(dict.fromkeys(value))


def validate_top_k(value: object, name: str = "top_k") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngramValidationError(f"{name} must be an integer, got {type(value).__name__}")
    if value <= 0 or value > MAX_TOP_K:
        raise EngramValidationError(f"{name} must be between 1 and {MAX_TOP_K}, got {value}")
    return value


def validate_uuid(value: object, what: str) -> UUID:
    if isinstance(value, UUID):
        return value
    if isinstance(value, str):
        try:
            return UUID(value)
        except ValueError:
            pass
    raise EngramValidationError(f"{what} must be a UUID, got {value!r}")
