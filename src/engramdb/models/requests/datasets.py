"""The request models of cognee's data-management verbs: ``delete``, ``update`` and the
``datasets`` namespace (``list_data``, ``has_data``, ``get_status``, ``get_progress``,
``empty_dataset``, ``delete_data``, ``delete_all``).

Their options are cognee's, with cognee's names, order and defaults. ``get_status`` and
``get_progress`` take a ``user`` that cognee's do not: engramdb reports only the datasets the
caller may read.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal
from uuid import UUID

from pydantic import Field, SkipValidation

from engramdb.models.requests.common import LOCAL, MAX_ITEMS, Strict, UserOption, VerbRequest

__all__ = [
    "DeleteAllRequest",
    "DeleteDataRequest",
    "DeleteRequest",
    "EmptyDatasetRequest",
    "GetStatusRequest",
    "HasDataRequest",
    "ListDataRequest",
    "PipelineNames",
    "UpdateRequest",
]

#: cognee's deletion modes; both delete exactly the item and what only it supported.
DeleteMode = Literal["soft", "hard"]
#: cognee's pipeline names a status is asked for (``cognify_pipeline`` when none).
PipelineNames = Annotated[list[str] | None, Field(max_length=16)]

_OPAQUE = Field(default=None, json_schema_extra=LOCAL)


class DeleteRequest(VerbRequest):
    """``delete()``: remove one data item from a dataset (cognee: deprecated since 0.3.9 in
    favour of ``datasets.delete_data``)."""

    positional: ClassVar[tuple[str, ...]] = ("data_id", "dataset_id", "mode", "user")

    data_id: UUID
    dataset_id: UUID
    mode: DeleteMode = "soft"
    user: UserOption = None


class DeleteDataRequest(VerbRequest):
    """``datasets.delete_data()``: remove one data item from a dataset."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_id", "data_id", "user", "mode")

    dataset_id: UUID
    data_id: UUID
    user: UserOption = None
    mode: DeleteMode = "soft"
    delete_dataset_if_empty: Annotated[bool, Strict] = False


class UpdateRequest(VerbRequest):
    """``update()``: replace the content of one data item, keeping its ``data_id``."""

    positional: ClassVar[tuple[str, ...]] = ("data_id", "data", "dataset_id", "user", "node_set")

    data_id: UUID
    data: SkipValidation[Any] = Field(
        description="The new content: a text, a file path, or a list holding exactly one."
    )
    dataset_id: UUID
    user: UserOption = None
    node_set: Annotated[list[str] | None, Field(max_length=100)] = None
    vector_db_config: SkipValidation[Any] = _OPAQUE
    graph_db_config: SkipValidation[Any] = _OPAQUE
    preferred_loaders: SkipValidation[Any] = _OPAQUE
    incremental_loading: Annotated[bool, Strict] = True
    data_cache: Annotated[bool, Strict] = True
    chunk_level_diff: Annotated[bool, Strict] = True
    graph_model: SkipValidation[Any] = _OPAQUE
    custom_prompt: str | None = None
    #: A chunker class or instance of engramdb's (TextChunker, TextChunkerWithOverlap, ...).
    chunker: SkipValidation[Any] = _OPAQUE
    policy: SkipValidation[Any] = _OPAQUE
    extractor: SkipValidation[Any] = _OPAQUE


class ListDataRequest(VerbRequest):
    """``datasets.list_data()``: the data items of one dataset, oldest first."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_id", "user")

    dataset_id: UUID
    user: UserOption = None


class HasDataRequest(VerbRequest):
    """``datasets.has_data()``: whether a dataset holds any data item (built or added)."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_id", "user")

    dataset_id: UUID
    user: UserOption = None


class GetStatusRequest(VerbRequest):
    """``datasets.get_status()`` / ``get_progress()``: the latest pipeline run of datasets."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_ids", "pipeline_names")

    dataset_ids: Annotated[list[UUID], Field(max_length=MAX_ITEMS)]
    pipeline_names: PipelineNames = None
    user: UserOption = None


class EmptyDatasetRequest(VerbRequest):
    """``datasets.empty_dataset()``: delete a dataset with everything in it."""

    positional: ClassVar[tuple[str, ...]] = ("dataset_id", "user")

    dataset_id: UUID
    user: UserOption = None


class DeleteAllRequest(VerbRequest):
    """``datasets.delete_all()``: delete every dataset the user may delete."""

    positional: ClassVar[tuple[str, ...]] = ("user",)

    user: UserOption = None
