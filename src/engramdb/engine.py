"""The Engine: one store, the providers, caches and background runs the verbs run on.

``engramdb.Engine(...)`` is public: an application may hold several, each on its own data
directory. The module-level verbs use a default engine, built lazily for the current settings
and replaced (the old one closed) when ``config.set`` changes them. That registry is the only
module-level mutable state of the library.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from engramdb.errors import (
    ConfigurationError,
    EmbeddingMismatchError,
    FeatureNotAvailableError,
    LLMNotConfiguredError,
)
from engramdb.ingest.queue import QueueTimers
from engramdb.models.records import Dataset, User
from engramdb.observability.metrics import background_finished, background_started
from engramdb.retrieval.registry import Retrievers
from engramdb.retrieval.warmup import WarmupCache
from engramdb.settings import Settings, config
from engramdb.verbs.bound import EngineNamespace, EngineVerb

if TYPE_CHECKING:
    from engramdb.archive import ExportReport, ImportReport
    from engramdb.extract.types import Extractor
    from engramdb.providers.embedding.base import Embedder
    from engramdb.providers.llm.base import LLM
    from engramdb.storage.base import Store
    from engramdb.sync import SyncEngine

__all__ = ["Engine", "get_engine", "open_store"]

logger = logging.getLogger(__name__)
T = TypeVar("T")


def open_store(url: str, *, vector_ann_threshold: int | None = None) -> Store:
    """The Store for a storage URL (``sqlite:///path`` or ``postgresql://...``);
    ``vector_ann_threshold`` is the SQLite store's ``ann_threshold`` (None: its default)."""
    if url.startswith("sqlite:///"):
        from engramdb.storage.sqlite import SqliteStore

        path = Path(url.removeprefix("sqlite:///"))
        if vector_ann_threshold is None:
            return SqliteStore(path)
        return SqliteStore(path, ann_threshold=vector_ann_threshold)
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
    """An explicit memory: one store, its providers, caches and background runs.

    ::

        async with engramdb.Engine(data_dir="./memory") as mem:
            await mem.remember("Owls hunt at night.")
            results = await mem.recall("When do owls hunt?")

    Every verb of the module-level API is a method here with the same signature
    (``mem.remember``, ``mem.recall``, ``mem.improve``, ``mem.forget``, ``mem.get_graph``, ...;
    the session verbs as ``mem.session.add_feedback`` ...).
    Two engines on two data directories work side by side in one process. ``close()`` (or
    leaving the ``async with`` block) waits for the engine's background runs, then releases the
    store's connections and the providers; the engine cannot be used after that.

    ``settings`` defaults to the current :data:`engramdb.config`; ``data_dir`` and
    ``storage_url`` override its ``ENGRAMDB_DATA_DIR`` / ``ENGRAMDB_STORAGE_URL``.
    """

    remember = EngineVerb("remember")
    recall = EngineVerb("recall")
    improve = EngineVerb("improve")
    forget = EngineVerb("forget")
    list_datasets = EngineVerb("list_datasets")
    get_graph = EngineVerb("get_graph")
    get_node = EngineVerb("get_node")
    visualize_graph = EngineVerb("visualize_graph")
    list_conflicts = EngineVerb("list_conflicts")
    list_improve_runs = EngineVerb("list_improve_runs")
    resolve_conflict = EngineVerb("resolve_conflict")
    remember_skill = EngineVerb("remember_skill")
    remember_skills = EngineVerb("remember_skills")
    load_skill = EngineVerb("load_skill")
    create_user = EngineVerb("create_user")
    list_users = EngineVerb("list_users")
    create_api_key = EngineVerb("create_api_key")
    list_api_keys = EngineVerb("list_api_keys")
    revoke_api_key = EngineVerb("revoke_api_key")
    grant = EngineVerb("grant")
    revoke = EngineVerb("revoke")
    list_grants = EngineVerb("list_grants")
    add = EngineVerb("add")
    cognify = EngineVerb("cognify")
    search = EngineVerb("search")
    delete = EngineVerb("delete")
    update = EngineVerb("update")
    add_data_points = EngineVerb("add_data_points")
    create_tenant = EngineVerb("create_tenant")
    list_tenants = EngineVerb("list_tenants")
    add_user_to_tenant = EngineVerb("add_user_to_tenant")
    select_tenant = EngineVerb("select_tenant")
    create_role = EngineVerb("create_role")
    add_user_to_role = EngineVerb("add_user_to_role")
    register_sql_connection = EngineVerb("register_sql_connection")
    list_sql_connections = EngineVerb("list_sql_connections")
    remove_sql_connection = EngineVerb("remove_sql_connection")
    propose_sql_write = EngineVerb("propose_sql_write")
    list_write_proposals = EngineVerb("list_write_proposals")
    apply_write_proposal = EngineVerb("apply_write_proposal")
    reject_write_proposal = EngineVerb("reject_write_proposal")

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        data_dir: str | Path | None = None,
        storage_url: str | None = None,
        store: Store | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = _with_overrides(
            settings or config.settings, data_dir=data_dir, storage_url=storage_url
        )
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._llm_built = llm is not None
        self._extractor = extractor
        self._extractor_built = extractor is not None
        self._setup_done = False
        self._exists = False
        self._closed = False
        self._build_lock = threading.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Warm-up verdicts and retriever instances of this engine's recalls.
        self.warmup_cache = WarmupCache()
        self.retrievers = Retrievers()
        #: Age timers of the extraction queue (engramdb.ingest.queue); close() extracts it.
        self.queue_timers = QueueTimers()

    @property
    def session(self) -> EngineNamespace:
        """The session verbs on this engine (``await mem.session.get_session("chat-1")``)."""
        return EngineNamespace(self, "engramdb.session")

    @property
    def prune(self) -> EngineNamespace:
        """cognee's resets on this engine (``await mem.prune.prune_system(metadata=True)``)."""
        return EngineNamespace(self, "engramdb.prune")

    @property
    def datasets(self) -> EngineNamespace:
        """cognee's ``datasets`` verbs on this engine (``await mem.datasets.list_data(id)``)."""
        return EngineNamespace(self, "engramdb.datasets")

    def sync(self) -> SyncEngine:
        """This engine with blocking verbs, on a private event-loop thread of its own (see
        :mod:`engramdb.sync`)::

            with engramdb.Engine(data_dir="./memory").sync() as mem:
                mem.remember("Owls hunt at night.")
                results = mem.recall("When do owls hunt?")

        Use the engine through the returned object only; closing it closes the engine."""
        from engramdb.sync import SyncEngine

        return SyncEngine(self)

    async def export_archive(self, dest: str | Path, **options: Any) -> ExportReport:
        """:func:`engramdb.export_archive` of this engine's store (same options)."""
        from engramdb.archive import export_archive

        return await export_archive(dest, engine=self, **options)

    async def import_archive(self, src: str | Path, **options: Any) -> ImportReport:
        """:func:`engramdb.import_archive` into this engine's store (same options)."""
        from engramdb.archive import import_archive

        return await import_archive(src, engine=self, **options)

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigurationError(
                "this Engine was closed; create a new engramdb.Engine(...) to use the data "
                "directory again"
            )

    @property
    def store(self) -> Store:
        with self._build_lock:
            self._check_open()
            if self._store is None:
                self._store = open_store(
                    self.settings.storage_url,
                    vector_ann_threshold=self.settings.engramdb_vector_ann_threshold,
                )
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

    def extractor_for(
        self, custom_prompt: str | None, graph_model: object = None
    ) -> Extractor | None:
        """The extractor of one ingestion (cognee's ``remember/cognify(custom_prompt=...,
        graph_model=...)``): with ``graph_model``, the LLM extraction into that schema
        (``custom_prompt`` is its prompt); else :attr:`extractor`, asked to follow
        ``custom_prompt`` when one is given. Both steer an LLM: without one they raise
        LLMNotConfiguredError rather than being ignored."""
        if graph_model is not None:
            from engramdb.extract.schema import schema_extractor

            return schema_extractor(self.llm, graph_model, custom_prompt)
        extractor = self.extractor
        if custom_prompt is None:
            return extractor
        from engramdb.extract.llm import LLMExtractor

        if not isinstance(extractor, LLMExtractor):
            raise LLMNotConfiguredError.needed_for(
                "custom_prompt tells an LLM what to extract",
                "leave custom_prompt out to build the graph with the offline extractor",
            )
        return extractor.with_instructions(custom_prompt)

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

    def spawn(self, work: Coroutine[Any, Any, T], *, name: str) -> asyncio.Task[T]:
        """Run ``work`` in the background on the running loop; :meth:`close` waits for it."""
        self._check_open()
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # The background-runs gauge, by kind: "engramdb-<kind>-<id>" names the kind.
        kind = name.removeprefix("engramdb-").split("-", 1)[0]
        background_started(kind)
        task.add_done_callback(lambda _t: background_finished(kind))
        return task

    async def wait_for_background_tasks(self, timeout: float | None = None) -> bool:
        """Wait until every background run of this engine on the running loop has finished
        (runs started while waiting too). True when all finished; False when ``timeout``
        seconds passed first (nothing is cancelled). Failures are not raised here: each run
        reports its own (``await result.wait()``, ``datasets.get_status``)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + max(0.0, timeout)
        while pending := [t for t in self._tasks if not t.done() and t.get_loop() is loop]:
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return False
            await asyncio.wait(pending, timeout=remaining)
        return True

    async def close(self) -> None:
        """Wait for the background runs, then release the store and the providers (idempotent)."""
        if self._closed:
            return
        await self.queue_timers.close(self)
        loop = asyncio.get_running_loop()
        while pending := [t for t in self._tasks if not t.done() and t.get_loop() is loop]:
            await asyncio.gather(*pending, return_exceptions=True)
        self._closed = True
        store, embedder, llm = self._store, self._embedder, self._llm
        self._store = self._embedder = self._llm = None
        self.warmup_cache = WarmupCache()
        if store is not None:
            await store.close()
        if embedder is not None:
            await embedder.close()
        closer = getattr(llm, "close", None)
        if closer is not None:
            await closer()

    @property
    def closed(self) -> bool:
        return self._closed


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
#: Close tasks of replaced engines (kept referenced until they finish).
_retiring: set[asyncio.Task[None]] = set()


def _with_overrides(
    settings: Settings, *, data_dir: str | Path | None, storage_url: str | None
) -> Settings:
    update: dict[str, Any] = {}
    if data_dir is not None:
        update["engramdb_data_dir"] = Path(data_dir)
    if storage_url is not None:
        update["engramdb_storage_url"] = storage_url
    if not update:
        return settings
    try:
        return type(settings).model_validate({**settings.model_dump(), **update})
    except ValidationError as exc:
        raise ConfigurationError(f"invalid Engine arguments: {exc.errors()[0]['msg']}") from exc


def get_engine() -> Engine:
    """The engine for the current settings, rebuilt after ``config.set``."""
    global _current
    with _registry_lock:
        generation = config.generation
        if _current is None or _current[0] != generation:
            if _current is not None:
                _retire(_current[1])
            _current = (generation, Engine(config.settings))
        return _current[1]


def _retire(engine: Engine) -> None:
    """Close an engine the registry replaces (after ``config.set``): on the running loop when
    there is one, else right away."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        try:
            asyncio.run(engine.close())
        except Exception:  # fail-open: a replaced engine that cannot close must not break the new
            logger.warning("could not close the replaced engine", exc_info=True)
        return
    task = loop.create_task(engine.close(), name="engramdb-close-replaced-engine")
    _retiring.add(task)
    task.add_done_callback(_retired)


def _retired(task: asyncio.Task[None]) -> None:
    _retiring.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.warning("could not close the replaced engine: %r", task.exception())


async def close_default_engine() -> None:
    """Close the default engine and drop it (the next :func:`get_engine` opens a new one): what
    a program's event loop should do before it ends, so that no connection-pool task of the
    engine outlives the loop (``engramdb run-cognee`` does it after each ``asyncio.run``)."""
    global _current
    with _registry_lock:
        current, _current = _current, None
    if current is not None:
        await current[1].close()


def set_engine(engine: Engine | None) -> None:
    """Install an engine (tests, embedding applications) or drop the current one."""
    global _current
    with _registry_lock:
        _current = None if engine is None else (config.generation, engine)
