"""The one settings object.

Every environment variable the reference documents names is a field here, under the same name
(lower-case field, upper-case variable), with the reference's default; engramdb's own settings
carry the ``ENGRAMDB_`` prefix. Settings are read from the environment (and a ``.env`` file in
the working directory) once, when first needed, and validated then. ``config.set(key, value)``
changes one field at run time and validates it again. Library code receives the settings object;
it never reads ``os.environ`` itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from engramdb.errors import ConfigurationError, FeatureNotAvailableError
from engramdb.paths import user_path
from engramdb.settings_cognee import CogneeSetters

logger = logging.getLogger(__name__)

__all__ = [
    "DEFERRED_CHECKS",
    "IMPROVE_STAGES",
    "Config",
    "Settings",
    "check_deferred",
    "config",
    "disabled_stages",
    "get_settings",
]

#: The nine improve stages of the reference, in their fixed order.
IMPROVE_STAGES: tuple[str, ...] = (
    "feedback_weights",
    "persist_session_qa",
    "persist_agent_traces",
    "extract_agent_context",
    "distill_sessions",
    "update_user_preferences",
    "build_truth_subspace",
    "review_conflicts",
    "global_context_index",
)


def _default_data_dir() -> Path:
    return Path.home() / ".engramdb"


#: The reference's session cache backends that engramdb's own store serves (``CACHE_BACKEND``).
STORE_CACHE_BACKENDS: tuple[str, ...] = ("sqlite", "fs", "postgres")
#: The reference's session cache backends that need a service of their own, and what it is.
SERVICE_CACHE_BACKENDS: dict[str, str] = {"redis": "Redis", "tapes": "tapes ingest"}

#: See ``Settings.engramdb_vector_ann_threshold`` (also the SQLite store's own default).
DEFAULT_VECTOR_ANN_THRESHOLD = 50_000


class Settings(BaseSettings):
    """All of engramdb's configuration. See the module docstring for where values come from."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
        validate_assignment=True,
    )

    # --- storage -------------------------------------------------------------------------------
    engramdb_data_dir: Path = Field(default_factory=_default_data_dir)
    #: Empty means the embedded SQLite file ``<data dir>/engramdb.sqlite3``.
    engramdb_storage_url: str = ""
    #: How long a writer waits for the per-dataset lock before giving up (seconds).
    engramdb_lock_timeout: float = Field(default=600.0, gt=0)
    #: SQLite: a dataset's collection of at least this many vectors is searched through an
    #: approximate (HNSW) index file beside the database, if the ``ann`` extra is installed;
    #: smaller ones, and every one when this is 0, by an exact scan.
    engramdb_vector_ann_threshold: int = Field(default=DEFAULT_VECTOR_ANN_THRESHOLD, ge=0)

    #: The level cognee's ``setup_logging()`` uses when called without one (the reference's
    #: ``LOG_LEVEL``); engramdb itself never configures logging.
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"

    # --- embeddings (names as in the reference) --------------------------------------------
    embedding_provider: Literal["onnx", "openai", "fake"] = "onnx"
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_endpoint: str = ""
    embedding_api_key: str = ""
    embedding_dimensions: int = Field(default=384, gt=0, le=65536)
    embedding_batch_size: int = Field(default=32, gt=0, le=4096)
    embedding_max_tokens: int = Field(default=256, gt=8, le=8192)
    #: Path to a local ONNX model file that replaces the packaged one (checksum still checked
    #: when it is the packaged file).
    engramdb_onnx_model_path: str = ""
    engramdb_onnx_threads: int = Field(default=0, ge=0, le=256)

    # --- LLM (names as in the reference) ---------------------------------------------------
    llm_provider: str = "openai"
    llm_api_key: str = ""
    llm_endpoint: str = ""
    llm_model: str = "gpt-4o-mini"
    llm_timeout: float = Field(default=60.0, gt=0)
    llm_max_concurrency: int = Field(default=4, gt=0, le=256)
    llm_max_retries: int = Field(default=3, ge=0, le=20)

    # --- ingestion ---------------------------------------------------------------------------
    #: Upper bound of a chunk, in embedding-model tokens.
    chunk_max_tokens: int = Field(default=256, gt=8, le=8192)
    chunk_overlap_tokens: int = Field(default=32, ge=0, le=4096)
    max_file_bytes: int = Field(default=100 * 1024 * 1024, gt=0)
    #: Graph extractor used without an LLM (and as the LLM's fallback): "auto" picks the
    #: measured default, "none" stores documents and chunks only.
    engramdb_offline_extractor: Literal["auto", "heuristic", "spacy", "none"] = "auto"
    #: A local OWL/RDF file (or several, comma-separated) grounding every build (the
    #: reference's ONTOLOGY_FILE_PATH; a call's ontology_file_path or config wins), and how.
    ontology_file_path: str = ""
    ontology_mode: Literal["annotate", "strict"] = "annotate"
    #: With an LLM, a remember() whose new documents fit one extraction call queues their graph
    #: extraction (chunks are stored and searchable at once) until this many documents are
    #: queued in the dataset, the oldest is ``ENGRAMDB_EXTRACTION_BATCH_SECONDS`` old (``0``: no
    #: age trigger), a read needs the graph, or the engine closes; then they share calls
    #: (docs/ingestion-queue.md). The default (1) extracts within remember(), as the seed's
    #: remember() builds the graph before it returns; a larger value is the opt-in.
    engramdb_extraction_batch_remembers: int = Field(default=1, ge=1)
    engramdb_extraction_batch_seconds: float = Field(default=60.0, ge=0.0)

    # --- a relational database read into the graph (the reference's MIGRATION_DB_*) ---------
    #: "sqlite" (a file: MIGRATION_DB_PATH / MIGRATION_DB_NAME) or "postgres" (host, port,
    #: name, username, password); see engramdb.migration.relational_source.
    migration_db_provider: str | None = None
    migration_db_path: str | None = None
    migration_db_name: str | None = None
    migration_db_host: str | None = None
    migration_db_port: str | None = None
    migration_db_username: str | None = None
    migration_db_password: str | None = Field(default=None, repr=False)

    # --- recall (recall.md) -------------------------------------------------------------------
    recall_warmup_shortcircuit: bool = True
    recall_warmup_threshold: int = Field(default=1, ge=0)
    skill_gate_enabled: bool = True
    max_query_chars: int = Field(default=20_000, gt=0)

    # --- recall's "tools" scope: text-to-SQL on registered databases (docs/tools.md) ----------
    tool_calls_enabled: bool = False
    tool_write_calls_enabled: bool = False
    #: Deployment-level connections every user may query: a JSON object of name -> connection
    #: string, or name -> {"connection_string": ..., "allowed_tables": [...], "max_rows": N}.
    tool_sql_connections: str = "{}"
    #: The keyring sealing registered connection strings (engramdb.tools.secrets).
    integration_credentials_key: str = Field(default="", repr=False)
    integration_credentials_keys: str = Field(default="", repr=False)
    integration_credentials_active_key_id: str = "1"
    text_to_sql_max_rows: int = Field(default=100, gt=0, le=100_000)
    text_to_sql_max_attempts: int = Field(default=3, gt=0, le=10)
    text_to_sql_statement_timeout_ms: int = Field(default=5000, gt=0)
    text_to_sql_max_schema_tables: int = Field(default=50, gt=0)
    text_to_sql_max_affected_rows: int = Field(default=50, gt=0)

    # --- sessions, feedback, personalization (user-preferences.md) ----------------------------
    #: The reference's session cache backend. engramdb keeps sessions in its own store whatever
    #: this names, so every choice that needs no service of its own is accepted (and reported
    #: back by ``get_cache_config()``); a choice that needs a service is refused
    #: (:data:`SERVICE_CACHE_BACKENDS`).
    cache_backend: str = "sqlite"
    auto_feedback: bool = False
    personalization_enabled: bool = False
    personalization_influence: float = Field(default=0.3, ge=0.0, le=1.0)
    preference_alpha: float = Field(default=0.3, gt=0.0, le=1.0)
    preference_beta: float = Field(default=0.02, ge=0.0, le=1.0)

    # --- improve (improve.md) -----------------------------------------------------------------
    improve_stages_disabled: str = ""
    improve_feedback_alpha: float = Field(default=0.1, gt=0.0, le=1.0)
    improve_review_conflicts: bool = True
    improve_global_context_index: bool = True
    improve_effective_date_key: str = "effective_date"
    improve_trace_window_steps: int = Field(default=0, ge=0)
    improve_trace_windows_per_run: int = Field(default=0, ge=0)
    improve_distill_max_batches_per_run: int = Field(default=0, ge=0)
    improve_auto_enabled: bool = True
    improve_debounce_entries: int = Field(default=1, ge=0)
    improve_debounce_seconds: float = Field(default=0.0, ge=0.0)
    #: The automatic improve after remember() runs the conflict review once this many
    #: remember() calls queued facts since the last review (``1``: after every one), or once
    #: the oldest queued one is ``IMPROVE_REVIEW_BATCH_SECONDS`` old (``0``: no age trigger).
    #: Queued facts are never dropped: any review sends every group changed since the last
    #: one, and an explicit improve() always reviews. The default (1) is the seed's: improve.md,
    #: "Runs the review_conflicts stage on every improve, including the automatic one after
    #: remember()"; a larger batch is the opt-in that spends fewer LLM calls on a remember stream.
    improve_review_batch_remembers: int = Field(default=1, ge=1)
    improve_review_batch_seconds: float = Field(default=600.0, ge=0.0)
    edge_evidence_enabled: bool = True

    # --- observability (docs/observability.md) -----------------------------------------------
    #: "json": one JSON object per log line (the CLI, the server, cognee's setup_logging()).
    log_format: Literal["text", "json"] = "text"
    #: Record Prometheus metrics (needs prometheus-client: the ``metrics`` or ``server`` extra).
    engramdb_metrics_enabled: bool = True
    #: When set, ``GET /metrics`` wants ``Authorization: Bearer <this token>`` instead of an API
    #: key (what a Prometheus scraper is given).
    engramdb_metrics_token: str = Field(default="", repr=False)
    #: Open OpenTelemetry spans (needs opentelemetry-api: the ``otel`` extra).
    engramdb_tracing_enabled: bool = True

    @field_validator("engramdb_data_dir", mode="after")
    @classmethod
    def _expand_dir(cls, value: Path) -> Path:
        return user_path(value)

    @field_validator("cache_backend", mode="before")
    @classmethod
    def _cache_backend(cls, value: object) -> object:
        name = value.strip().lower() if isinstance(value, str) else value
        if name in SERVICE_CACHE_BACKENDS:
            raise ValueError(
                f"CACHE_BACKEND={name} needs a {SERVICE_CACHE_BACKENDS[name]} service, which "
                f"engramdb does not use: it keeps sessions in its own store. Use CACHE_BACKEND="
                f"{' or '.join(STORE_CACHE_BACKENDS)} (all mean that store), or leave it unset"
            )
        if name not in STORE_CACHE_BACKENDS:
            raise ValueError(
                f"unknown cache backend; valid: {', '.join(STORE_CACHE_BACKENDS)} "
                f"(the reference's {', '.join(SERVICE_CACHE_BACKENDS)} need a service engramdb "
                "does not use)"
            )
        return name

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_name(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _format_name(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @property
    def storage_url(self) -> str:
        """The storage URL in effect (the embedded SQLite file unless one is configured)."""
        if self.engramdb_storage_url:
            return self.engramdb_storage_url
        return f"sqlite:///{self.engramdb_data_dir / 'engramdb.sqlite3'}"

    @property
    def llm_configured(self) -> bool:
        """True when an LLM can be called: an API key, or an endpoint (local servers need none)."""
        return bool(self.llm_api_key or self.llm_endpoint)


def disabled_stages(value: str) -> set[str]:
    """The stage names of IMPROVE_STAGES_DISABLED. An unknown name, or ``persist_session_qa``
    (which cannot be disabled), is a ConfigurationError listing the valid names; the removed
    ``triplet_enrichment`` stage is ignored with a logged warning (improve.md)."""
    names = {n.strip() for n in value.split(",") if n.strip()}
    allowed = set(IMPROVE_STAGES) - {"persist_session_qa"}
    bad = sorted(n for n in names if n not in allowed and n != "triplet_enrichment")
    if bad:
        raise ConfigurationError(
            f"IMPROVE_STAGES_DISABLED names unknown or non-disableable stages {bad}; "
            f"valid names are: {', '.join(sorted(allowed))}"
        )
    if "triplet_enrichment" in names:
        logger.warning("IMPROVE_STAGES_DISABLED: the triplet_enrichment stage was removed; ignored")
    return names - {"triplet_enrichment"}


#: Settings checked when the feature that reads them does, not when the settings load, so that a
#: bad value breaks that feature only (improve.md: "the API server raises it at startup, the SDK
#: the first time improve's config is read"). ``config.set`` checks its key at once, and the
#: server checks all of them at startup (:func:`check_deferred`).
DEFERRED_CHECKS: dict[str, Callable[[Any], object]] = {"improve_stages_disabled": disabled_stages}


def check_deferred(settings: Settings) -> None:
    """Run every deferred check (the server's startup)."""
    for name, check in DEFERRED_CHECKS.items():
        check(getattr(settings, name))


class Config(CogneeSetters):
    """``engramdb.config``: read and change settings at run time.

    ``config.set("recall_warmup_shortcircuit", False)`` validates the value like the environment
    variable of the same name would be, and raises :class:`ConfigurationError` naming the fix.
    cognee's setters (``set_llm_config``, ``set_vector_db_config``, ``system_root_directory``...)
    are here too, see :mod:`engramdb.settings_cognee`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._settings: Settings | None = None
        self._generation = 0

    @property
    def settings(self) -> Settings:
        with self._lock:
            if self._settings is None:
                try:
                    self._settings = Settings()
                except ValidationError as exc:
                    raise ConfigurationError(_explain(exc)) from exc
            return self._settings

    @property
    def generation(self) -> int:
        """Bumped on every change, so cached engines know to rebuild."""
        return self._generation

    def set(self, key: str, value: Any, persist: bool = False) -> None:
        """Change one setting for this process (``persist=True``, cognee's write to ``.env``,
        is refused: put the variable in your ``.env`` file)."""
        if persist:
            raise FeatureNotAvailableError(
                f"config.set({key!r}, ..., persist=True) is not available on engramdb; add "
                f"{key.upper()}=... to the .env file in the working directory"
            )
        name = key.lower()
        current = self.settings
        if name not in Settings.model_fields:
            raise ConfigurationError(
                f"unknown setting {key!r}; see engramdb.settings.Settings for the valid names"
            )
        data = current.model_dump()
        data[name] = value
        try:
            new = Settings.model_validate(data)
        except ValidationError as exc:
            raise ConfigurationError(_explain(exc)) from exc
        if name in DEFERRED_CHECKS:
            DEFERRED_CHECKS[name](getattr(new, name))
        with self._lock:
            self._settings = new
            self._generation += 1

    def get(self, key: str) -> Any:
        return getattr(self.settings, key.lower())

    def set_data_dir(self, path: str | Path) -> None:
        self.set("engramdb_data_dir", Path(path))

    def reset(self) -> None:
        """Forget run-time changes; the environment is read again on next use."""
        with self._lock:
            self._settings = None
            self._generation += 1


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "settings"
        parts.append(f"{loc.upper()}: {err['msg']} (got {err.get('input')!r})")
    return "invalid configuration: " + "; ".join(parts)


config = Config()


def get_settings() -> Settings:
    return config.settings
