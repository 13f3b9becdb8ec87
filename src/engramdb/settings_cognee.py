"""cognee's ``config`` setters on engramdb's one settings object (``engramdb.config``).

What maps onto a setting is set (and validated like its environment variable); what engramdb
does not have raises :class:`FeatureNotAvailableError` naming what to use instead. engramdb
keeps the graph, the vectors and the metadata in ONE store: the embedded SQLite file under the
data directory, or PostgreSQL (with pgvector) at ``ENGRAMDB_STORAGE_URL``. So the embedded
providers cognee ships (Kuzu, Ladybug, NetworkX, LanceDB on a local path, SQLite) are accepted
and mean "the embedded store"; ``postgres`` / ``pgvector`` with connection details set
``engramdb_storage_url``; servers engramdb cannot use (Neo4j, Neptune, FalkorDB, Memgraph, Qdrant,
Weaviate, ChromaDB, LanceDB Cloud, S3 paths...) are refused.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from engramdb.errors import ConfigurationError, FeatureNotAvailableError

if TYPE_CHECKING:
    from engramdb.settings import Settings

__all__ = ["CogneeSetters"]

#: What engramdb stores its graph, vectors and metadata in; named by every refusal.
_STORES = (
    "engramdb keeps graph, vectors and metadata in one store: the embedded one (the default, "
    "under the data directory) or PostgreSQL with pgvector via ENGRAMDB_STORAGE_URL "
    "(or set_relational_db_config({'db_provider': 'postgres', ...}))"
)
#: cognee's embedded providers: all of them mean engramdb's embedded store.
_EMBEDDED_GRAPH = frozenset({"kuzu", "ladybug", "networkx", "sqlite"})
_EMBEDDED_VECTOR = frozenset({"lancedb", "sqlite"})
_POSTGRES = frozenset({"postgres", "postgresql", "pgvector"})
#: cognee's embedding providers -> engramdb's (None: refused, with the advice).
_EMBEDDING_PROVIDERS: dict[str, str | None] = {
    "onnx": "onnx",
    "openai": "openai",
    "fake": "fake",
    "fastembed": None,
    "ollama": None,
    "litellm": None,
    "azure": None,
    "gemini": None,
    "mistral": None,
}
_EMBEDDING_ADVICE = (
    "engramdb embeds with its packaged ONNX model (EMBEDDING_PROVIDER=onnx, all-MiniLM-L6-v2, "
    "offline) or any OpenAI-compatible endpoint (EMBEDDING_PROVIDER=openai with "
    "EMBEDDING_ENDPOINT, e.g. Ollama's /v1)"
)
#: Keys of cognee's connection dicts -> the part of a PostgreSQL URL they give.
_PG_KEYS = {
    "db_host": "host",
    "db_port": "port",
    "db_name": "name",
    "db_username": "user",
    "db_password": "password",
    "vector_db_host": "host",
    "vector_db_port": "port",
    "vector_db_name": "name",
    "vector_db_username": "user",
    "vector_db_password": "password",
    "graph_database_host": "host",
    "graph_database_port": "port",
    "graph_database_name": "name",
    "graph_database_username": "user",
    "graph_database_password": "password",
}


class CogneeSetters(ABC):
    """cognee's ``config.set_*`` methods, written over the three members that
    :class:`engramdb.settings.Config` provides."""

    @property
    @abstractmethod
    def settings(self) -> Settings:
        """The settings in effect."""

    @abstractmethod
    def set(self, key: str, value: Any, persist: bool = False) -> None:
        """Change one setting."""

    @abstractmethod
    def set_data_dir(self, path: str | Path) -> None:
        """Change the data directory."""

    # -- directories ---------------------------------------------------------------------------
    def data_root_directory(self, data_root_directory: str | Path) -> None:
        """engramdb's data directory (one directory holds the store and nothing else)."""
        self.set_data_dir(data_root_directory)

    def system_root_directory(self, system_root_directory: str | Path) -> None:
        """engramdb's data directory (as :meth:`data_root_directory`)."""
        self.set_data_dir(system_root_directory)

    # -- LLM -----------------------------------------------------------------------------------
    def set_llm_provider(self, llm_provider: str) -> None:
        self.set("llm_provider", llm_provider)

    def set_llm_endpoint(self, llm_endpoint: str) -> None:
        self.set("llm_endpoint", llm_endpoint)

    def set_llm_model(self, llm_model: str) -> None:
        self.set("llm_model", llm_model)

    def set_llm_api_key(self, llm_api_key: str) -> None:
        self.set("llm_api_key", llm_api_key)

    def set_llm_config(self, config_dict: Mapping[str, Any]) -> None:
        """Several ``llm_*`` settings at once (each key is a setting's name)."""
        self._set_many(config_dict, "llm_", "set_llm_config")

    # -- embeddings ----------------------------------------------------------------------------
    def set_embedding_provider(self, embedding_provider: str) -> None:
        name = str(embedding_provider).strip().lower()
        ours = _EMBEDDING_PROVIDERS.get(name)
        if ours is None:
            raise FeatureNotAvailableError(
                f"embedding provider {embedding_provider!r} is not available on engramdb; "
                f"{_EMBEDDING_ADVICE}"
            )
        self.set("embedding_provider", ours)

    def set_embedding_model(self, embedding_model: str) -> None:
        self.set("embedding_model", embedding_model)

    def set_embedding_dimensions(self, embedding_dimensions: int | str) -> None:
        try:
            value = int(embedding_dimensions)
        except (TypeError, ValueError):
            raise ConfigurationError("embedding_dimensions must be a positive integer.") from None
        if value <= 0:
            raise ConfigurationError("embedding_dimensions must be a positive integer.")
        self.set("embedding_dimensions", value)

    def set_embedding_endpoint(self, embedding_endpoint: str) -> None:
        self.set("embedding_endpoint", embedding_endpoint)

    def set_embedding_api_key(self, embedding_api_key: str) -> None:
        self.set("embedding_api_key", embedding_api_key)

    def set_embedding_config(self, config_dict: Mapping[str, Any]) -> None:
        """Several ``embedding_*`` settings at once (each key is a setting's name)."""
        values = dict(config_dict)
        if "embedding_provider" in values:
            self.set_embedding_provider(values.pop("embedding_provider"))
        if "embedding_dimensions" in values:
            self.set_embedding_dimensions(values.pop("embedding_dimensions"))
        self._set_many(values, "embedding_", "set_embedding_config")

    # -- chunking ------------------------------------------------------------------------------
    def set_chunk_size(self, chunk_size: int) -> None:
        """The chunk token budget (``chunk_max_tokens``)."""
        self.set("chunk_max_tokens", chunk_size)

    def set_chunk_overlap(self, chunk_overlap: int) -> None:
        self.set("chunk_overlap_tokens", chunk_overlap)

    def set_chunk_strategy(self, chunk_strategy: object) -> None:
        raise FeatureNotAvailableError(
            "config.set_chunk_strategy() is not available on engramdb; pass "
            "cognify(chunker=TextChunker | TextChunkerWithOverlap | CsvChunker)"
        )

    def set_chunk_engine(self, chunk_engine: object) -> None:
        raise FeatureNotAvailableError(
            "config.set_chunk_engine() is not available on engramdb; pass cognify(chunker=...)"
        )

    # -- what engramdb decides itself ----------------------------------------------------------
    def set_graph_model(self, graph_model: object) -> None:
        raise FeatureNotAvailableError(
            "config.set_graph_model() is not available on engramdb; engramdb extracts its own "
            "entity graph (see cognify)"
        )

    def set_classification_model(self, classification_model: object) -> None:
        raise FeatureNotAvailableError(
            "config.set_classification_model() is not available on engramdb; documents are "
            "classified by their file type"
        )

    def set_summarization_model(self, summarization_model: object) -> None:
        raise FeatureNotAvailableError(
            "config.set_summarization_model() is not available on engramdb; summaries come "
            "from the configured LLM (LLM_*) or the offline summariser"
        )

    def monitoring_tool(self, monitoring_tool: object) -> None:
        raise FeatureNotAvailableError(
            "config.monitoring_tool() is not available on engramdb; engramdb emits "
            "OpenTelemetry spans and Prometheus metrics of its own"
        )

    # -- recall --------------------------------------------------------------------------------
    def set_recall_warmup_shortcircuit(self, recall_warmup_shortcircuit: bool) -> None:
        self.set("recall_warmup_shortcircuit", recall_warmup_shortcircuit)

    def set_recall_warmup_threshold(self, recall_warmup_threshold: int) -> None:
        self.set("recall_warmup_threshold", recall_warmup_threshold)

    def set_recall_config(self, config_dict: Mapping[str, Any]) -> None:
        self._set_many(config_dict, "recall_", "set_recall_config")

    # -- storage -------------------------------------------------------------------------------
    def set_graph_database_provider(self, graph_database_provider: str) -> None:
        self._provider(graph_database_provider, _EMBEDDED_GRAPH, "graph database")

    def set_vector_db_provider(self, vector_db_provider: str) -> None:
        self._provider(vector_db_provider, _EMBEDDED_VECTOR, "vector database")

    def set_graph_db_config(self, config_dict: Mapping[str, Any]) -> None:
        self._database(config_dict, "graph_database_provider", _EMBEDDED_GRAPH, "graph database")

    def set_vector_db_config(self, config_dict: Mapping[str, Any]) -> None:
        self._database(config_dict, "vector_db_provider", _EMBEDDED_VECTOR, "vector database")

    def set_relational_db_config(self, config_dict: Mapping[str, Any]) -> None:
        self._database(config_dict, "db_provider", frozenset({"sqlite"}), "relational database")

    def set_vector_db_url(self, db_url: str) -> None:
        self._database({"vector_db_url": db_url}, "vector_db_provider", _EMBEDDED_VECTOR, "")

    def set_vector_db_key(self, db_key: str) -> None:
        raise FeatureNotAvailableError(f"config.set_vector_db_key() has no use here: {_STORES}")

    # -- helpers -------------------------------------------------------------------------------
    def _set_many(self, values: Mapping[str, Any], prefix: str, setter: str) -> None:
        from engramdb.settings import Settings

        known = [k for k in Settings.model_fields if k.startswith(prefix)]
        for key, value in values.items():
            if key.lower() not in known:
                raise FeatureNotAvailableError(
                    f"config.{setter}(): {key!r} is not a setting of engramdb; the ones it "
                    f"has are: {', '.join(known)}"
                )
            self.set(key, value)

    def _provider(self, name: str, embedded: frozenset[str], what: str) -> None:
        provider = str(name).strip().lower()
        if provider in embedded:
            return  # cognee's embedded store: engramdb's embedded store holds it
        if provider in _POSTGRES:
            if not self.settings.storage_url.startswith("postgres"):
                raise ConfigurationError(
                    f"{what} provider {name!r} needs the PostgreSQL connection: set "
                    "ENGRAMDB_STORAGE_URL=postgresql://user:password@host:port/db, or call "
                    "set_relational_db_config({'db_provider': 'postgres', 'db_host': ..., "
                    "'db_port': ..., 'db_name': ..., 'db_username': ..., 'db_password': ...})"
                )
            return
        raise FeatureNotAvailableError(
            f"{what} provider {name!r} is not available on engramdb; {_STORES}"
        )

    def _database(
        self, values: Mapping[str, Any], provider_key: str, embedded: frozenset[str], what: str
    ) -> None:
        provider = str(values.get(provider_key) or "").strip().lower()
        url = str(values.get("vector_db_url") or values.get("graph_database_url") or "")
        parts = {_PG_KEYS[k]: str(v) for k, v in values.items() if k in _PG_KEYS and v}
        if provider in _POSTGRES or (not provider and parts.get("host")):
            if "host" in parts:
                self.set("engramdb_storage_url", _postgres_url(parts))
            self._provider(provider or "postgres", embedded, what or "vector database")
            return
        if provider:
            self._provider(provider, embedded, what)
        if url and (url.startswith(("postgres://", "postgresql://"))):
            self.set("engramdb_storage_url", url)
        elif url and "://" in url:
            raise FeatureNotAvailableError(
                f"a {what or 'database'} at {url.split('://')[0]}:// is not available on "
                f"engramdb; {_STORES}"
            )


def _postgres_url(parts: Mapping[str, str]) -> str:
    user = quote(parts.get("user", ""), safe="")
    password = quote(parts.get("password", ""), safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{auth}{parts['host']}{port}/{parts.get('name', 'postgres')}"
