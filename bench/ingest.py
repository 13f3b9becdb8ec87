"""Ingestion throughput of ``engramdb.remember``, with the fake and the ONNX embedder.

Run from the repository root::

    .venv/bin/python bench/ingest.py
    .venv/bin/python bench/ingest.py --chunks-fake 5000 --chunks-onnx 600 --small-calls 300
    .venv/bin/python bench/ingest.py --skip-onnx

Synthetic documents are made of seeded random sentences over a fixed word list; each paragraph
is sized to become one chunk (~150-250 model tokens), so ``chunks`` is known in advance. Each
embedder is measured twice: one ``remember`` call with the whole list, and many small calls of
one paragraph each. With the fake embedder (hashing, no model) the figure is the pipeline's own
overhead (chunking, bookkeeping, SQLite writes); with ONNX it is compared with the embedder's
own throughput on the same chunk texts, measured in the same run (``embed`` in batches of 32).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from _common import (
    current_rss_mb,
    format_table,
    isolated_engramdb,
    load_note,
    peak_rss_mb,
    percentile,
    pin_cores,
    random_paragraph,
    write_json,
)

#: Paragraph length in words: with this word list that is ~150-250 tokens for both the
#: WordPiece tokenizer and the fake embedder's counter (words + punctuation), so one
#: paragraph is one chunk under the default CHUNK_MAX_TOKENS=256.
PARAGRAPH_WORDS = (140, 215)
FAKE_TARGET_CHUNKS_PER_S = 500.0
ONNX_TARGET_RATIO = 0.8


def make_documents(rng: random.Random, n_chunks: int, paragraphs_per_doc: int) -> list[str]:
    docs: list[str] = []
    remaining = n_chunks
    while remaining > 0:
        k = min(paragraphs_per_doc, remaining)
        docs.append("\n\n".join(random_paragraph(rng, *PARAGRAPH_WORDS) for _ in range(k)))
        remaining -= k
    return docs


@dataclass(slots=True)
class Run:
    embedder: str
    mode: str
    calls: int = 0
    documents: int = 0
    chunks: int = 0
    vectors: int = 0
    seconds: float = 0.0
    stages: dict[str, float] = field(
        default_factory=lambda: {"chunk": 0.0, "embed": 0.0, "write": 0.0, "total": 0.0}
    )
    call_seconds: list[float] = field(default_factory=list)

    def add(self, counts: dict[str, int], timings: dict[str, float], seconds: float) -> None:
        self.calls += 1
        self.documents += int(counts.get("documents", 0))
        self.chunks += int(counts.get("chunks", 0))
        self.vectors += int(counts.get("vectors", 0))
        for key, value in timings.items():  # new pipeline stages show up as they appear
            self.stages[key] = self.stages.get(key, 0.0) + float(value)
        self.call_seconds.append(seconds)

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds if self.seconds else float("nan")

    def row(self) -> list[object]:
        other = self.seconds - sum(self.stages[k] for k in ("chunk", "embed", "write"))
        return [
            f"{self.embedder}: {self.mode}",
            self.calls,
            self.documents,
            self.chunks,
            self.vectors,
            f"{self.seconds:.2f}",
            f"{self.chunks_per_s:.1f}",
            f"{self.stages['chunk']:.2f}",
            f"{self.stages['embed']:.2f}",
            f"{self.stages['write']:.2f}",
            f"{other:.2f}",
            f"{percentile(self.call_seconds, 50) * 1000:.1f}",
        ]

    def summary(self) -> dict[str, Any]:
        return {
            "embedder": self.embedder,
            "mode": self.mode,
            "calls": self.calls,
            "documents": self.documents,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "seconds": self.seconds,
            "chunks_per_s": self.chunks_per_s,
            "stage_seconds": self.stages,
            "call_p50_ms": percentile(self.call_seconds, 50) * 1000,
            "call_p95_ms": percentile(self.call_seconds, 95) * 1000,
        }


@dataclass(slots=True)
class EmbedderFigures:
    name: str
    model: str = ""
    texts: int = 0
    mean_tokens: float = 0.0
    peak_rss_mb: float = 0.0
    #: One bulk remember() per round (each into a fresh dataset) and the embedder alone on the
    #: same chunk texts in the same round; the best round of each is reported.
    bulk_rounds: list[Run] = field(default_factory=list)
    embed_seconds: list[float] = field(default_factory=list)
    #: The same, with the texts sorted by token count first (least padding: the embedder's
    #: best case, and a stricter yardstick than the stored order).
    sorted_seconds: list[float] = field(default_factory=list)
    small: Run | None = None
    rss_after_mb: float = 0.0

    @property
    def bulk(self) -> Run:
        return max(self.bulk_rounds, key=lambda r: r.chunks_per_s)

    @property
    def embedder_chunks_per_s(self) -> float:
        best = min(self.embed_seconds)
        return self.texts / best if best else float("nan")

    @property
    def sorted_chunks_per_s(self) -> float:
        best = min(self.sorted_seconds)
        return self.texts / best if best else float("nan")

    @property
    def ratio(self) -> float:
        return self.bulk.chunks_per_s / self.embedder_chunks_per_s

    @property
    def sorted_ratio(self) -> float:
        return self.bulk.chunks_per_s / self.sorted_chunks_per_s

    def round_ratios(self) -> list[float]:
        return [
            r.chunks_per_s / (self.texts / sec)
            for r, sec in zip(self.bulk_rounds, self.embed_seconds, strict=True)
        ]


async def _bulk(docs: list[str], dataset: str, label: str, embedder: str) -> tuple[Run, Any]:
    import engramdb

    run = Run(embedder, label)
    t0 = time.perf_counter()
    res = await engramdb.remember(docs, dataset_name=dataset, self_improvement=False)
    run.seconds = time.perf_counter() - t0
    run.add(res.counts, res.timings, run.seconds)
    return run, res


async def _embed_alone(emb: Any, texts: list[str]) -> float:
    t0 = time.perf_counter()
    for start in range(0, len(texts), 32):
        await emb.embed(texts[start : start + 32])
    return time.perf_counter() - t0


async def measure(
    embedder: str,
    *,
    chunks: int,
    paragraphs_per_doc: int,
    small_calls: int,
    rounds: int,
    seed: int,
    fake_dimensions: int,
) -> EmbedderFigures:
    import engramdb
    from engramdb.engine import get_engine
    from engramdb.models.records import NodeType

    rng = random.Random(seed)
    bulk_docs = make_documents(rng, chunks, paragraphs_per_doc)
    small_docs = [random_paragraph(rng, *PARAGRAPH_WORDS) for _ in range(small_calls)]
    figures = EmbedderFigures(embedder)
    label = f"1 call, {len(bulk_docs)} docs"
    async with isolated_engramdb(embedder, fake_dimensions=fake_dimensions, prefix="ingest-"):
        engine = get_engine()
        emb = engine.embedder
        figures.model = emb.model_name
        # Load the model (ONNX: hash + session) before anything is timed.
        await emb.embed(["warm up the embedder before timing"])

        # Round 0 stores the chunks whose texts the embedder-alone runs embed.
        run, res = await _bulk(bulk_docs, "bench_bulk_0", label, embedder)
        figures.bulk_rounds.append(run)
        nodes = await engine.store.list_nodes(
            [res.dataset_id], type=NodeType.CHUNK, limit=run.chunks + 1000
        )
        nodes.sort(key=lambda n: (n.properties.get("data_id", ""), n.properties["chunk_index"]))
        texts = [n.text for n in nodes]
        counts = {t: emb.count_tokens(t) for t in texts}
        by_length = sorted(texts, key=counts.__getitem__)
        figures.texts = len(texts)
        figures.mean_tokens = sum(counts.values()) / max(len(texts), 1)
        figures.embed_seconds.append(await _embed_alone(emb, texts))
        figures.sorted_seconds.append(await _embed_alone(emb, by_length))
        for r in range(1, rounds):
            # Alternate the order so drift in machine load hits both sides alike.
            if r % 2:
                figures.embed_seconds.append(await _embed_alone(emb, texts))
                figures.sorted_seconds.append(await _embed_alone(emb, by_length))
                run, _ = await _bulk(bulk_docs, f"bench_bulk_{r}", label, embedder)
            else:
                run, _ = await _bulk(bulk_docs, f"bench_bulk_{r}", label, embedder)
                figures.sorted_seconds.append(await _embed_alone(emb, by_length))
                figures.embed_seconds.append(await _embed_alone(emb, texts))
            figures.bulk_rounds.append(run)

        small = Run(embedder, f"{len(small_docs)} calls, 1 doc each")
        started = time.perf_counter()
        for doc in small_docs:
            t0 = time.perf_counter()
            res_small = await engramdb.remember(
                doc, dataset_name="bench_small", self_improvement=False
            )
            small.add(res_small.counts, res_small.timings, time.perf_counter() - t0)
        small.seconds = time.perf_counter() - started
        figures.small = small
        figures.rss_after_mb = current_rss_mb()
    figures.peak_rss_mb = peak_rss_mb()
    return figures


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks-fake", type=int, default=2000)
    parser.add_argument("--chunks-onnx", type=int, default=300)
    parser.add_argument("--paragraphs-per-doc", type=int, default=4)
    parser.add_argument("--small-calls", type=int, default=200, help="separate 1-chunk calls")
    parser.add_argument(
        "--rounds", type=int, default=3, help="bulk + embedder-alone rounds (best is reported)"
    )
    parser.add_argument("--skip-fake", action="store_true")
    parser.add_argument("--skip-onnx", action="store_true")
    parser.add_argument("--fake-dimensions", type=int, default=384)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--cores", type=int, default=2, help="pin to N cores (0 = all)")
    parser.add_argument("--json", dest="json_path", metavar="OUT.json")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cores = pin_cores(args.cores)
    wall = time.perf_counter()
    plan = [("fake", args.chunks_fake, args.skip_fake), ("onnx", args.chunks_onnx, args.skip_onnx)]
    print(
        f"engramdb ingestion throughput — cores: {len(cores)} {cores}; paragraphs of "
        f"{PARAGRAPH_WORDS[0]}-{PARAGRAPH_WORDS[1]} words, {args.paragraphs_per_doc} per "
        f"document; best of {args.rounds} rounds"
    )
    machine = load_note(len(cores))
    print(machine)
    results: list[EmbedderFigures] = []
    for name, chunks, skip in plan:
        if skip:
            continue
        t0 = time.perf_counter()
        figures = asyncio.run(
            measure(
                name,
                chunks=chunks,
                paragraphs_per_doc=args.paragraphs_per_doc,
                small_calls=args.small_calls,
                rounds=max(args.rounds, 1),
                seed=args.seed,
                fake_dimensions=args.fake_dimensions,
            )
        )
        results.append(figures)
        print(
            f"  [{time.perf_counter() - wall:6.1f}s] {name}: done in "
            f"{time.perf_counter() - t0:.1f}s",
            flush=True,
        )

    print(
        "\nremember() throughput (seconds = wall time around the calls; vectors = texts the "
        "pipeline embedded and stored; stage columns are the sums of res.timings; other = "
        "seconds - chunk - embed - write)"
    )
    extra_stages = sorted(
        {k for f in results for r in f.bulk_rounds for k in r.stages}
        - {"chunk", "embed", "write", "total"}
    )
    rows = []
    for f in results:
        rows.append(f.bulk.row())
        if f.small is not None:
            rows.append(f.small.row())
    print(
        format_table(
            [
                "run",
                "calls",
                "docs",
                "chunks",
                "vectors",
                "seconds",
                "chunks/s",
                "chunk s",
                "embed s",
                "write s",
                "other s",
                "call p50 ms",
            ],
            rows,
        )
    )
    if extra_stages:
        for f in results:
            runs = [f.bulk] + ([f.small] if f.small else [])
            parts = "; ".join(
                f"{r.mode}: " + ", ".join(f"{k} {r.stages.get(k, 0.0):.2f} s" for k in extra_stages)
                for r in runs
            )
            print(f"  other stages reported by res.timings ({f.name}) — {parts}")

    print(
        "\nEmbedder alone: embed() in batches of 32 on the bulk call's chunk texts, in stored "
        "order and sorted by token count (least padding)"
    )
    emb_rows = []
    for f in results:
        emb_rows.append(
            [
                f"{f.name} ({f.model})",
                f.texts,
                f"{f.mean_tokens:.0f}",
                f"{f.embedder_chunks_per_s:.1f}",
                f"{f.sorted_chunks_per_s:.1f}",
                f"{f.bulk.chunks_per_s:.1f}",
                f"{f.ratio:.2f}",
                f"{f.sorted_ratio:.2f}",
                f"{f.rss_after_mb:.0f}",
                f"{f.peak_rss_mb:.0f}",
            ]
        )
    print(
        format_table(
            [
                "embedder",
                "chunks",
                "tokens/chunk",
                "alone/s",
                "sorted/s",
                "pipeline/s",
                "ratio",
                "ratio (sorted)",
                "RSS MB",
                "peak RSS MB",
            ],
            emb_rows,
        )
    )
    print(
        "(chunks/s, best round each; ratio = pipeline / embedder alone; RSS = VmRSS at the end "
        "of that embedder's runs, peak = the process's high-water mark so far)"
    )
    for f in results:
        pipe = ", ".join(f"{r.chunks_per_s:.1f}" for r in f.bulk_rounds)
        alone = ", ".join(f"{f.texts / sec:.1f}" for sec in f.embed_seconds)
        ordered = ", ".join(f"{f.texts / sec:.1f}" for sec in f.sorted_seconds)
        print(
            f"{f.name} rounds, chunks/s — pipeline: [{pipe}]; alone: [{alone}]; "
            f"alone sorted: [{ordered}]"
        )

    print("\nTargets")
    for f in results:
        bulk = f.bulk
        if f.name == "fake":
            ok = bulk.chunks_per_s >= FAKE_TARGET_CHUNKS_PER_S
            net = bulk.seconds - bulk.stages["embed"]
            print(
                f"  fake, one call: {bulk.chunks_per_s:.0f} chunks/s "
                f"(target >= {FAKE_TARGET_CHUNKS_PER_S:.0f}): {'met' if ok else 'NOT met'}; "
                f"without the fake embedder's own {bulk.stages['embed']:.2f} s: "
                f"{bulk.chunks / net:.0f} chunks/s"
            )
        else:
            ok = f.ratio >= ONNX_TARGET_RATIO
            print(
                f"  onnx, one call: {bulk.chunks_per_s:.1f} chunks/s = {f.ratio:.2f} x the "
                f"embedder alone (target >= {ONNX_TARGET_RATIO}): {'met' if ok else 'NOT met'}; "
                f"{f.sorted_ratio:.2f} x its length-sorted best case"
            )
    elapsed = time.perf_counter() - wall
    print(f"\npeak RSS: {peak_rss_mb():.0f} MB; wall time: {elapsed:.1f} s")
    machine_end = load_note(len(cores), "at end")
    print(machine_end)

    write_json(
        args.json_path,
        {
            "benchmark": "ingest_throughput",
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "machine_at_start": machine,
            "machine_at_end": machine_end,
            "cores": len(cores),
            "paragraph_words": list(PARAGRAPH_WORDS),
            "paragraphs_per_doc": args.paragraphs_per_doc,
            "rounds": args.rounds,
            "embedders": [
                {
                    "embedder": f.name,
                    "model": f.model,
                    "bulk_best": f.bulk.summary(),
                    "bulk_rounds": [r.summary() for r in f.bulk_rounds],
                    "small_calls": f.small.summary() if f.small else None,
                    "embedder_alone": {
                        "chunks": f.texts,
                        "mean_tokens": f.mean_tokens,
                        "seconds_per_round": f.embed_seconds,
                        "best_chunks_per_s": f.embedder_chunks_per_s,
                        "sorted_seconds_per_round": f.sorted_seconds,
                        "sorted_best_chunks_per_s": f.sorted_chunks_per_s,
                    },
                    "pipeline_over_embedder": f.ratio,
                    "pipeline_over_sorted_embedder": f.sorted_ratio,
                    "rss_after_mb": f.rss_after_mb,
                    "ratio_per_round": f.round_ratios(),
                    "peak_rss_mb": f.peak_rss_mb,
                }
                for f in results
            ],
            "wall_seconds": elapsed,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
