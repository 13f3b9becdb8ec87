"""improve() on a 10k-chunk dataset with no sessions and no LLM (global context index only).

Run from the repository root::

    .venv/bin/python bench/improve.py                 # 10,000 chunks, 2 cores
    .venv/bin/python bench/improve.py --chunks 20000 --cores 0

The dataset is filled the way ``bench/recall_latency.py --graph`` fills it (``plan_document``
over synthetic extractions: 4 Zipf-distributed entities and 3 relations per chunk, 100 chunks
per document, random vectors), so no embedding model runs. Then it times, in a fresh engine:

* the first ``engramdb.improve()`` (builds every document's bucket and the dataset root),
* an immediate second call (``already_completed`` / ``no_writes_since_last_improve``),
* an incremental rebuild after one more document is added.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence

import numpy as np

from _common import format_table, isolated_engramdb, load_note, pin_cores, write_json
from recall_latency import CHUNKS_PER_DOC, DATASET, TextGenerator, populate


async def run(chunks: int) -> dict[str, float]:
    import engramdb
    from engramdb.engine import get_engine, set_engine

    gen, rng = TextGenerator(seed=7), np.random.default_rng(7)
    figures: dict[str, float] = {"chunks": chunks}
    async with isolated_engramdb("fake", fake_dimensions=384):
        figures["populate_s"] = await populate(gen, rng, 0, chunks, (60, 120), print, graph=True)
        await get_engine().close()
        set_engine(None)

        t0 = time.perf_counter()
        first = await engramdb.improve(DATASET)
        figures["first_s"] = time.perf_counter() - t0
        stage = first.stage("global_context_index")
        assert stage is not None and stage.status == "completed", first.stage_summary()
        figures["buckets"] = stage.counts["buckets"]

        seconds = []
        for _ in range(5):
            t0 = time.perf_counter()
            again = await engramdb.improve(DATASET)
            seconds.append(time.perf_counter() - t0)
            stage = again.stage("global_context_index")
            assert stage is not None and stage.status == "already_completed"
        figures["second_ms"] = 1000 * seconds[0]
        figures["second_ms_best_of_5"] = 1000 * min(seconds)

        await populate(gen, rng, chunks, chunks + CHUNKS_PER_DOC, (60, 120), print, graph=True)
        t0 = time.perf_counter()
        third = await engramdb.improve(DATASET)
        figures["after_one_more_doc_s"] = time.perf_counter() - t0
        stage = third.stage("global_context_index")
        assert stage is not None
        figures["rewritten_after_one_more_doc"] = stage.counts["written"]
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    cores = pin_cores(args.cores)
    print(f"cores {cores}; {load_note(len(cores) or 1)}")
    figures = asyncio.run(run(args.chunks))
    rows = [
        ("chunks", f"{int(figures['chunks']):,}"),
        ("documents indexed (buckets)", int(figures["buckets"])),
        ("populate (s, not improve)", f"{figures['populate_s']:.1f}"),
        ("improve, first build (s)", f"{figures['first_s']:.2f}"),
        ("improve, immediate second call (ms)", f"{figures['second_ms']:.1f}"),
        ("  best of 5 (ms)", f"{figures['second_ms_best_of_5']:.1f}"),
        ("improve after one more document (s)", f"{figures['after_one_more_doc_s']:.2f}"),
        ("  index nodes rewritten", int(figures["rewritten_after_one_more_doc"])),
    ]
    print(format_table(("measure", "value"), rows))
    write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
