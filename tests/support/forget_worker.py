"""A separate process that forgets a whole dataset (one bulk transaction); the crash test runs
it with ``python -m tests.support.forget_worker DATA_DIR DATASET_ID`` and kills it mid-forget."""

from __future__ import annotations

import asyncio
import sys
from uuid import UUID


async def main(data_dir: str, dataset_id: str) -> None:
    import engramdb
    from engramdb.engine import get_engine

    engramdb.config.set("engramdb_data_dir", data_dir)
    store = get_engine().store
    await get_engine().ensure_setup()
    print("READY", flush=True)
    report = await store.delete_dataset(UUID(dataset_id))
    print("DONE", report.nodes, flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
