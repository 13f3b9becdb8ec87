"""The request models of cognee's classic verbs: ``add``, ``cognify``, ``search`` and ``prune``.

Their options are cognee's, with cognee's names, order and defaults, so that a program written
for cognee calls them unchanged. Options engramdb cannot honour are declared too (a program
that passes them gets a clear :class:`~engramdb.errors.FeatureNotAvailableError` naming what to
use instead, never a silent ignore): :data:`UNSUPPORTED` says which value each one accepts.
``add``, ``cognify`` and ``search`` cross HTTP (``POST /api/v1/add``, ``/cognify``, ``/search``).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar
from uuid import UUID

from pydantic import Field, SkipValidation, field_validator

from engramdb.models.requests.common import (
    LOCAL,
    ChunkSize,
    CustomPrompt,
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
    "COGNEE_DEFAULT_PROMPT",
    "UNSUPPORTED",
    "AddRequest",
    "CognifyRequest",
    "PruneDataRequest",
    "PruneSystemRequest",
    "SearchRequest",
]

#: cognee's default ``system_prompt_path``: a prompt file inside cognee, meaning "the default".
COGNEE_DEFAULT_PROMPT = "answer_simple_question.txt"

_OPAQUE = Field(default=None, json_schema_extra=LOCAL)


def _local(default: Any) -> Any:
    return Field(default=default, json_schema_extra=LOCAL)


class AddRequest(VerbRequest):
    """``add()``: store inputs in a dataset without building its graph (``cognify()`` does)."""

    positional: ClassVar[tuple[str, ...]] = ("data", "dataset_name")

    data: SkipValidation[Any] = Field(
        description="A text, a file path, a directory, or a list of them."
    )
    dataset_name: Annotated[str, Field(min_length=1, max_length=128)] = "main_dataset"
    user: UserOption = None
    node_set: Annotated[list[str] | None, Field(max_length=100)] = None
    vector_db_config: SkipValidation[Any] = _OPAQUE
    graph_db_config: SkipValidation[Any] = _OPAQUE
    dataset_id: UUID | None = None
    preferred_loaders: SkipValidation[Any] = _OPAQUE
    incremental_loading: Annotated[bool, Strict] = True
    data_per_batch: Annotated[int | None, Field(strict=True, ge=1)] = 20
    importance_weight: Annotated[
        float | None, Field(strict=True, ge=0.0, le=1.0, allow_inf_nan=False)
    ] = 0.5
    run_in_background: Annotated[bool, Strict] = False
    llm_config: SkipValidation[Any] = _OPAQUE
    embedding_config: SkipValidation[Any] = _OPAQUE
    data_cache: Annotated[bool, Strict] = True
    #: dlt resources and CSV files, as remember()'s (engramdb.ingest.tables).
    primary_key: PrimaryKey = None
    write_disposition: WriteDispositionOption = None
    max_rows_per_table: MaxRowsPerTable = None


class CognifyRequest(VerbRequest):
    """``cognify()``: build the graph of what was added and not built yet."""

    positional: ClassVar[tuple[str, ...]] = ("datasets",)

    datasets: str | UUID | list[str | UUID] | None = None
    user: UserOption = None
    graph_model: SkipValidation[Any] = _OPAQUE
    #: A chunker class or instance of engramdb's (TextChunker, TextChunkerWithOverlap, ...).
    chunker: SkipValidation[Any] = _OPAQUE
    chunk_size: ChunkSize = None
    chunks_per_batch: Annotated[int | None, Field(strict=True, ge=1)] = None
    config: SkipValidation[Any] = _OPAQUE
    vector_db_config: SkipValidation[Any] = _OPAQUE
    graph_db_config: SkipValidation[Any] = _OPAQUE
    run_in_background: Annotated[bool, Strict] = False
    incremental_loading: Annotated[bool, Strict] = True
    custom_prompt: CustomPrompt = None
    temporal_cognify: TemporalCognify = False
    functional_relationships: SkipValidation[Any] = _OPAQUE
    data_per_batch: Annotated[int, Field(strict=True, ge=1)] = 20
    llm_config: SkipValidation[Any] = _OPAQUE
    embedding_config: SkipValidation[Any] = _OPAQUE
    data_cache: Annotated[bool, Strict] = True
    dry_run: Annotated[bool, Strict] = False
    #: A local OWL/RDF file (or several, comma-separated) grounding the extraction.
    ontology_file_path: str | None = _local(None)


class SearchRequest(VerbRequest):
    """``search()``: cognee's search over engramdb's recall, with cognee's result shapes."""

    positional: ClassVar[tuple[str, ...]] = ("query_text", "query_type")

    query_text: Annotated[str, Field(strict=True)]
    query_type: SearchType = SearchType.HYBRID_COMPLETION
    user: UserOption = None
    datasets: str | list[str] | None = None
    dataset_ids: UUID | list[UUID] | None = None
    system_prompt_path: str = _local(COGNEE_DEFAULT_PROMPT)
    system_prompt: str | None = None
    top_k: TopK = 15
    node_type: SkipValidation[Any] = _OPAQUE
    node_name: NodeNames = None
    node_name_filter_operator: NodeNameOperator = "OR"
    only_context: Annotated[bool, Strict] = False
    session_id: SessionId = None
    wide_search_top_k: OptionalTopK = None
    triplet_distance_penalty: TripletPenalty = None
    feedback_influence: FeedbackInfluence = 0.0
    verbose: Annotated[bool, Strict] = False
    retriever_specific_config: dict[str, Any] | None = None
    neighborhood_depth: SkipValidation[Any] = _OPAQUE
    neighborhood_seed_top_k: SkipValidation[Any] = _OPAQUE
    #: AGENTIC_COMPLETION's ``retriever_specific_config["skills"]`` / ``["max_iter"]``.
    skills: SkipValidation[Any] = _OPAQUE
    tools: SkipValidation[Any] = _OPAQUE
    max_iter: SkipValidation[Any] = _OPAQUE
    include_references: Annotated[bool, Strict] = False
    llm_config: SkipValidation[Any] = _OPAQUE
    embedding_config: SkipValidation[Any] = _OPAQUE
    code_query: dict[str, Any] | None = None

    _query_type = field_validator("query_type", mode="before")(search_type_from_name)


