"""forget(): delete everything, a dataset, or one data item and all that only it supported."""

from __future__ import annotations

from uuid import UUID

from engramdb.access.permissions import check, own_dataset
from engramdb.engine import Engine
from engramdb.errors import (
    DataNotFoundError,
    DatasetNotFoundError,
    EngramValidationError,
    PermissionDeniedError,
)
from engramdb.ingest.queue import dequeue
from engramdb.models.records import Dataset, User
from engramdb.models.requests import ForgetRequest
from engramdb.models.results import ForgetResult
from engramdb.spelling import Term, option, verb
from engramdb.storage.base import DeleteReport, Store
from engramdb.storage.lending import dataset_lock
from engramdb.validation import validate_uuid

#: What forget() needs one of, named for every surface (see engramdb.spelling).
_ONE_OF: tuple[Term, ...] = (
    verb("forget"),
    option("everything"),
    option("dataset", "<name or id>", python="dataset=<name or id>"),
    option("data_id", "<id>", python="data_id=<id>"),
)

__all__ = ["forget"]


async def forget(engine: Engine, request: ForgetRequest) -> ForgetResult:
    """Delete exactly what is named, in one transaction per dataset or item.

    * ``everything=True``: every dataset the user owns, with all their contents, and every
      session of the user (questions, answers, ratings, traces, guidance).
    * ``dataset=``: one dataset (by name, owner-scoped, or by UUID: a dataset you own or hold
      a delete grant on; PermissionDeniedError otherwise, the same for an unknown UUID).
    * ``data_id=``: one ingested item; graph elements another item still supports are kept
      (an item in a dataset you may read but not delete from: PermissionDeniedError).

    Exactly one of them must be given. Each deletion waits for the dataset's lock, so it never
    interleaves with an ingestion of the same dataset.
    """
    everything, dataset, data_id, user = (
        request.everything,
        request.dataset,
        request.data_id,
        request.user,
    )
    chosen = sum([bool(everything), dataset is not None, data_id is not None])
    if chosen != 1:
        raise EngramValidationError("{0} needs exactly one of {1}, {2} or {3}", _ONE_OF)
    if not await engine.database_exists():
        return ForgetResult()
    owner = await engine.resolve_user(user)
    store = engine.store
    if everything:
        total = ForgetResult()
        for ds in await store.list_datasets(owner.id):
            total = _add(total, await _delete_dataset(engine, ds), datasets=1)
        # the user's conversations go too: they quote the memories just deleted
        deleted = [
            await store.delete_session(owner.id, s.session_id)
            for s in await store.list_sessions(owner.id)
        ]
        return total.model_copy(update={"sessions": sum(deleted)})
    if dataset is not None:
        ds = await _find_dataset(engine, owner, dataset)
        return _add(ForgetResult(), await _delete_dataset(engine, ds), datasets=1)
    item_id = validate_uuid(data_id, "data_id")
    record = await store.get_data(item_id)
    missing = DataNotFoundError(f"no data item {item_id} in your datasets")
    if record is None:
        raise missing
    owner_ds = await _item_dataset(store, owner, record.dataset_id, missing)
    async with store.lock(dataset_lock(owner_ds.id), timeout=engine.settings.engramdb_lock_timeout):
        report = await store.delete_data(item_id)
        await dequeue(store, owner_ds.id, [item_id])  # its queued extraction goes with it
    return _add(ForgetResult(), report)


async def _item_dataset(
    store: Store, owner: User, dataset_id: UUID, missing: DataNotFoundError
) -> Dataset:
    """The dataset of a data item the user may delete from. An item the user can neither read
    nor delete looks exactly like a missing one; a readable one is refused for its permission."""
    try:
        return await check(owner, dataset_id, "delete", store=store)
    except PermissionDeniedError as refused:
        try:
            await check(owner, dataset_id, "read", store=store)
        except PermissionDeniedError:
            raise missing from None
        raise refused from None


async def _find_dataset(engine: Engine, owner: User, ref: str | UUID) -> Dataset:
    store = engine.store
    found: Dataset | None
    if isinstance(ref, UUID):  # another user's dataset needs a delete grant (engramdb.access)
        return await check(owner, ref, "delete", store=store)
    else:
        found = await own_dataset(store, owner, ref)
    if found is None:
        raise DatasetNotFoundError(f"dataset {str(ref)!r} not found", missing=[str(ref)])
    return found


async def _delete_dataset(engine: Engine, ds: Dataset) -> DeleteReport:
    timeout = engine.settings.engramdb_lock_timeout
    async with engine.store.lock(dataset_lock(ds.id), timeout=timeout):
        return await engine.store.delete_dataset(ds.id)


def _add(total: ForgetResult, report: DeleteReport, datasets: int = 0) -> ForgetResult:
    return ForgetResult(
        datasets=total.datasets + datasets,
        data_records=total.data_records + report.data_records,
        nodes=total.nodes + report.nodes,
        edges=total.edges + report.edges,
        vectors=total.vectors + report.vectors,
    )
