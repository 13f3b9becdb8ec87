"""The Engine: one store, the providers and the settings the verbs run on.

An engine is built lazily for the current settings and rebuilt when ``config.set`` changes them.
The registry in this module is the only module-level mutable state of the library.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from engramdb.errors import ConfigurationError, EmbeddingMismatchError, FeatureNotAvailableError
from engramdb.models.records import Dataset, User
from engramdb.settings import Settings, config

if TYPE_CHECKING:
    from engramdb.extract.types import Extractor
    from engramdb.providers.embedding.base import Embedder
    from engramdb.providers.llm.base import LLM
    from engramdb.storage.base import Store

__all__ = ["Engine", "get_engine", "open_store"]

logger = logging.getLogger(__name__)


def open_store(url: str) -> Store:
    """The Store for a storage URL (``sqlite:///path`` or ``postgresql://...``)."""
    if url.startswith("sqlite:///"):
        from engramdb.storage.sqlite import SqliteStore

        return SqliteStore(Path(url.removeprefix("sqlite:///")))
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from engramdb.storage.postgres import PostgresStore
        except ImportError as exc:
            raise FeatureNotAvailableError(
                "the PostgreSQL backend needs psycopg 3 and psycopg-pool: install them with "
                "pip install 'engramdb[postgres]' (or unset ENGRAMDB_STORAGE_URL to use the "
                "embedded SQLite store)"
            ) from exc
        return PostgresStore(url)
    raise ConfigurationError(
        f"ENGRAMDB_STORAGE_URL {url!r} is not understood; use sqlite:///path/to/file, "
        "postgresql://user:password@host:5432/dbname, or leave it empty for the embedded default"
    )


class Engine:
    """Owns the store and providers for one configuration."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = settings
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._llm_built = llm is not None
        self._extractor = extractor
        self._extractor_built = extractor is not None
        self._setup_done = False
        self._exists = False
        self._build_lock = threading.Lock()

    @property
    def store(self) -> Store:
        with self._build_lock:
            if self._store is None:
                self._store = open_store(self.settings.storage_url)
            return self._store

    @property
    def embedder(self) -> Embedder:
        with self._build_lock:
            if self._embedder is None:
                from engramdb.providers.embedding.factory import build_embedder

                self._embedder = build_embedder(self.settings)
            return self._embedder

    @property
    def llm(self) -> LLM | None:
        """The configured LLM (answers cached in the store), or None when none is configured."""
        with self._build_lock:
            built = self._llm_built
        if not built:
            from engramdb.providers.llm.cache import StoreResponseCache
            from engramdb.providers.llm.factory import build_llm

            llm = build_llm(self.settings, cache=StoreResponseCache(self.store))
            with self._build_lock:
                self._llm, self._llm_built = llm, True
        return self._llm

    @property
    def extractor(self) -> Extractor | None:
        """The graph extractor remember() uses: the LLM one (falling back to the offline one
        chunk by chunk) when an LLM is configured, else the offline one; None when
        ENGRAMDB_OFFLINE_EXTRACTOR=none and no LLM is configured."""
        with self._build_lock:
            if self._extractor_built:
                return self._extractor
        from engramdb.extract.factory import build_offline_extractor

        choice = self.settings.engramdb_offline_extractor
        offline = None if choice == "none" else build_offline_extractor(choice)
        llm = self.llm
        extractor: Extractor | None = offline
        if llm is not None:
            from engramdb.extract.llm import LLMExtractor

            fallback = offline or build_offline_extractor("heuristic")
            extractor = LLMExtractor(llm, fallback=fallback)
        with self._build_lock:
            self._extractor, self._extractor_built = extractor, True
        return extractor

    async def database_exists(self) -> bool:
        """Whether the database was created (remember() ran once). A True answer is remembered,
        so read paths do not open a probe connection on every call; False is asked again."""
        if not self._exists:
            self._exists = await self.store.exists()
        return self._exists

    async def ensure_setup(self) -> None:
        """Create the database and apply migrations (once per engine; idempotent anyway)."""
        if not self._setup_done:
            await self.store.setup()
            self._setup_done = True

    async def resolve_user(self, user: User | None) -> User:
        """The given user, or the default user (created on first use)."""
        await self.ensure_setup()
        if user is not None:
            return user
        return await self.store.get_or_create_default_user()

    async def bind_embedding(self, dataset: Dataset, embedder: Embedder | None = None) -> Dataset:
        """Record the embedder on the dataset, or refuse when the dataset was built with another."""
        emb = embedder or self.embedder
        stored = await self.store.set_dataset_embedding(dataset.id, emb.model_name, emb.dimension)
        check_embedding(stored, emb)
        return stored

    async def close(self) -> None:
        if self._store is not None:
            await self._store.close()
        if self._embedder is not None:
            await self._embedder.close()


def check_embedding(dataset: Dataset, embedder: Embedder) -> None:
    """Raise when ``dataset`` holds vectors of another model or dimension than ``embedder``."""
    if dataset.embedding_model is None:
        return
    if dataset.embedding_model != embedder.model_name or dataset.embedding_dim != (
        embedder.dimension
    ):
        raise EmbeddingMismatchError(
            f"dataset {dataset.name!r} was built with embedding model "
            f"{dataset.embedding_model!r} (dimension {dataset.embedding_dim}), but the configured "
            f"embedder is {embedder.model_name!r} (dimension {embedder.dimension}); configure "
            "the original model (EMBEDDING_PROVIDER / EMBEDDING_MODEL / EMBEDDING_DIMENSIONS) or "
            "forget the dataset and remember it again"
        )


_registry_lock = threading.Lock()
_current: tuple[int, Engine] | None = None


def get_engine() -> Engine:
    """The engine for the current settings, rebuilt after ``config.set``."""
    global _current
    with _registry_lock:
        generation = config.generation
        if _current is None or _current[0] != generation:
            _current = (generation, Engine(config.settings))
        return _current[1]


def set_engine(engine: Engine | None) -> None:
    """Install an engine (tests, embedding applications) or drop the current one."""
    global _current
    with _registry_lock:
        _current = None if engine is None else (config.generation, engine)
