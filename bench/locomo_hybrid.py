"""LoCoMo evidence recall of the HYBRID_COMPLETION and TEMPORAL contexts, plus hybrid latency.

Run from the repository root::

    .venv/bin/python bench/locomo_hybrid.py                      # ONNX, all 5 conversations
    .venv/bin/python bench/locomo_hybrid.py --latency-chunks 100000
    .venv/bin/python bench/locomo_hybrid.py --embedder fake --limit-conversations 1

The data, the metric and the BM25 baselines are those of ``bench/locomo.py`` (imported, not
copied): every session is one document (``external_metadata`` holds its date), every question of
category != 5 is asked against its conversation's dataset. Each context is scored two ways:

* **items**: the ranked context entries :func:`hybrid_context_items` returns (passages in final
  order), read in rank order within the budget — the strict reading: ONE passage must hold
  >= 80 % of an evidence turn's content words;
* **prompt**: the ``only_context=True`` recall result — one item, the exact user prompt
  (question, then the rendered context) — within the budget plus 60 words for the prompt
  template, as the reference's context-only figures were measured
  (/work/shared/REFERENCE-FIGURES.md).

Latency is measured per question around ``hybrid_context_items`` (retrieval alone) and around
the full ``retrieve(only_context=True)``. ``--latency-chunks N`` also fills a synthetic store of
N chunks (``bench/recall_latency.py``'s generator: random vectors, Zipf text, no entities or
summaries) and times hybrid retrieval there.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from _common import (
    format_table,
    isolated_engramdb,
    latency_summary,
    load_note,
    peak_rss_mb,
    pin_cores,
    write_json,
)
from locomo import (
    BUDGETS,
    UNITS,
    Budget,
    Conversation,
    IngestFigures,
    Question,
    SystemResult,
    evidence_hit,
    ingest_conversations,
    load_conversations,
    resolve_data_path,
    run_baselines,
)

#: Extra words a context-only prompt gets for its template (REFERENCE-FIGURES.md).
TEMPLATE_WORDS = 60

#: Reference figures (cognee 1.6.5) on the same split and metric: (@250, @750, p50 ms).
REFERENCE: dict[str, tuple[float, float, float | None]] = {
    "bm25_turns": (0.694, 0.746, None),
    "bm25_sessions": (0.526, 0.817, None),
    "CHUNKS_LEXICAL": (0.720, 0.838, 147.0),
    "HYBRID_prompt": (0.393, 0.716, 223.0),
}


@dataclass(slots=True)
class Run:
    """Per-system results plus which questions name an absolute date."""

    systems: dict[str, SystemResult] = field(default_factory=dict)
    dated: list[bool] = field(default_factory=list)
    ingest_seconds: float = 0.0
    chunks: int = 0
    latency_at_scale: dict[str, Any] | None = None


def record_prompt(system: SystemResult, question: Question, prompt: str | None) -> None:
    """Score one only_context prompt as a single item with the template allowance."""
    items = [prompt] if prompt else []
    system.categories.append(question.category)
    system.returned.append(len(items))
    for unit in UNITS:
        for words in BUDGETS:
            hit = evidence_hit(items, question.evidence, words + TEMPLATE_WORDS, Budget(unit))
            system.hits[unit, words].append(hit)


async def run_engramdb(
    conversations: Sequence[Conversation],
    *,
    embedder: str,
    top_k: int,
    progress: Callable[[str], None],
) -> Run:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine
    from engramdb.retrieval.base import RecallOptions, RetrievalContext
    from engramdb.retrieval.dates import parse_time_constraint
    from engramdb.retrieval.retrievers.hybrid import HybridRetriever, hybrid_context_items
    from engramdb.retrieval.retrievers.temporal import TemporalRetriever, temporal_context_items

    run = Run()
    names = {
        "CHUNKS_LEXICAL": "engramdb CHUNKS_LEXICAL (same run)",
        "HYBRID_items": f"HYBRID_COMPLETION context items ({embedder})",
        "HYBRID_prompt": f"HYBRID_COMPLETION only_context prompt ({embedder})",
        "TEMPORAL_items": f"TEMPORAL context items ({embedder})",
        "TEMPORAL_prompt": f"TEMPORAL only_context prompt ({embedder})",
    }
    run.systems = {key: SystemResult(name, key) for key, name in names.items()}
    hybrid, temporal = HybridRetriever(), TemporalRetriever()
    async with isolated_engramdb(embedder, prefix="locomo-hybrid-"):
        figures = IngestFigures()
        await ingest_conversations(conversations, figures, progress)
        run.chunks, run.ingest_seconds = figures.chunks, figures.seconds

        engine = get_engine()
        store = engine.store
        user = await store.get_or_create_default_user()
        s = run.systems
        for i, conv in enumerate(conversations):
            dataset = await store.find_dataset(user.id, conv.dataset)
            assert dataset is not None
            ctx = RetrievalContext(
                store=store,
                embedder=engine.embedder,
                llm=None,
                settings=engine.settings,
                datasets=[dataset],
                user=user,
            )
            if i == 0:  # one untimed call loads what a first call loads
                warm = RecallOptions(conv.questions[0].text, SearchType.HYBRID_COMPLETION)
                await hybrid_context_items(ctx, warm)
            for q in conv.questions:
                run.dated.append(parse_time_constraint(q.text) is not None)
                t0 = time.perf_counter()
                lexical = await engramdb.recall(
                    q.text, SearchType.CHUNKS_LEXICAL, datasets=[conv.dataset], top_k=top_k
                )
                s["CHUNKS_LEXICAL"].latencies.append(time.perf_counter() - t0)
                s["CHUNKS_LEXICAL"].record(q, [str(getattr(h, "text", "")) for h in lexical])

                for key, search_type, items_fn, retriever in (
                    ("HYBRID", SearchType.HYBRID_COMPLETION, hybrid_context_items, hybrid),
                    ("TEMPORAL", SearchType.TEMPORAL, temporal_context_items, temporal),
                ):
                    opts = RecallOptions(q.text, search_type, top_k=top_k, only_context=True)
                    t0 = time.perf_counter()
                    items = await items_fn(ctx, opts)
                    s[f"{key}_items"].latencies.append(time.perf_counter() - t0)
                    s[f"{key}_items"].record(q, [i.text for i in items if i.kind == "passage"])
                    t0 = time.perf_counter()
                    prompt = await retriever.retrieve(ctx, opts)
                    s[f"{key}_prompt"].latencies.append(time.perf_counter() - t0)
                    record_prompt(s[f"{key}_prompt"], q, prompt[0].text if prompt else None)
            progress(f"asked {len(conv.questions)} questions of {conv.sample_id}")
    return run


async def latency_at_scale(
    n_chunks: int, queries: int, top_k: int, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Hybrid retrieval latency on a synthetic store of ``n_chunks`` chunks (random vectors)."""
    import numpy as np

    from engramdb import SearchType
    from engramdb.engine import get_engine, set_engine
    from engramdb.retrieval.base import RecallOptions, RetrievalContext
    from engramdb.retrieval.retrievers.hybrid import HybridRetriever, hybrid_context_items
    from recall_latency import DATASET, TextGenerator, populate

    gen = TextGenerator(42)
    rng = np.random.default_rng(43)
    warmup = 5
    questions = [gen.question() for _ in range(queries + warmup)]
    async with isolated_engramdb("onnx", prefix="hybrid-latency-"):
        seconds = await populate(gen, rng, 0, n_chunks, (100, 180), progress)
        progress(f"{n_chunks:,} chunks written in {seconds:.1f}s")
        await get_engine().close()
        set_engine(None)  # reopen, so the vector index is loaded from the file
        engine = get_engine()
        store = engine.store
        user = await store.get_or_create_default_user()
        dataset = await store.find_dataset(user.id, DATASET)
        assert dataset is not None
        ctx = RetrievalContext(
            store=store,
            embedder=engine.embedder,
            llm=None,
            settings=engine.settings,
            datasets=[dataset],
            user=user,
        )
        retriever = HybridRetriever()
        items_s: list[float] = []
        prompt_s: list[float] = []
        for i, question in enumerate(questions):
            opts = RecallOptions(question, SearchType.HYBRID_COMPLETION, top_k, only_context=True)
            t0 = time.perf_counter()
            await hybrid_context_items(ctx, opts)
            t1 = time.perf_counter()
            await retriever.retrieve(ctx, opts)
            t2 = time.perf_counter()
            if i >= warmup:
                items_s.append(t1 - t0)
                prompt_s.append(t2 - t1)
    return {
        "chunks": n_chunks,
        "hybrid_context_items": latency_summary(items_s),
        "retrieve_only_context": latency_summary(prompt_s),
    }


