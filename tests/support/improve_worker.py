"""A separate process that runs one improve(); the improve fault tests run it with
``python -m tests.support.improve_worker DATA_DIR DATASET SESSION`` and race two of it or kill
it mid-run."""

from __future__ import annotations

import asyncio
import sys


async def main(data_dir: str, dataset: str, session: str) -> None:
    import engramdb

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("embedding_provider", "fake")
    engramdb.config.set("embedding_dimensions", 64)
    engramdb.config.set("chunk_max_tokens", 64)
    engramdb.config.set("personalization_enabled", True)
    print("READY", flush=True)
    result = await engramdb.improve(dataset, session_ids=[session])
    print("DONE", result.stage_summary(), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
