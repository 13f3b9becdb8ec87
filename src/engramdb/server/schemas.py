"""The REST bodies that are not a verb's (the verbs' bodies derive from their request models,
see :mod:`engramdb.server.bodies`): problems, health, users, keys, grants, dataset creation."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engramdb.validation import MAX_DATASET_NAME

__all__ = [
    "DatasetCreate",
    "HealthOut",
    "Problem",
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """An RFC 9457 problem document: every error answer has this shape."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    #: When ``detail`` names a verb to run or an option to pass: ``detail`` with ``{0}``,
    #: ``{1}``... in their place, and the ``terms`` themselves (``{"verb": ...}`` or
    #: ``{"option": ..., "value": ...}``), so a client can name them its own way.
    template: str | None = Field(
        default=None, description="detail with {0}, {1}... where it names the terms"
    )
    terms: list[dict[str, Any]] | None = Field(
        default=None, description="the verbs and options detail names (engramdb.spelling.Term)"
    )


class HealthOut(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class DatasetCreate(_Body):
    name: str = Field(min_length=1, max_length=MAX_DATASET_NAME)
