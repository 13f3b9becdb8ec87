"""A separate process that remembers short notes one call at a time with the extraction queue
on: ``python -m tests.support.queue_worker DATA_DIR LLM_URL BATCH COUNT``. Prints ``QUEUED n``
after the first ``BATCH - 1`` remembers (their extraction queued), then remembers the rest; the
kill test of tests/integration/test_extraction_queue.py kills it."""

from __future__ import annotations

import asyncio
import sys

from tests.integration.test_extraction_queue import note


async def main(data_dir: str, url: str, batch: int, count: int) -> None:
    import engramdb

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("embedding_provider", "fake")
    engramdb.config.set("embedding_dimensions", 64)
    engramdb.config.set("llm_endpoint", url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    engramdb.config.set("llm_timeout", 120)
    engramdb.config.set("engramdb_extraction_batch_remembers", batch)
    engramdb.config.set("engramdb_extraction_batch_seconds", 0)
    queued = 0
    for i in range(count):
        result = await engramdb.remember(note(i), self_improvement=False)
        queued += result.counts.get("extraction_queued", 0)
        if i == count - 1 or i == batch - 2:
            print("QUEUED", queued, flush=True)
    await asyncio.sleep(3600)  # wait to be killed


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
