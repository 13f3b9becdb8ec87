"""forget(): delete everything, a dataset, or one data item and all that only it supported."""

from __future__ import annotations

from uuid import UUID

from engramdb.engine import Engine, get_engine
from engramdb.errors import DataNotFoundError, DatasetNotFoundError, EngramValidationError
from engramdb.models.records import Dataset, User
from engramdb.models.results import ForgetResult
from engramdb.storage.base import DeleteReport
from engramdb.validation import validate_dataset_name, validate_uuid

__all__ = ["forget"]


async def forget(
    *,
    everything: bool = False,
    dataset: str | UUID | None = None,
    data_id: UUID | str | None = None,
    user: User | None = None,
) -> ForgetResult:
    """Delete exactly what is named, in one transaction per dataset or item.

    * ``everything=True``: every dataset the user owns, with all their contents.
    * ``dataset=``: one dataset (by name, owner-scoped, or by UUID).
    * ``data_id=``: one ingested item; graph elements another item still supports are kept.

    Exactly one of them must be given. Each deletion waits for the dataset's lock, so it never
    interleaves with an ingestion of the same dataset.
    """
    chosen = sum([bool(everything), dataset is not None, data_id is not None])
    if chosen != 1:
        raise EngramValidationError(
            "forget() needs exactly one of everything=True, dataset=<name or id> or data_id=<id>"
        )
    engine = get_engine()
    if not await engine.database_exists():
        return ForgetResult()
    owner = await engine.resolve_user(user)
    store = engine.store
    if everything:
        total = ForgetResult()
        for ds in await store.list_datasets(owner.id):
            total = _add(total, await _delete_dataset(engine, ds), datasets=1)
        return total
    if dataset is not None:
        ds = await _find_dataset(engine, owner, dataset)
        return _add(ForgetResult(), await _delete_dataset(engine, ds), datasets=1)
    item_id = validate_uuid(data_id, "data_id")
    record = await store.get_data(item_id)
    owner_ds = await store.get_dataset(record.dataset_id) if record else None
    if record is None or owner_ds is None or owner_ds.owner_id != owner.id:
        raise DataNotFoundError(f"no data item {item_id} in your datasets")
    async with store.lock(f"dataset:{owner_ds.id}", timeout=engine.settings.engramdb_lock_timeout):
        report = await store.delete_data(item_id)
    return _add(ForgetResult(), report)


async def _find_dataset(engine: Engine, owner: User, ref: str | UUID) -> Dataset:
    store = engine.store
    found: Dataset | None
    if isinstance(ref, UUID):
        found = await store.get_dataset(ref)
        if found is not None and found.owner_id != owner.id:
            found = None
    else:
        found = await store.find_dataset(owner.id, validate_dataset_name(ref))
    if found is None:
        raise DatasetNotFoundError(f"dataset {str(ref)!r} not found", missing=[str(ref)])
    return found


async def _delete_dataset(engine: Engine, ds: Dataset) -> DeleteReport:
    timeout = engine.settings.engramdb_lock_timeout
    async with engine.store.lock(f"dataset:{ds.id}", timeout=timeout):
        return await engine.store.delete_dataset(ds.id)


def _add(total: ForgetResult, report: DeleteReport, datasets: int = 0) -> ForgetResult:
    return ForgetResult(
        datasets=total.datasets + datasets,
        data_records=total.data_records + report.data_records,
        nodes=total.nodes + report.nodes,
        edges=total.edges + report.edges,
        vectors=total.vectors + report.vectors,
    )