class PruneDataRequest(VerbRequest):
    """``prune.prune_data()``: delete every stored data item (cognee's stored files)."""


class PruneSystemRequest(VerbRequest):
    """``prune.prune_system()``: reset the graph and vectors, and optionally the metadata
    (users, datasets, keys, grants) and the cache (sessions)."""

    positional: ClassVar[tuple[str, ...]] = ("graph", "vector", "metadata", "cache")

    graph: Annotated[bool, Strict] = True
    vector: Annotated[bool, Strict] = True
    metadata: Annotated[bool, Strict] = False
    cache: Annotated[bool, Strict] = True


#: Options engramdb does not honour: verb -> option -> (the value it accepts, what to use
#: instead). Any other value raises FeatureNotAvailableError with that advice.
UNSUPPORTED: dict[str, dict[str, tuple[object, str]]] = {
    "add": {
        "vector_db_config": (None, "one store holds vectors: set ENGRAMDB_STORAGE_URL"),
        "graph_db_config": (None, "one store holds the graph: set ENGRAMDB_STORAGE_URL"),
        "preferred_loaders": (None, "engramdb picks its loader by file type"),
        "incremental_loading": (True, "content already present is always skipped"),
        "llm_config": (None, "configure the LLM with LLM_* variables or config.set"),
        "embedding_config": (None, "configure embeddings with EMBEDDING_* variables"),
    },
    "cognify": {
        "vector_db_config": (None, "one store holds vectors: set ENGRAMDB_STORAGE_URL"),
        "graph_db_config": (None, "one store holds the graph: set ENGRAMDB_STORAGE_URL"),
        "incremental_loading": (True, "forget() the dataset and add it again to rebuild it"),
        "functional_relationships": (None, "engramdb extracts its own relations"),
        "llm_config": (None, "configure the LLM with LLM_* variables or config.set"),
        "embedding_config": (None, "configure embeddings with EMBEDDING_* variables"),
        "dry_run": (
            False,
            "add() reports what cognify() will build (its items are "
            "'pending'); call cognify() to build it",
        ),
    },
    "update": {
        "vector_db_config": (None, "one store holds vectors: set ENGRAMDB_STORAGE_URL"),
        "graph_db_config": (None, "one store holds the graph: set ENGRAMDB_STORAGE_URL"),
        "preferred_loaders": (None, "engramdb picks its loader by file type"),
        "incremental_loading": (True, "the item is always rebuilt from the new content"),
        "policy": (None, "engramdb replaces the whole document (no chunk-level diff)"),
        "extractor": (
            None,
            "engramdb picks its extractor: configure an LLM (LLM_*) or set "
            "ENGRAMDB_OFFLINE_EXTRACTOR",
        ),
    },
    "search": {
        "node_type": (None, "filter by node_name"),
        "neighborhood_depth": (None, "use SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION"),
        "neighborhood_seed_top_k": (None, "use top_k"),
        "tools": (None, "use recall() with scope='tools'"),
        "llm_config": (None, "configure the LLM with LLM_* variables or config.set"),
        "embedding_config": (None, "configure embeddings with EMBEDDING_* variables"),
    },
}
