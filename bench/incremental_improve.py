"""The automatic improve after a small remember() into a large dataset, forget, LLM calls.

Run from the repository root::

    .venv/bin/python bench/incremental_improve.py                  # 100,000 chunks, 2 cores
    .venv/bin/python bench/incremental_improve.py --chunks 20000 --documents 60

The dataset is filled the way ``bench/improve.py`` fills it (``plan_document`` over synthetic
extractions, 100 chunks per document, random vectors, straight into the store), then a first
``improve()`` builds the global context index. In a fresh engine it times:

* ``remember(text, self_improvement=False)`` and ``remember(text)`` (the automatic improve) of
  one small text each, best of a few, and their ratio, with the ``global_context_index``
  stage's own duration in the last automatic improve (``auto_index_stage_s``: the part that
  could grow with the dataset; the rest is the run's fixed cost: run record, stage reads);
* then, in another fresh engine (as a new process would), the first ``remember(text)``: its
  automatic improve loads the index state the first build persisted instead of rebuilding
  (``first_auto_improve_new_engine_s``, against ``first_improve_s``, the full build);
* ``forget(data_id=...)`` of one populated document, then ``forget(dataset=...)`` of it all.

The timed remembers embed with the fake embedder (``--embedder fake``, the default: the store's
and the improve's own cost) or with the default ONNX model (``--embedder onnx``: what a
remember() on the default configuration costs); the populated vectors are random either way.

Last, ``--documents`` separate ``remember()`` calls of one short text each into a fresh dataset
with an LLM (the local OpenAI-protocol server of ``tests/support/openai_server.py`` answering
every schema), then ``improve()``: chat requests the server received, per document.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from _common import format_table, isolated_engramdb, load_note, pin_cores, write_json
from recall_latency import DATASET, TextGenerator, populate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHAT = "chat/completions"


async def bind_fake(engine):  # type: ignore[no-untyped-def]
    """Record the fake embedder's model on the dataset first: populate() would record the ONNX
    model's name, and remember() with the fake embedder would then refuse the dataset."""
    owner = await engine.resolve_user(None)
    dataset = await engine.store.get_or_create_dataset(owner.id, DATASET)
    await engine.store.set_dataset_embedding(dataset.id, engine.embedder.model_name, 384)


async def _timed_remember(text: str, auto: bool) -> float:
    import engramdb

    t0 = time.perf_counter()
    await engramdb.remember(text, dataset_name=DATASET, self_improvement=auto)
    return time.perf_counter() - t0


async def large(chunks: int, repeats: int, embedder: str) -> dict[str, float]:
    import engramdb
    from engramdb.engine import get_engine, set_engine

    gen, rng = TextGenerator(seed=11), np.random.default_rng(11)
    figures: dict[str, float] = {"chunks": chunks}
    async with isolated_engramdb(embedder, fake_dimensions=384):
        if embedder == "fake":  # the ONNX model's name is what populate() records
            await bind_fake(get_engine())
        figures["populate_s"] = await populate(gen, rng, 0, chunks, (60, 120), print, graph=True)
        await get_engine().close()
        set_engine(None)
        t0 = time.perf_counter()
        await engramdb.improve(DATASET)
        figures["first_improve_s"] = time.perf_counter() - t0
        await _timed_remember("warm up the engine and the vector cache.", False)
        off, on = [], []
        for i in range(repeats):
            off.append(await _timed_remember(f"Plain note number {i}: {gen.chunk(40)}", False))
            on.append(await _timed_remember(f"Auto note number {i}: {gen.chunk(40)}", True))
        figures["remember_no_improve_s"] = min(off)
        figures["remember_auto_improve_s"] = min(on)
        figures["ratio"] = min(on) / min(off)
        last = (await engramdb.list_improve_runs(DATASET))[0]
        stage = next(s for s in last.stages if s.stage == "global_context_index")
        figures["auto_index_stage_s"] = (stage.duration_ms or 0.0) / 1000
        await get_engine().close()
        set_engine(None)
        first = await _timed_remember(f"First note of a new engine: {gen.chunk(40)}", True)
        figures["first_auto_improve_new_engine_s"] = first

        engine = get_engine()
        owner = await engine.resolve_user(None)
        dataset = await engine.store.find_dataset(owner.id, DATASET)
        assert dataset is not None
        one = next(iter(await engine.store.list_data(dataset.id)))
        t0 = time.perf_counter()
        await engramdb.forget(data_id=one.id)
        figures["forget_document_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        await engramdb.forget(dataset=DATASET)
        figures["forget_dataset_s"] = time.perf_counter() - t0
    return figures


async def llm_calls(documents: int) -> dict[str, float]:
    from tests.support.openai_server import OpenAIServer
    from tests.support.schema_answers import answer_chat

    import engramdb

    gen = TextGenerator(seed=5)
    with OpenAIServer() as server:
        server.set_default(CHAT, answer_chat)
        async with isolated_engramdb("fake", fake_dimensions=64, prefix="incremental-llm-"):
            engramdb.config.set("llm_endpoint", server.base_url)
            engramdb.config.set("llm_api_key", "bench")
            engramdb.config.set("llm_model", "bench-chat")
            try:
                t0 = time.perf_counter()
                for i in range(documents):
                    text = f"Alice Smith met Bob Jones in Paris on day {i}. {gen.chunk(30)}"
                    await engramdb.remember(text, dataset_name="llm_bench")
                seconds = time.perf_counter() - t0
                during = len(server.requests_to(CHAT))
                await engramdb.improve("llm_bench")
                total = len(server.requests_to(CHAT))
            finally:
                engramdb.config.set("llm_endpoint", "")
                engramdb.config.set("llm_api_key", "")
    return {
        "documents": documents,
        "llm_calls_during_remembers": during,
        "llm_calls_with_final_improve": total,
        "llm_calls_per_document": total / documents,
        "remember_s_per_document": seconds / documents,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--documents", type=int, default=60, help="separate LLM remembers (0: not measured)"
    )
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument(
        "--embedder",
        choices=("fake", "onnx"),
        default="fake",
        help="the timed remembers' embedder: fake (the store's own cost) or the default ONNX "
        "model (what a remember() on the default configuration costs)",
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    cores = pin_cores(args.cores)
    print(f"cores {cores}; {load_note(len(cores) or 1)}")
    figures: dict[str, float] = {}
    if not args.skip_large:
        figures.update(asyncio.run(large(args.chunks, args.repeats, args.embedder)))
    if args.documents < 0:
        parser.error("--documents must be 0 (not measured) or more")
    if args.documents:
        figures.update(asyncio.run(llm_calls(args.documents)))
    rows = [(k, f"{v:.3f}" if isinstance(v, float) else v) for k, v in figures.items()]
    print(format_table(("measure", "value"), rows))
    write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
