"""``EngramdbStore``: LangGraph's long-term memory store (``BaseStore``) on an engramdb Engine.

::

    from engramdb.integrations.langgraph import EngramdbStore

    store = EngramdbStore(data_dir="./memory", index={"fields": ["text"]})
    store.put(("memories", "user-1"), "food", {"text": "I am allergic to peanuts"})
    hits = store.search(("memories", "user-1"), query="what can't I eat?")
    graph = builder.compile(store=store)     # nodes receive it as ``store``

Each namespace is one engramdb dataset and each item one data item of it (see
:mod:`engramdb.integrations.langgraph._mapping`), so what an agent stores is also ordinary
engramdb memory: ``recall(...)``, ``visualize_graph()`` and ``forget()`` see it.

Semantics (those of LangGraph's ``InMemoryStore``, with the differences noted):

* ``put`` stores or replaces an item; ``value=None`` (``delete``) removes it. A replaced item
  keeps its ``created_at`` (``InMemoryStore`` resets it) and gets a new ``updated_at``; its old
  text is removed from the index, so no stale duplicate is ever found.
* ``get`` returns the ``Item`` or None. Values round-trip exactly through JSON: tuples come back
  as lists, and a value that is not JSON-serialisable is refused (EngramValidationError).
* ``search(namespace_prefix, query=None, filter=None, limit=10, offset=0)``: items of every
  namespace starting with the prefix whose value passes ``filter`` (equality, or ``$eq``,
  ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``; a dotted key names a nested field). With a
  ``query``, items are ranked by engramdb's CHUNKS recall (vector similarity) and carry
  ``score`` = 1 - cosine distance (higher is closer); items not indexed follow, unscored.
  Without a query, newest update first.
* Indexing: every item is embedded by the engine's embedder unless ``put(..., index=False)``.
  ``index={"fields": [...]}`` names the value fields embedded (LangGraph's path syntax, default
  ``["$"]``, the whole value); ``put(..., index=[...])`` overrides it per item. Each field text
  is its own chunk (its own vector; a long one is split further) and an item ranks by its best
  one, as in LangGraph's stores.
* ``list_namespaces(prefix=, suffix=, max_depth=, limit=100, offset=0)`` with ``"*"`` wildcards,
  sorted; a namespace whose last item was deleted is gone (its dataset is forgotten).
* TTL (``supports_ttl`` is True): ``put(..., ttl=minutes)`` makes an item expire that many
  minutes after it was last written or read; ``ttl=None`` keeps it until deleted, unless
  ``ttl_config={"default_ttl": ...}`` gives items put without a ``ttl`` one. ``get`` and
  ``search`` extend the expiry of what they return to now + its TTL unless
  ``refresh_ttl=False`` (default: ``ttl_config["refresh_on_read"]``, True). An expired item is
  never returned by ``get``/``search`` nor keeps its namespace listed, whether or not it was
  swept yet (LangGraph's ``omit_expired``, always on). :meth:`EngramdbStore.sweep_ttl` deletes
  the expired items; ``ttl_config["sweep_interval_minutes"]`` runs it periodically from the
  store's loop (:meth:`~EngramdbStore.start_ttl_sweeper`, :meth:`~EngramdbStore.stop_ttl_sweeper`).
  Expiries are kept apart from the documents, so a refresh never re-embeds (see
  :mod:`engramdb.integrations.langgraph._ttl`).

All calls of one store run on one background event loop (see
:class:`engramdb.integrations._loop.LoopThread`), so the sync methods work from sync nodes,
threads and inside a running loop alike. ``close()`` stops it (and closes the engine the store
opened itself).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Coroutine, Iterable
from pathlib import Path
from typing import Any
from uuid import UUID

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.integrations._loop import LoopThread
from engramdb.integrations.langgraph._chunker import FIELD_SPANS, FieldChunker, field_spans
from engramdb.integrations.langgraph._mapping import (
    FIELD_SEPARATOR,
    StoredItem,
    dataset_name,
    decode_dataset_name,
    index_fields,
    index_texts,
    is_store_dataset,
    item_data_id,
    matches_filter,
    matches_namespace,
)
from engramdb.integrations.langgraph._source import ItemsSource
from engramdb.integrations.langgraph._ttl import (
    STATE_KEY,
    Expiries,
    ReadBatch,
    check_ttl,
    check_ttl_config,
    utcnow,
)
from engramdb.migration.base import ImportedRecord
from engramdb.models.records import DataRecord, Dataset, User
from engramdb.models.search_type import SearchType
from engramdb.validation import MAX_TOP_K

__all__ = ["EngramdbStore"]

logger = logging.getLogger(__name__)


class EngramdbStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items live in engramdb (see the module docstring).

    ``engine``: the :class:`~engramdb.Engine` to use (driven from the store's own loop thread:
    on the PostgreSQL backend, whose connection pool belongs to one loop, give the store an
    engine of its own); when omitted the store opens one on ``data_dir`` (default:
    ``ENGRAMDB_DATA_DIR``) and closes it in :meth:`close`. ``index``: ``{"fields": [...]}``
    (``dims`` is accepted and ignored: the engine's embedder decides it; ``embed`` is refused,
    for the same reason). ``user``: the
    engramdb user owning the datasets (default user otherwise). ``dataset_prefix``: the first
    part of every dataset name this store writes. ``ttl_config``: LangGraph's ``TTLConfig``
    (``default_ttl`` minutes, ``refresh_on_read``, ``sweep_interval_minutes``: when set, the
    sweeper starts now and stops in :meth:`close`).
    """

    supports_ttl: bool = True

    __slots__ = (
        "_engine",
        "_fields",
        "_loop",
        "_namespaces",
        "_owner",
        "_owns_engine",
        "_prefix",
        "_resolved",
        "_sweeper",
        "_write_lock",
        "ttl_config",
    )

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        data_dir: str | Path | None = None,
        index: IndexConfig | None = None,
        user: User | None = None,
        dataset_prefix: str = "lgstore",
        ttl_config: TTLConfig | None = None,
    ) -> None:
        if engine is not None and data_dir is not None:
            raise EngramValidationError(
                "pass either engine= or data_dir= to EngramdbStore, not both"
            )
        self._fields = index_fields(index)
        self.ttl_config = check_ttl_config(ttl_config)
        if not dataset_prefix.isidentifier():
            raise EngramValidationError(
                f"dataset_prefix {dataset_prefix!r} must be letters, digits and '_' "
                "(not starting with a digit), e.g. 'lgstore'"
            )
        self._prefix = dataset_prefix
        self._owns_engine = engine is None
        self._engine = engine if engine is not None else Engine(data_dir=data_dir)
        self._owner: User | None = user
        self._resolved: User | None = None
        self._loop = LoopThread("engramdb-langgraph-store")
        #: Hashed dataset names -> their namespace (a pure function of the name, read once).
        self._namespaces: dict[str, tuple[str, ...]] = {}
        self._write_lock: asyncio.Lock | None = None
        self._sweeper: tuple[asyncio.Task[None], concurrent.futures.Future[None]] | None = None
        if self.ttl_config and self.ttl_config.get("sweep_interval_minutes"):
            self.start_ttl_sweeper()

    @property
    def engine(self) -> Engine:
        """The engine the items are stored in."""
        return self._engine

    # --- BaseStore --------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._loop.run(self._batch(list(ops)))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self._loop.arun(self._batch(list(ops)))

    def sweep_ttl(self) -> int:
        """Delete the expired items now (through the normal delete path); how many."""
        return self._loop.run(self._sweep())

    async def asweep_ttl(self) -> int:
        """Async :meth:`sweep_ttl`."""
        return await self._loop.arun(self._sweep())

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep every ``sweep_interval_minutes`` (default: ``ttl_config``'s) on the store's loop
        until :meth:`stop_ttl_sweeper` or :meth:`close`. Returns the sweeper's future (already
        done when no interval is configured); a sweeper already running is returned as is."""
        interval = check_ttl(
            sweep_interval_minutes
            if sweep_interval_minutes is not None
            else (self.ttl_config or {}).get("sweep_interval_minutes"),
            "sweep_interval_minutes",
        )
        if self._sweeper is not None and not self._sweeper[1].done():
            return self._sweeper[1]
        if interval is None:
            idle: concurrent.futures.Future[None] = concurrent.futures.Future()
            idle.set_result(None)
            return idle
        task = self._loop.run(_spawn(self._sweep_every(interval * 60.0)))
        ended: concurrent.futures.Future[None] = concurrent.futures.Future()
        task.add_done_callback(lambda _: ended.cancel())  # it ends only when cancelled
        self._sweeper = (task, ended)
        return ended

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper; whether it stopped within ``timeout`` seconds (True if none ran)."""
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is None:
            return True
        return self._loop.run(_cancel(sweeper[0], timeout))

    def close(self) -> None:
        """Stop the sweeper and the store's loop; close the engine when the store opened it
        (idempotent)."""
        self.stop_ttl_sweeper(timeout=10)
        if self._owns_engine and not self._engine.closed:
            self._loop.run(self._engine.close())
        self._loop.stop()

    def __enter__(self) -> EngramdbStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the batch, on the store's loop -----------------------------------------------------

    async def _batch(self, ops: list[Op]) -> list[Result]:
        owner = await self._user()
        results: list[Result] = [None] * len(ops)
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        reads = ReadBatch(utcnow(), self._expiries)
        # Reads see the store as it was before the batch's writes (as InMemoryStore's do).
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                results[i] = await self._get(owner, op, reads)
            elif isinstance(op, SearchOp):
                results[i] = await self._search(owner, op, reads)
            elif isinstance(op, ListNamespacesOp):
                results[i] = await self._list_namespaces(owner, op, reads)
            elif isinstance(op, PutOp):
                check_ttl(op.ttl)
                puts[(op.namespace, op.key)] = op  # the last put of a key wins
            else:
                raise ValueError(f"unknown store operation {type(op).__name__}")
        if reads.refresh:  # before the puts: a put of a read key sets its TTL afresh
            async with self._lock():
                await self._refresh(owner, reads.refresh)
        by_namespace: dict[tuple[str, ...], list[PutOp]] = {}
        for (namespace, _), op in puts.items():
            by_namespace.setdefault(namespace, []).append(op)
        if by_namespace:
            async with self._lock():  # concurrent puts of one key: the last one wins whole
                for namespace, namespace_puts in by_namespace.items():
                    await self._write(owner, namespace, namespace_puts)
        return results

    def _lock(self) -> asyncio.Lock:
        """The lock every write of this store holds (made on the store's loop, its user)."""
        if self._write_lock is None:
            self._write_lock = asyncio.Lock()
        return self._write_lock

    async def _expiries(self, dataset_id: UUID) -> Expiries:
        return Expiries.from_json(await self._engine.store.get_improve_state(dataset_id, STATE_KEY))

    async def _save_expiries(self, dataset_id: UUID, expiries: Expiries) -> None:
        await self._engine.store.set_improve_state(dataset_id, STATE_KEY, expiries.to_json())

    async def _refresh(self, owner: User, keys: dict[tuple[str, ...], set[str]]) -> None:
        """Extend the expiry of the items read (those with a TTL, not expired meanwhile)."""
        now = utcnow()
        for namespace, namespace_keys in keys.items():
            dataset = await self._engine.store.find_dataset(
                owner.id, dataset_name(self._prefix, namespace)
            )
            if dataset is None:
                continue
            expiries = await self._expiries(dataset.id)
            changed = [expiries.refresh(key, now) for key in sorted(namespace_keys)]
            if any(changed):
                await self._save_expiries(dataset.id, expiries)

    async def _sweep(self) -> int:
        """Delete every expired item, each through :meth:`_write` like a ``delete``."""
        owner = await self._user()
        swept = 0
        async with self._lock():
            now = utcnow()
            for dataset, namespace in await self._datasets(owner):
                expired = (await self._expiries(dataset.id)).expired_keys(now)
                if not expired:
                    continue
                present = [k for k in expired if await self._record(owner, namespace, k)]
                await self._write(owner, namespace, [PutOp(namespace, k, None) for k in expired])
                swept += len(present)
        return swept

    async def _sweep_every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                swept = await self._sweep()
            except Exception:  # a failed sweep is retried at the next interval
                logger.exception("EngramdbStore TTL sweep failed")
            else:
                logger.debug("EngramdbStore TTL sweep deleted %d item(s)", swept)

    async def _user(self) -> User:
        """The owner of the store's datasets (the database set up on first use)."""
        if self._resolved is None:
            self._resolved = await self._engine.resolve_user(self._owner)
        return self._resolved

    async def _record(self, owner: User, namespace: tuple[str, ...], key: str) -> DataRecord | None:
        if not await self._engine.database_exists():
            return None
        name = dataset_name(self._prefix, namespace)
        record = await self._engine.store.get_data(item_data_id(owner.id, name, key))
        if record is None:
            return None
        held = StoredItem.from_metadata(record.external_metadata)
        if held is None or held.namespace != namespace or held.key != key:
            return None
        return record

    async def _get(self, owner: User, op: GetOp, reads: ReadBatch) -> Item | None:
        record = await self._record(owner, op.namespace, op.key)
        held = None if record is None else StoredItem.from_metadata(record.external_metadata)
        if record is None or held is None:
            return None
        if (await reads.expiries(record.dataset_id)).expired(op.key, reads.now):
            return None
        if op.refresh_ttl:
            reads.refresh.setdefault(op.namespace, set()).add(op.key)
        item: Item = _item(held)
        return item

    async def _write(self, owner: User, namespace: tuple[str, ...], ops: list[PutOp]) -> None:
        """Replace (or delete) items of one namespace. Every value is checked before anything is
        written; the replaced items are forgotten, then the new ones remembered in one call."""
        name = dataset_name(self._prefix, namespace)
        now = utcnow()
        records: list[ImportedRecord] = []
        replaced: list[UUID] = []
        expiries: Expiries | None = None
        for op in ops:
            old = await self._record(owner, namespace, op.key)
            before = None if old is None else StoredItem.from_metadata(old.external_metadata)
            if old is not None:
                replaced.append(old.id)
                if expiries is None:
                    expiries = await self._expiries(old.dataset_id)
                if expiries.expired(op.key, now):
                    before = None  # an expired item is gone: its successor is a new item
            if op.value is None:
                continue
            fields = self._fields if op.index is None else (op.index or ())
            held = StoredItem(
                namespace=namespace,
                key=op.key,
                value=dict(op.value),
                created_at=now if before is None else before.created_at,
                updated_at=now,
                indexed=False,
            )
            held.to_metadata()  # refuses a value that is not JSON before the text is built
            texts = [] if op.index is False else index_texts(op.value, fields)
            held.indexed = bool(texts)
            texts = texts or [f"langgraph store item {op.key}"]
            records.append(
                ImportedRecord(
                    kind="memory",
                    external_id=op.key,
                    text=FIELD_SEPARATOR.join(texts),
                    metadata={
                        **held.to_metadata(),
                        FIELD_SPANS: field_spans(texts, FIELD_SEPARATOR),
                    },
                )
            )
        for data_id in replaced:
            await self._engine.forget(data_id=data_id, user=owner)
        if records:
            source = ItemsSource(records, owner.id, name)
            chunker = FieldChunker(max_tokens=self._engine.settings.chunk_max_tokens)
            await self._engine.remember(
                source, name, self_improvement=False, chunker=chunker, user=owner
            )
        elif replaced:
            await self._drop_if_empty(owner, name)
        await self._set_expiries(owner, name, ops)

    async def _set_expiries(self, owner: User, name: str, ops: list[PutOp]) -> None:
        """Record the TTL of each item just written (from now: the write has finished)."""
        dataset = await self._engine.store.find_dataset(owner.id, name)
        if dataset is None:  # its last item was deleted: the expiries went with it
            return
        expiries = await self._expiries(dataset.id)
        now = utcnow()
        changed = [expiries.set(op.key, None if op.value is None else op.ttl, now) for op in ops]
        if any(changed):
            await self._save_expiries(dataset.id, expiries)

    async def _drop_if_empty(self, owner: User, name: str) -> None:
        dataset = await self._engine.store.find_dataset(owner.id, name)
        if dataset is not None and not await self._engine.store.list_data(dataset.id):
            await self._engine.forget(dataset=dataset.id, user=owner)

    async def _datasets(self, owner: User) -> list[tuple[Dataset, tuple[str, ...]]]:
        """Every dataset of this store with its namespace, oldest first."""
        if not await self._engine.database_exists():
            return []
        found: list[tuple[Dataset, tuple[str, ...]]] = []
        for dataset in await self._engine.store.list_datasets(owner.id):
            if not is_store_dataset(self._prefix, dataset.name):
                continue
            namespace = decode_dataset_name(self._prefix, dataset.name)
            if namespace is None:
                namespace = await self._hashed_namespace(dataset)
            if namespace is not None:
                found.append((dataset, namespace))
        return found

    async def _hashed_namespace(self, dataset: Dataset) -> tuple[str, ...] | None:
        known = self._namespaces.get(dataset.name)
        if known is None:
            for record in await self._engine.store.list_data(dataset.id):
                held = StoredItem.from_metadata(record.external_metadata)
                if held is not None:
                    known = self._namespaces[dataset.name] = held.namespace
                    break
        return known

    async def _search(self, owner: User, op: SearchOp, reads: ReadBatch) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        candidates: list[tuple[DataRecord, StoredItem]] = []
        chunks = 0
        scope: list[UUID] = []
        for dataset, namespace in await self._datasets(owner):
            if namespace[: len(prefix)] != prefix:
                continue
            scope.append(dataset.id)
            expiries = await reads.expiries(dataset.id)
            for record in await self._engine.store.list_data(dataset.id):
                held = StoredItem.from_metadata(record.external_metadata)
                if held is None:
                    continue
                chunks += record.chunk_count  # an expired item's chunks still rank in recall
                if not expiries.expired(held.key, reads.now) and matches_filter(
                    held.value, op.filter
                ):
                    candidates.append((record, held))
        candidates.sort(key=lambda c: (c[1].updated_at, c[1].key), reverse=True)
        if not op.query or not candidates:
            found = [_item(h, SearchItem) for _, h in candidates[op.offset : op.offset + op.limit]]
            return reads.returned(op, found)
        scores = await self._ranked(owner, op, scope, chunks, candidates)
        # Items stored with index=False hold a placeholder text: never ranked by it.
        scored = [(scores.get(r.id), h) for r, h in candidates if h.indexed and r.id in scores]
        ranked: list[tuple[float | None, StoredItem]] = sorted(
            scored, key=lambda pair: pair[0] or 0.0, reverse=True
        )
        ranked.extend((None, h) for r, h in candidates if not (h.indexed and r.id in scores))
        page = ranked[op.offset : op.offset + op.limit]
        return reads.returned(op, [_item(held, SearchItem, score=score) for score, held in page])

    async def _ranked(
        self,
        owner: User,
        op: SearchOp,
        scope: list[UUID],
        chunks: int,
        candidates: list[tuple[DataRecord, StoredItem]],
    ) -> dict[UUID, float]:
        """Scores of the best chunks, read wider and wider until they rank enough of the
        candidates for the page (or every chunk was read)."""
        wanted = {r.id for r, h in candidates if h.indexed}
        needed = min(len(wanted), op.offset + op.limit)
        top_k = min(chunks, MAX_TOP_K, 4 * (op.offset + op.limit) + len(candidates) - len(wanted))
        while True:
            scores = await self._scores(owner, str(op.query), scope, top_k)
            if top_k >= min(chunks, MAX_TOP_K) or len(wanted & scores.keys()) >= needed:
                return scores
            top_k = min(chunks, MAX_TOP_K, top_k * 4)

    async def _scores(
        self, owner: User, query: str, scope: list[UUID], top_k: int
    ) -> dict[UUID, float]:
        """Similarity (1 - cosine distance) of each data item's best chunk to ``query``, among
        the ``top_k`` best chunks of the datasets."""
        if top_k <= 0:
            return {}
        results = await self._engine.recall(
            query,
            SearchType.CHUNKS,
            dataset_ids=scope,
            top_k=top_k,
            auto_route=False,
            user=owner,
        )
        best: dict[UUID, float] = {}
        for entry in results:
            data_id = (getattr(entry, "metadata", None) or {}).get("data_id")
            distance = getattr(entry, "score", None)
            if data_id is None or distance is None:
                continue
            key = UUID(str(data_id))
            best[key] = max(best.get(key, -1.0), 1.0 - float(distance))
        return best

    async def _list_namespaces(
        self, owner: User, op: ListNamespacesOp, reads: ReadBatch
    ) -> list[tuple[str, ...]]:
        namespaces = [
            ns for dataset, ns in await self._datasets(owner) if await self._live(dataset, reads)
        ]
        for condition in op.match_conditions or ():
            namespaces = [ns for ns in namespaces if matches_namespace(condition, ns)]
        if op.max_depth is not None:
            namespaces = list({ns[: op.max_depth] for ns in namespaces})
        return sorted(set(namespaces))[op.offset : op.offset + op.limit]

    async def _live(self, dataset: Dataset, reads: ReadBatch) -> bool:
        """Whether a namespace's dataset holds an item that has not expired."""
        expiries = await reads.expiries(dataset.id)
        if not expiries.expired_keys(reads.now):
            return True  # one row read; its items are listed only when some have expired
        for record in await self._engine.store.list_data(dataset.id):
            held = StoredItem.from_metadata(record.external_metadata)
            if held is not None and not expiries.expired(held.key, reads.now):
                return True
        return False


async def _spawn(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """``work`` as a task of the running loop (the store's)."""
    return asyncio.create_task(work)


async def _cancel(task: asyncio.Task[None], timeout: float | None) -> bool:
    """Cancel ``task``; whether it ended within ``timeout`` seconds."""
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=timeout)
    return bool(done)


def _item(held: StoredItem, cls: type[Item] = Item, *, score: float | None = None) -> Any:
    if cls is SearchItem:
        return SearchItem(
            namespace=held.namespace,
            key=held.key,
            value=held.value,
            created_at=held.created_at,
            updated_at=held.updated_at,
            score=score,
        )
    return Item(
        value=held.value,
        key=held.key,
        namespace=held.namespace,
        created_at=held.created_at,
        updated_at=held.updated_at,
    )
