"""Option types shared by the verbs' request models."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from pydantic import Field

from engramdb.models.records import User
from engramdb.models.verb_request import LOCAL, VerbRequest
from engramdb.validation import MAX_DATASET_NAME

__all__ = [
    "LOCAL",
    "MAX_DATASET_NAME",
    "MAX_ITEMS",
    "MAX_TOP_K",
    "DatasetName",
    "DatasetRef",
    "SessionId",
    "Strict",
    "UserOption",
    "VerbRequest",
]

MAX_TOP_K = 10_000
MAX_ITEMS = 1000
Strict = Field(strict=True)

#: The caller, when it is not the default user. In-process only: over HTTP the API key decides.
UserOption = Annotated[
    User | None,
    Field(description="Run as this user (in-process only).", json_schema_extra=LOCAL),
]
SessionId = Annotated[str | None, Field(min_length=1, max_length=256)]
#: A dataset of yours by name (the name rules are checked by the handlers).
DatasetName = Annotated[str, Field(min_length=1, max_length=MAX_DATASET_NAME)]
DatasetRef = Annotated[
    str | UUID,
    Field(description="A dataset of yours by name, or any dataset you may use by its UUID."),
]
