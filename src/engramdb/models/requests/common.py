"""Option types shared by the verbs' request models."""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID

from pydantic import Field

from engramdb.ingest.tables import WriteDisposition
from engramdb.models.records import User
from engramdb.models.search_type import SearchType
from engramdb.models.verb_request import LOCAL, VerbRequest
from engramdb.validation import MAX_DATASET_NAME, MAX_TOP_K

__all__ = [
    "LOCAL",
    "MAX_DATASET_NAME",
    "MAX_ITEMS",
    "MAX_SESSION_ID",
    "MAX_TOP_K",
    "DatasetIds",
    "DatasetName",
    "DatasetNames",
    "DatasetRef",
    "FeedbackInfluence",
    "Flag",
    "MaxRowsPerTable",
    "NodeNameOperator",
    "NodeNames",
    "OptionalTopK",
    "PrimaryKey",
    "SessionId",
    "Strict",
    "TopK",
    "TripletPenalty",
    "UserOption",
    "VerbRequest",
    "WriteDispositionOption",
    "search_type_from_name",
]

MAX_ITEMS = 1000
Strict = Field(strict=True)

#: The caller, when it is not the default user. In-process only: over HTTP the API key decides.
UserOption = Annotated[
    User | None,
    Field(description="Run as this user (in-process only).", json_schema_extra=LOCAL),
]
#: Longest session id accepted.
MAX_SESSION_ID = 256
SessionId = Annotated[str | None, Field(min_length=1, max_length=MAX_SESSION_ID)]
#: A dataset of yours by name (the name rules are checked by the handlers).
DatasetName = Annotated[str, Field(min_length=1, max_length=MAX_DATASET_NAME)]
#: Datasets of yours by name, as a list option (a query string's lists stay within the server's
#: request-head limit because both the count and each name's length are bounded).
DatasetNames = Annotated[list[DatasetName] | None, Field(max_length=MAX_ITEMS)]
#: Datasets by id, as a list option.
DatasetIds = Annotated[list[UUID] | None, Field(max_length=MAX_ITEMS)]
DatasetRef = Annotated[
    str | UUID,
    Field(description="A dataset of yours by name, or any dataset you may use by its UUID."),
]

# -- ingestion options shared by remember() and the reference's cognify() ---------------------
#: Tokens per chunk, instead of CHUNK_MAX_TOKENS.
ChunkSize = Annotated[int | None, Field(strict=True, ge=8, le=8192)]
#: The caller's own instructions to the LLM extractor (the reference's ``custom_prompt``).
CustomPrompt = Annotated[str | None, Field(strict=True, max_length=20_000)]
#: The reference's ``temporal_cognify``: accepted either way, since every dataset answers
#: SearchType.TEMPORAL (passages are dated from their text and metadata when recalled).
TemporalCognify = Annotated[bool, Strict]

# -- table options shared by remember() and the reference's add() (engramdb.ingest.tables) ----
#: The column whose value identifies a row of a dlt resource or a CSV file.
PrimaryKey = Annotated[
    str | None, Field(strict=True, min_length=1, max_length=256, json_schema_extra=LOCAL)
]
#: What a later load of the same table does to the rows already there.
WriteDispositionOption = Annotated[WriteDisposition | None, Field(json_schema_extra=LOCAL)]
#: At most this many rows per table (0 or None: all of them).
MaxRowsPerTable = Annotated[int | None, Field(strict=True, ge=0, json_schema_extra=LOCAL)]

# -- recall options shared by recall() and the reference's search() --------------------------
TopK = Annotated[int, Field(strict=True, ge=1, le=MAX_TOP_K)]
OptionalTopK = Annotated[int | None, Field(strict=True, ge=1, le=MAX_TOP_K)]
NodeNames = Annotated[list[str] | None, Field(max_length=MAX_ITEMS)]
NodeNameOperator = Literal["OR", "AND"]
TripletPenalty = Annotated[float | None, Field(strict=True, ge=0.0, allow_inf_nan=False)]
FeedbackInfluence = Annotated[float, Field(strict=True, ge=0.0, le=1.0, allow_inf_nan=False)]
Flag = Annotated[bool, Field(strict=True)]


def search_type_from_name(value: object) -> object:
    """``"chunks"`` and ``"CHUNKS"`` both name SearchType.CHUNKS (a pydantic before-validator)."""
    if isinstance(value, str) and not isinstance(value, SearchType):
        try:
            return SearchType(value.upper())
        except ValueError:
            valid = ", ".join(t.value for t in SearchType)
            raise ValueError(f"unknown query_type {value!r}; valid types are: {valid}") from None
    return value
