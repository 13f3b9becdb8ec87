"""The verb table: every verb the facade, the Engine, the REST server, the MCP server and the
remote client share, each declared once by its request model (:mod:`engramdb.models.requests`).

See :mod:`engramdb.verbs.spec` for what is derived from a verb.
"""

from __future__ import annotations

from typing import Any, Literal
from uuid import UUID

from pydantic import Field

from engramdb.models.requests import (
    ForgetRequest,
    ImproveRequest,
    ListDatasetsRequest,
    RecallRequest,
    RememberRequest,
)
from engramdb.verbs.spec import Verb, VerbRequest, signature_for

__all__ = ["BODY_VERBS", "VERBS", "ChunkerName", "Verb", "VerbRequest", "signature_for", "verb"]

#: The built-in chunkers by name (what crosses HTTP for remember's ``chunker``).
ChunkerName = Literal["TextChunker", "TextChunkerWithOverlap", "CsvChunker"]

#: A dataset by UUID over HTTP (the SDK's dataset options take a name or a UUID).
_DATASET_ID = (UUID | None, Field(default=None, description="A dataset by id (instead of name)."))

_TABLE: tuple[Verb[Any, Any], ...] = (
    Verb(
        "remember",
        RememberRequest,
        "engramdb.api.remember:remember",
        "RememberResult",
        wire_extra={
            "data": (
                str | list[str],
                Field(description="A text or a list of texts; never a path on the server."),
            ),
            "dataset_name": (str, Field(default="main_dataset", min_length=1, max_length=128)),
            "dataset_id": _DATASET_ID,
            "chunker": (ChunkerName | None, Field(default=None)),
        },
    ),
    Verb(
        "recall",
        RecallRequest,
        "engramdb.api.recall:recall",
        "list[RecallResponse]",
        wire_extra={
            "response_schema": (
                dict[str, Any] | None,
                Field(
                    default=None,
                    description="The JSON schema of the answer (the SDK's response_model).",
                ),
            )
        },
    ),
    Verb(
        "improve",
        ImproveRequest,
        "engramdb.api.improve:improve",
        "ImproveResult",
        wire_extra={
            "dataset": (str, Field(default="main_dataset", min_length=1, max_length=128)),
            "dataset_id": _DATASET_ID,
        },
    ),
    Verb(
        "forget",
        ForgetRequest,
        "engramdb.api.forget:forget",
        "ForgetResult",
        wire_extra={
            "dataset": (str | None, Field(default=None, min_length=1, max_length=128)),
            "dataset_id": _DATASET_ID,
        },
    ),
    Verb(
        "list_datasets",
        ListDatasetsRequest,
        "engramdb.api.datasets:list_datasets",
        "list[Dataset]",
    ),
)

#: name -> verb.
VERBS: dict[str, Verb[Any, Any]] = {v.name: v for v in _TABLE}


#: Verbs whose REST route takes a JSON body (their wire models are OpenAPI components).
BODY_VERBS = ("remember", "recall", "improve", "forget")


def verb(name: str) -> Verb[Any, Any]:
    """The verb called ``name`` (KeyError for an unknown name: a programming error)."""
    return VERBS[name]
