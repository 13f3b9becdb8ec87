"""Read-only views of engramdb's settings under cognee's config names.

cognee programs read their configuration through ``get_llm_config()``, ``get_cache_config()``,
``get_relational_config()``, ``get_graph_config()`` and ``get_vectordb_config()``, each an
lru-cached settings object, and call ``get_x_config.cache_clear()`` after changing the
environment. Here each is built from :data:`engramdb.config` on every call, so it is never
stale; ``cache_clear()`` exists for those programs and has nothing to clear. The views are
frozen: change settings with ``engramdb.config.set(...)`` (or cognee's ``cognee.config``
setters where engramdb maps them).

engramdb keeps relational data, the graph, the vectors and the sessions in ONE store (the
embedded SQLite file or PostgreSQL), so the provider of every view is that store's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from engramdb.settings import Settings, config

__all__ = [
    "CacheConfig",
    "GraphConfig",
    "LLMConfig",
    "MigrationConfig",
    "RelationalConfig",
    "VectorConfig",
    "ViewFunction",
    "get_cache_config",
    "get_graph_config",
    "get_llm_config",
    "get_migration_config",
    "get_relational_config",
    "get_vectordb_config",
]

V = TypeVar("V")


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()


class ViewFunction(Generic[V]):
    """A ``get_x_config()`` function: a fresh view of the settings on each call."""

    def __init__(self, build: Callable[[Settings], V], name: str, doc: str) -> None:
        self._build = build
        self.__name__ = self.__qualname__ = name
        self.__doc__ = doc

    def __call__(self) -> V:
        return self._build(config.settings)

    def cache_clear(self) -> None:
        """Nothing to clear: every call reads the current settings (module docstring)."""


def _provider(settings: Settings) -> str:
    return "postgres" if settings.storage_url.startswith(("postgresql:", "postgres:")) else "sqlite"


class RelationalConfig(_View):
    db_provider: str
    db_path: str
    db_name: str
    db_host: str | None = None
    db_port: str | None = None
    db_username: str | None = None
    #: Never echoed (it is part of ENGRAMDB_STORAGE_URL when one is set).
    db_password: str | None = None


def _relational(settings: Settings) -> RelationalConfig:
    if _provider(settings) == "sqlite":
        path = settings.storage_url.removeprefix("sqlite:///")
        folder, _, name = path.rpartition("/")
        return RelationalConfig(db_provider="sqlite", db_path=folder, db_name=name)
    url = urlsplit(settings.storage_url)
    return RelationalConfig(
        db_provider="postgres",
        db_path="",
        db_name=url.path.lstrip("/"),
        db_host=url.hostname,
        db_port=str(url.port) if url.port else None,
        db_username=url.username,
    )


class GraphConfig(_View):
    graph_database_provider: str
    graph_file_path: str
    graph_database_url: str = ""
    graph_database_name: str = ""


def _graph(settings: Settings) -> GraphConfig:
    rel = _relational(settings)
    if rel.db_provider == "sqlite":
        return GraphConfig(
            graph_database_provider="sqlite",
            graph_file_path=settings.storage_url.removeprefix("sqlite:///"),
            graph_database_name=rel.db_name,
        )
    return GraphConfig(
        graph_database_provider="postgres", graph_file_path="", graph_database_name=rel.db_name
    )


class VectorConfig(_View):
    vector_db_provider: str
    vector_db_url: str = ""
    vector_db_name: str = ""
    embedding_provider: str
    embedding_model: str
    embedding_dimensions: int


def _vector(settings: Settings) -> VectorConfig:
    rel = _relational(settings)
    return VectorConfig(
        vector_db_provider=rel.db_provider,
        vector_db_name=rel.db_name,
        embedding_provider=settings.embedding_provider,
        embedding_model=settings.embedding_model,
        embedding_dimensions=settings.embedding_dimensions,
    )


class CacheConfig(_View):
    """cognee keeps sessions in a cache (Redis, files or SQLite, ``CACHING`` on or off);
    engramdb keeps them in its store, always on and durable (no TTL)."""

    caching: bool = True
    cache_backend: str
    auto_feedback: bool
    session_ttl_seconds: int | None = None
    usage_logging: bool = False
    shared_kuzu_lock: bool = False
    shared_ladybug_lock: bool = False


def _cache(settings: Settings) -> CacheConfig:
    return CacheConfig(cache_backend=settings.cache_backend, auto_feedback=settings.auto_feedback)


class LLMConfig(_View):
    llm_provider: str
    llm_model: str
    llm_endpoint: str
    #: Never echoed: "" when unset, "***" when set.
    llm_api_key: str
    llm_api_version: str | None = None
    llm_temperature: float = 0.0
    llm_streaming: bool = False
    llm_max_concurrency: int
    llm_timeout: float
    llm_max_retries: int
    structured_output_framework: str = "engramdb"
    embedding_provider: str
    embedding_model: str
    embedding_endpoint: str
    embedding_dimensions: int


def _llm(settings: Settings) -> LLMConfig:
    return LLMConfig(
        llm_provider=settings.llm_provider,
        llm_model=settings.llm_model,
        llm_endpoint=settings.llm_endpoint,
        llm_api_key="***" if settings.llm_api_key else "",
        llm_max_concurrency=settings.llm_max_concurrency,
        llm_timeout=settings.llm_timeout,
        llm_max_retries=settings.llm_max_retries,
        embedding_provider=settings.embedding_provider,
        embedding_model=settings.embedding_model,
        embedding_endpoint=settings.embedding_endpoint,
        embedding_dimensions=settings.embedding_dimensions,
    )


get_relational_config = ViewFunction(
    _relational, "get_relational_config", "The store's connection, under cognee's DB_* names."
)
get_graph_config = ViewFunction(
    _graph, "get_graph_config", "Where the graph lives (the same store), cognee's names."
)
get_vectordb_config = ViewFunction(
    _vector, "get_vectordb_config", "Where the vectors live (the same store), cognee's names."
)
get_cache_config = ViewFunction(
    _cache, "get_cache_config", "Session storage, under cognee's cache-config names."
)
get_llm_config = ViewFunction(
    _llm, "get_llm_config", "The LLM and embedding settings, under cognee's LLM_* names."
)


#: The settings behind MigrationConfig's attributes (the reference's MIGRATION_DB_* variables).
MIGRATION_FIELDS = (
    "migration_db_path",
    "migration_db_name",
    "migration_db_host",
    "migration_db_port",
    "migration_db_username",
    "migration_db_password",
    "migration_db_provider",
)


class MigrationConfig:
    """cognee's ``get_migration_config()``: the relational database that
    ``migrate_relational_database`` reads. Unlike the other views it is writable, as cognee's
    programs set its attributes: reading an attribute reads the setting of the same name,
    assigning one is ``engramdb.config.set(name, value)``."""

    def __getattr__(self, name: str) -> Any:
        if name in MIGRATION_FIELDS:
            return getattr(config.settings, name)
        raise AttributeError(f"MigrationConfig has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in MIGRATION_FIELDS:
            raise AttributeError(
                f"MigrationConfig has no attribute {name!r}; the settings are "
                + ", ".join(MIGRATION_FIELDS)
            )
        config.set(name, None if value is None else str(value))

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(config.settings, name) for name in MIGRATION_FIELDS}

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.to_dict().items() if k != "migration_db_password"}
        return f"MigrationConfig({shown})"


get_migration_config = ViewFunction(
    lambda _settings: MigrationConfig(),
    "get_migration_config",
    "The relational database migrate_relational_database reads (MIGRATION_DB_*), writable.",
)
