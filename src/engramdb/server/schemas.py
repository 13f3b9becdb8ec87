"""The REST bodies that are not a verb's (the verbs' bodies derive from their request models,
see :mod:`engramdb.server.bodies`): problems, health, users, keys, grants, dataset creation."""

from __future__ import annotations

from typing import Literal

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


class HealthOut(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class DatasetCreate(_Body):
    name: str = Field(min_length=1, max_length=MAX_DATASET_NAME)