def subset_recall(system: SystemResult, mask: Sequence[bool], words: int, unit: str) -> float:
    flags = [h for h, m in zip(system.hits[unit, words], mask, strict=True) if m]
    return sum(flags) / len(flags) if flags else math.nan


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="locomo_dev.json (default: as bench/locomo.py)")
    parser.add_argument("--embedder", choices=("onnx", "fake"), default="onnx")
    parser.add_argument("--limit-conversations", type=int, default=None, metavar="N")
    parser.add_argument("--top-k", type=int, default=30, help="top_k of every recall")
    parser.add_argument("--budget-unit", choices=UNITS, default="content")
    parser.add_argument("--latency-chunks", type=int, default=0, metavar="N")
    parser.add_argument("--latency-queries", type=int, default=200)
    parser.add_argument("--skip-locomo", action="store_true", help="only the latency run")
    parser.add_argument("--cores", type=int, default=2, help="pin to N cores (0 = all)")
    parser.add_argument("--json", dest="json_path", metavar="OUT.json")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cores = pin_cores(args.cores)
    wall = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"  [{time.perf_counter() - wall:7.1f}s] {msg}", flush=True)

    machine = load_note(len(cores))
    print(f"LoCoMo hybrid/temporal context recall — cores: {len(cores)}; embedder: {args.embedder}")
    print(machine)
    unit = args.budget_unit
    out: dict[str, Any] = {"benchmark": "locomo_hybrid", "machine_at_start": machine}
    if not args.skip_locomo:
        path = resolve_data_path(args.data)
        conversations, stats = load_conversations(path, args.limit_conversations)
        print(f"{stats.questions_used} questions over {len(conversations)} conversations")
        baselines = run_baselines(conversations, args.top_k)
        run = asyncio.run(
            run_engramdb(conversations, embedder=args.embedder, top_k=args.top_k, progress=progress)
        )
        systems = [*baselines, *run.systems.values()]
        full = args.limit_conversations is None or args.limit_conversations >= 5
        rows = []
        for s in systems:
            lat = latency_summary(s.latencies) if s.latencies else None
            ref = REFERENCE.get(s.key) if full else None
            rows.append(
                [
                    s.name,
                    s.recall_at(BUDGETS[0], unit),
                    s.recall_at(BUDGETS[1], unit),
                    ref[0] if ref else None,
                    ref[1] if ref else None,
                    f"{lat['p50_ms']:.1f}" if lat else None,
                    f"{lat['p95_ms']:.1f}" if lat else None,
                ]
            )
        print(
            f"\nEvidence recall over {stats.questions_used} questions (top_k={args.top_k}, "
            f"budget in {unit} words; prompt rows get +{TEMPLATE_WORDS} words)"
        )
        print(
            format_table(
                ["system", "@250", "@750", "ref @250", "ref @750", "p50 ms", "p95 ms"], rows
            )
        )
        best = {w: max(b.recall_at(w, unit) for b in baselines) for w in BUDGETS}
        print(
            f"best baseline: @250 {best[250]:.3f}, @750 {best[750]:.3f}; "
            f"target (+0.10): @250 {best[250] + 0.1:.3f}, @750 {best[750] + 0.1:.3f}"
        )
        cats = sorted(set(run.systems["HYBRID_items"].categories))
        cat_rows = []
        for cat in cats:
            row: list[object] = [f"category {cat}"]
            for s in systems:
                row += [s.recall_at(w, unit, cat) for w in BUDGETS]
            cat_rows.append(row)
        headers = ["by category"]
        for s in systems:
            headers += [f"{s.key}@250", f"{s.key}@750"]
        print()
        print(format_table(headers, cat_rows))
        n_dated = sum(run.dated)
        dated_rows = [
            [s.name, *(subset_recall(s, run.dated, w, unit) for w in BUDGETS)] for s in systems
        ]
        print(f"\nQuestions naming an absolute date (TEMPORAL filters these): {n_dated}")
        print(format_table(["system", "@250", "@750"], dated_rows))
        print(f"\ningested {run.chunks} chunks in {run.ingest_seconds:.1f}s")
        out["systems"] = [s.summary(unit) for s in systems]
        out["dated_questions"] = n_dated
        out["dated_subset"] = {
            s.key: {f"recall@{w}": subset_recall(s, run.dated, w, unit) for w in BUDGETS}
            for s in systems
        }
    if args.latency_chunks:
        scale = asyncio.run(
            latency_at_scale(args.latency_chunks, args.latency_queries, args.top_k, progress)
        )
        print(f"\nHybrid latency at {args.latency_chunks:,} synthetic chunks (ms)")
        print(
            format_table(
                ["operation", "p50", "p95"],
                [
                    [name, f"{scale[key]['p50_ms']:.1f}", f"{scale[key]['p95_ms']:.1f}"]
                    for name, key in (
                        ("hybrid_context_items", "hybrid_context_items"),
                        ("retrieve(only_context=True)", "retrieve_only_context"),
                    )
                ],
            )
        )
        out["latency_at_scale"] = scale
    print(f"\npeak RSS: {peak_rss_mb():.0f} MB; wall time: {time.perf_counter() - wall:.1f} s")
    write_json(args.json_path, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
