"""A separate process that ingests synthetic documents; the crash and concurrency tests run it
with ``python -m tests.support.ingest_worker DATA_DIR DATASET FIRST LAST [rebuild]`` and kill it
or race two of it (``rebuild``: ``incremental_loading=False``, content present is built again)."""

from __future__ import annotations

import asyncio
import random
import sys

WORDS = [
    *("river", "mountain", "lantern", "orchard", "harbor", "violin", "meadow", "copper"),
    *("falcon", "glacier", "pepper", "canyon", "marble", "thunder", "willow", "saffron"),
    *("compass", "ember", "tundra", "velvet", "quartz", "beacon", "nectar", "prairie"),
]


def document(i: int) -> str:
    """Document ``i``: deterministic, unique, several paragraphs (a few chunks)."""
    rng = random.Random(i)
    paragraphs = []
    for p in range(6):
        words = " ".join(rng.choice(WORDS) for _ in range(60))
        paragraphs.append(f"Document {i} part {p}. {words}.")
    return "\n\n".join(paragraphs)


async def main(data_dir: str, dataset: str, first: int, last: int, rebuild: bool) -> None:
    import engramdb

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("embedding_provider", "fake")
    engramdb.config.set("embedding_dimensions", 64)
    engramdb.config.set("chunk_max_tokens", 64)
    docs = [document(i) for i in range(first, last)]
    print("READY", flush=True)
    result = await engramdb.remember(
        docs, dataset_name=dataset, self_improvement=False, incremental_loading=not rebuild
    )
    print("DONE", result.counts["documents"], result.counts["skipped"], flush=True)


if __name__ == "__main__":
    rebuild = sys.argv[5:] == ["rebuild"]
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), rebuild))
