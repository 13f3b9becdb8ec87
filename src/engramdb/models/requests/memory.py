"""The request models of the memory verbs: the ONE place their options are declared.

The SDK function (``engramdb.recall``), the :class:`~engramdb.Engine` method, the REST body,
the MCP tool schema and the remote client's payload are all derived from these models (see
:mod:`engramdb.verbs`). Adding an option to a verb means adding a field here and using it in
the verb's handler.

Numbers and flags are strict (``"5"`` is not 5, ``"yes"`` is not True); checks that need the
settings (the query length limit) or the store (dataset names) stay in the handlers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal
from uuid import UUID

from pydantic import BaseModel, Field, SkipValidation, field_validator

from engramdb.models.requests.common import (
    LOCAL,
    MAX_ITEMS,
    ChunkSize,
    CustomPrompt,
    DatasetRef,
    FeedbackInfluence,
    MaxRowsPerTable,
    NodeNameOperator,
    NodeNames,
    OptionalTopK,
    PrimaryKey,
    SessionId,
    Strict,
    TemporalCognify,
    TopK,
    TripletPenalty,
    UserOption,
    VerbRequest,
    WriteDispositionOption,
    search_type_from_name,
)
from engramdb.models.search_type import SearchType

__all__ = [
    "ForgetRequest",
    "ImproveRequest",
    "ListDatasetsRequest",
    "ListImproveRunsRequest",
    "RecallRequest",
    "RememberRequest",
]


class RememberRequest(VerbRequest):
    """``remember()``: ingest texts, files or directories into a dataset."""

    positional: ClassVar[tuple[str, ...]] = ("data", "dataset_name")

    # What to remember is checked by the input loader (texts, paths, typed session entries).
    data: SkipValidation[Any] = Field(
        description="A text or a list of texts (files and directories in-process only)."
    )
    dataset_name: DatasetRef = "main_dataset"
    importance_weight: Annotated[float, Field(strict=True, ge=0.0, le=1.0, allow_inf_nan=False)] = (
        0.5
    )
    session_id: SessionId = None
    self_improvement: Annotated[bool, Strict] = True
    run_in_background: Annotated[bool, Strict] = False
    node_set: Annotated[list[str] | None, Field(max_length=100)] = None
    #: A chunker class or instance; over HTTP one of the built-in chunkers by name.
    chunker: SkipValidation[Any] = Field(default=None, json_schema_extra=LOCAL)
    external_metadata: dict[str, Any] | None = None
    user: UserOption = None
    #: cognee's cognify config: ``{"ontology_config": {"ontology_resolver": ...}}``.
    config: SkipValidation[Any] = Field(default=None, json_schema_extra=LOCAL)
    #: The reference's way to name an existing dataset by id; wins over ``dataset_name``.
    dataset_id: UUID | None = None
    chunk_size: ChunkSize = None
    custom_prompt: CustomPrompt = None
    temporal_cognify: TemporalCognify = False
    #: A custom graph model (DataPoint subclass) the LLM extracts each chunk into (in-process).
    graph_model: SkipValidation[Any] = Field(default=None, json_schema_extra=LOCAL)
    #: The reference's ``content_type="code"``: ``data`` is repository paths, indexed into the
    #: code graph only (without it, source files are recognised by suffix; docs/code-graph.md);
    #: ``"skills"``: ``data`` is SKILL.md files, directories of them, or their text (skills).
    content_type: Literal["code", "skills"] | None = Field(default=None, json_schema_extra=LOCAL)
    #: With a ``SkillRunEntry`` or ``content_type="skills"``: propose (or, with ``apply`` and a
    #: ``proposal_id``, apply) an improvement of the skill ``skill_name``; see
    #: :mod:`engramdb.api.skill_runs`.
    skill_improvement: dict[str, Any] | None = Field(default=None, json_schema_extra=LOCAL)
    #: cognee's: False rebuilds content already in the dataset instead of skipping it.
    incremental_loading: Annotated[bool, Strict] = True
    #: dlt resources and CSV files (engramdb.ingest.tables): the row key, what a later load
    #: does to the rows already there, and how many rows per table to read.
    primary_key: PrimaryKey = None
    write_disposition: WriteDispositionOption = None
    max_rows_per_table: MaxRowsPerTable = None


class RecallRequest(VerbRequest):
    """``recall()``: retrieve (and answer) from memory and from the session."""

    positional: ClassVar[tuple[str, ...]] = ("query_text", "query_type")

    query_text: Annotated[str, Field(strict=True)]
    query_type: SearchType | None = None
    datasets: Annotated[list[str] | None, Field(max_length=MAX_ITEMS)] = None
    dataset_ids: Annotated[list[UUID] | None, Field(max_length=MAX_ITEMS)] = None
    top_k: TopK = 15
    auto_route: Annotated[bool, Strict] = True
    scope: str | list[str] | None = None
    system_prompt: str | None = None
    #: A prompt file, read where the call is made.
    system_prompt_path: str | None = Field(default=None, json_schema_extra=LOCAL)
    node_name: NodeNames = None
    node_name_filter_operator: NodeNameOperator = "OR"
    only_context: Annotated[bool, Strict] = False
    session_id: SessionId = None
    context_profile: Literal["qa", "agent"] = "qa"
    wide_search_top_k: OptionalTopK = None
    triplet_distance_penalty: TripletPenalty = None
    feedback_influence: FeedbackInfluence = 0.0
    verbose: Annotated[bool, Strict] = False
    retriever_specific_config: dict[str, Any] | None = None
    code_query: dict[str, Any] | None = None
    #: The registered SQL connections the "tools" scope asks (None: all of yours).
    tool_connections: Annotated[list[str] | None, Field(max_length=MAX_ITEMS)] = None
    #: When the "tools" scope runs: always, or only when every other source found nothing.
    tools_trigger: Literal["always", "on_empty"] = "always"
    #: A pydantic model the answer must follow; over HTTP it travels as its JSON schema.
    response_model: SkipValidation[type[BaseModel] | None] = Field(
        default=None, json_schema_extra=LOCAL
    )
    include_references: Annotated[bool, Strict] = False
    user: UserOption = None
    #: LLM_* settings for this call: a dict, or an object of them (cognee's LLMConfig).
    llm_config: Mapping[str, Any] | BaseModel | None = Field(default=None, json_schema_extra=LOCAL)
    embedding_config: Mapping[str, Any] | None = Field(default=None, json_schema_extra=LOCAL)

    _query_type = field_validator("query_type", mode="before")(search_type_from_name)

    @field_validator("datasets", mode="before")
    @classmethod
    def _one_dataset(cls, value: object) -> object:
        """One dataset name may be given as a string (cognee programs do)."""
        return [value] if isinstance(value, str) else value

    @field_validator("response_model", mode="before")
    @classmethod
    def _pydantic_class(cls, value: object) -> object:
        if value is not None and not (isinstance(value, type) and issubclass(value, BaseModel)):
            raise ValueError("response_model must be a pydantic BaseModel subclass")
        return value


_DEPRECATED: dict[str, Any] = {**LOCAL, "engramdb_deprecated": True}


class ImproveRequest(VerbRequest):
    """``improve()``: enrich a dataset's graph and bridge session memory into it."""

    positional: ClassVar[tuple[str, ...]] = ("dataset",)

    dataset: DatasetRef = "main_dataset"
    run_in_background: Annotated[bool, Strict] = False
    node_name: SkipValidation[list[str] | None] = Field(default=None, json_schema_extra=_DEPRECATED)
    session_ids: Annotated[Sequence[str] | None, Field(max_length=MAX_ITEMS)] = None
    build_global_context_index: Annotated[bool | None, Strict] = None
    build_truth_subspace: Annotated[bool, Strict] = False
    review_conflicts: Annotated[bool | None, Strict] = None
    user: UserOption = None
    feedback_alpha: Annotated[
        float | None, Field(strict=True, gt=0.0, le=1.0, allow_inf_nan=False)
    ] = None
    extraction_tasks: SkipValidation[Any] = Field(default=None, json_schema_extra=_DEPRECATED)
    enrichment_tasks: SkipValidation[Any] = Field(default=None, json_schema_extra=_DEPRECATED)
    data: SkipValidation[Any] = Field(default=None, json_schema_extra=_DEPRECATED)
    node_type: SkipValidation[Any] = Field(default=None, json_schema_extra=_DEPRECATED)
    vector_db_config: SkipValidation[Any] = Field(default=None, json_schema_extra=_DEPRECATED)
    graph_db_config: SkipValidation[Any] = Field(default=None, json_schema_extra=_DEPRECATED)

    @field_validator("session_ids", mode="before")
    @classmethod
    def _not_one_string(cls, value: object) -> object:
        if isinstance(value, str):
            raise ValueError("session_ids must be a list of session ids, not one string")
        return value

    def deprecation_warning(self, verb: str) -> str | None:
        """The custom tasks still run (as the ``custom_tasks`` stage) but are deprecated; the
        options that only scope them are ignored without them (improve.md)."""
        used = self.deprecated_used()
        tasks = [name for name in _CUSTOM_TASK_OPTIONS if name in used]
        if tasks:
            return (
                f"improve({', '.join(f'{n}=...' for n in tasks)}) is deprecated and will be "
                "removed in the next release; run your own tasks with run_custom_pipeline() "
                "instead"
            )
        if not used:
            return None
        return (
            f"{', '.join(used)} only scope the deprecated extraction_tasks/enrichment_tasks of "
            f"{verb}(); without those tasks {'it is' if len(used) == 1 else 'they are'} ignored "
            "(and will be removed in the next release)"
        )


#: improve()'s deprecated custom-task lists; its other deprecated options only scope them.
_CUSTOM_TASK_OPTIONS = ("extraction_tasks", "enrichment_tasks")


class ForgetRequest(VerbRequest):
    """``forget()``: exactly one of ``everything``, ``dataset`` or ``data_id``."""

    everything: Annotated[bool, Strict] = False
    dataset: str | UUID | None = Field(
        default=None, description="A dataset of yours by name, or any you may delete by UUID."
    )
    data_id: UUID | None = None
    user: UserOption = None


class ListImproveRunsRequest(VerbRequest):
    """``list_improve_runs()``: past improve runs with their stages, newest first."""

    positional: ClassVar[tuple[str, ...]] = ("dataset",)

    dataset: DatasetRef | None = None
    limit: Annotated[int, Field(strict=True, ge=1, le=1000)] = 50
    user: UserOption = None


class ListDatasetsRequest(VerbRequest):
    """``list_datasets()``: the datasets you own, then those shared with you."""

    user: UserOption = None


#: What ``remember()`` accepts as data, for type hints in handlers.
RememberInput = str | Path | Sequence[str | Path]
