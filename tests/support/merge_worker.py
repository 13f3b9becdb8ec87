"""A separate process that merges duplicate entities in one transaction; the crash test runs it
with ``python -m tests.support.merge_worker DATA_DIR DATASET_ID`` and kills it mid-merge.

Every entity named ``"<name> (dup)"`` is merged into the entity named ``"<name>"``."""

from __future__ import annotations

import asyncio
import sys
from uuid import UUID

DUP = " (dup)"


async def main(data_dir: str, dataset_id: str) -> None:
    import engramdb
    from engramdb.engine import get_engine
    from engramdb.storage.base import EntityMerge, NodeRewrite

    engramdb.config.set("engramdb_data_dir", data_dir)
    store = get_engine().store
    await get_engine().ensure_setup()
    ds = UUID(dataset_id)
    entities = await store.list_nodes([ds], type="Entity", limit=1_000_000)
    by_name = {n.name: n for n in entities}
    merges = [
        EntityMerge(NodeRewrite(keep.id, keep.text, keep.properties), [dup.id])
        for name, dup in by_name.items()
        if name.endswith(DUP) and (keep := by_name.get(name.removesuffix(DUP))) is not None
    ]
    print("READY", len(merges), flush=True)
    report = await store.merge_entities(ds, merges)
    print("DONE", report.entities_merged, flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
