"""prune.prune_data() / prune.prune_system(): cognee's development resets, on one store.

cognee keeps its inputs as files, its graph and its vectors in separate databases, and its
users and datasets in a relational one; prune deletes some of them for EVERY user, without
permission checks (cognee says: development and tests only). engramdb keeps a document's data
record, chunks, graph and vectors in one transaction, so "the graph without its documents" does
not exist here: resetting the graph or the vectors deletes the built documents with them.
"""

from __future__ import annotations

from dataclasses import replace

from engramdb.engine import Engine
from engramdb.models.records import Dataset
from engramdb.models.requests.classic import PruneDataRequest, PruneSystemRequest
from engramdb.storage.lending import dataset_lock

__all__ = ["prune_data", "prune_system"]


async def prune_data(engine: Engine, request: PruneDataRequest) -> None:
    """Delete every stored input, of every user: each data item with everything built from it
    (chunks, graph, vectors, improve's artifacts), and every input that was added but not built
    yet. Each dataset is kept by name and owner (empty, with a new id) with its grants; users,
    API keys and sessions are kept. Nothing stored yet: nothing happens."""
    if not await engine.database_exists():
        return
    await engine.ensure_setup()
    for dataset in await engine.store.list_datasets():
        await _empty(engine, dataset, staged=True)
    engine.warmup_cache.forget()


async def prune_system(engine: Engine, request: PruneSystemRequest) -> None:
    """Reset the system databases, of every user.

    * ``graph`` or ``vector`` (default both): every built document of every dataset with its
      graph and vectors (one unit on engramdb); each dataset is kept by name and owner (with a
      new id) with its grants and the inputs added but not built yet;
    * ``metadata`` (default False): also every dataset itself, with its runs, grants, staged
      inputs and caches (users and API keys are kept; the default user is recreated anyway);
    * ``cache`` (default True): every session (questions, answers, ratings, traces, guidance).
    """
    if not await engine.database_exists():
        return
    await engine.ensure_setup()
    store = engine.store
    if request.metadata:
        await store.delete_everything()
    elif request.graph or request.vector:
        for dataset in await store.list_datasets():
            await _empty(engine, dataset, staged=False)
    if request.cache:
        for user in await store.list_users():
            for session in await store.list_sessions(user.id):
                await store.delete_session(user.id, session.session_id)
    engine.warmup_cache.forget()


async def _empty(engine: Engine, dataset: Dataset, *, staged: bool) -> None:
    """Delete the dataset with everything in it and create it again, empty, under its name and
    owner, with its grants (and, unless ``staged``, its added-but-not-built inputs). A new id:
    nothing built from the old contents (improve's artifacts included) can linger."""
    store = engine.store
    async with store.lock(dataset_lock(dataset.id), timeout=engine.settings.engramdb_lock_timeout):
        grants = await store.list_grants(dataset.id)
        kept = [] if staged else await store.list_staged(dataset.id)
        await store.delete_dataset(dataset.id)
    fresh = await store.recreate_dataset(dataset)
    for grant in grants:
        await store.add_grant(grant.model_copy(update={"dataset_id": fresh.id}))
    await store.stage_data([replace(item, dataset_id=fresh.id) for item in kept])
