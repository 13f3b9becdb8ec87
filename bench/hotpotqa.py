"""HotpotQA-50 answer-in-context: engramdb CHUNKS / HYBRID / GRAPH_COMPLETION against BM25.

Run from the repository root::

    .venv/bin/python bench/hotpotqa.py                     # ONNX embedder, 49 questions
    .venv/bin/python bench/hotpotqa.py --limit 15          # the first 15 answerable questions
    .venv/bin/python bench/hotpotqa.py --types HYBRID_COMPLETION --hops
    .venv/bin/python bench/hotpotqa.py --json bench/results/hotpotqa.json

The data (cognee's 50-question HotpotQA subset, CC BY-SA 4.0) is read from ``--data DIR``, else
``$ENGRAMDB_HOTPOT_DATA``, else ``../shared/data/hotpotqa_cognee50`` relative to the repository
root; it is never copied. All 500 paragraphs are one dataset, one document each, ingested with
one ``remember()`` call (offline extraction, no LLM). The yes/no questions are skipped (their
answer is not in any text), which leaves 49.

**Answer in context @W**: the share of questions whose gold answer occurs (case-insensitively,
on word boundaries) in the first W whitespace words of the retrieved text, items joined in rank
order. Context-only types (``only_context=True``, the prompt is ``results[0].text``) get W + 60
words for their prompt template, as the reference's figures were measured. BM25 over the
paragraphs is computed in the same run with the same metric.

**Hop analysis** (``--hops``, on by default): the corpus has no supporting-fact labels, so the
"bridge" paragraph of a question is taken to be the paragraph holding the answer that BM25 over
the question ranks best among those paragraphs, and the question's entity is whatever the
question names. For every question the table prints the rank (1-based, by first occurrence in
the context's words) at which each system's context first shows the answer, and whether
that paragraph shares a capitalised name with the question (``direct``) or not (``bridge``: it
can only be reached through a second entity).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import (
    REPO_ROOT,
    format_table,
    kept_engramdb,
    latency_summary,
    load_note,
    peak_rss_mb,
    pin_cores,
    use_multi_hop,
    write_json,
)
from locomo import BM25

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "hotpotqa_cognee50"
BUDGETS = (100, 300)
TEMPLATE_WORDS = 60
ITEM_TYPES = ("CHUNKS",)
CONTEXT_TYPES = ("HYBRID_COMPLETION", "GRAPH_COMPLETION")
ALL_TYPES = (*ITEM_TYPES, *CONTEXT_TYPES)
SHORT = {"bm25": "bm25", "CHUNKS": "dense", "HYBRID_COMPLETION": "hyb", "GRAPH_COMPLETION": "gr"}

#: /work/shared/REFERENCE-FIGURES.md, HotpotQA-50 (@100, @300, recall p50 ms or None).
REFERENCE: dict[str, tuple[float, float, float | None]] = {
    "bm25": (0.490, 0.714, None),
    "CHUNKS": (0.551, 0.796, 206.0),
    "HYBRID_COMPLETION": (0.633, 0.837, 313.0),
    "GRAPH_COMPLETION": (0.429, 0.653, 1957.0),
}

_NAME = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:of|the|de|von|van|[A-Z][\w'’.-]*))*")


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    answer: str

    def pattern(self) -> re.Pattern[str]:
        return re.compile(r"(?<!\w)" + re.escape(self.answer.lower()) + r"(?!\w)")


def resolve_data_dir(option: str | None) -> Path:
    raw = option or os.environ.get("ENGRAMDB_HOTPOT_DATA")
    path = Path(raw) if raw else DEFAULT_DATA
    if not (path / "hotpot_50_corpus.json").exists():
        sys.exit(f"HotpotQA-50 not found in {path}: pass --data DIR (hotpot_50_corpus.json)")
    return path


def load(path: Path, limit: int | None) -> tuple[list[str], list[Question]]:
    corpus = json.loads((path / "hotpot_50_corpus.json").read_text(encoding="utf-8"))
    pairs = json.loads((path / "hotpot_50_qa_pairs.json").read_text(encoding="utf-8"))
    questions = [
        Question(p["question"], str(p["answer"]).strip())
        for p in pairs
        if str(p["answer"]).strip().lower() not in ("yes", "no")
    ]
    return [str(p) for p in corpus], questions[:limit] if limit else questions


def answer_rank(items: Sequence[str], q: Question, words: int) -> int | None:
    """1-based word position at which the answer first shows within ``words`` words of the
    items joined in order, or None."""
    text = " ".join(" ".join(items).split()[:words]).lower()
    match = q.pattern().search(text)
    return None if match is None else len(text[: match.start()].split()) + 1


@dataclass(slots=True)
class SystemResult:
    name: str
    key: str
    extra_words: int = 0
    positions: list[int | None] = field(default_factory=list)
    #: The words of each context within the largest budget (lower-cased).
    windows: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    error: str | None = None

    def record(self, q: Question, items: Sequence[str]) -> None:
        words = BUDGETS[-1] + self.extra_words
        self.positions.append(answer_rank(items, q, words))
        self.windows.append(" ".join(" ".join(items).split()[:words]).lower())

    def at(self, words: int) -> float:
        if not self.positions:
            return math.nan
        limit = words + self.extra_words
        return sum(1 for p in self.positions if p is not None and p <= limit) / len(self.positions)


def bridge_kind(q: Question, corpus: Sequence[str], bm25: BM25) -> tuple[str, str, str]:
    """ "direct" when the best BM25-ranked paragraph holding the answer shares a capitalised
    name with the question, "bridge" when it does not (a second hop), "-" when none holds it;
    for a bridge question also the bridge entity, the name that paragraph is about (its first
    name: a HotpotQA paragraph opens with its title), and the paragraph's first eight words
    (lower-cased), which show whether a context holds the paragraph ("" for the others)."""
    pattern = q.pattern()
    for i in bm25.search(q.text, len(corpus)):
        if pattern.search(corpus[i].lower()):
            names = {m.group(0).lower() for m in _NAME.finditer(q.text)}
            para = corpus[i].lower()
            if any(n in para for n in names if len(n) > 3):
                return "direct", "", ""
            subject = _NAME.search(corpus[i])
            opening = " ".join(corpus[i].split()[:8]).lower()
            return "bridge", subject.group(0).strip() if subject else "?", opening
    return "-", "", ""


async def run_engramdb(
    corpus: Sequence[str],
    questions: Sequence[Question],
    *,
    embedder: str,
    top_k: int,
    types: Sequence[str],
    progress: Callable[[str], None],
    keep: Path | None = None,
) -> tuple[float, list[SystemResult]]:
    import engramdb
    from engramdb import SearchType

    systems = [
        SystemResult(
            f"engramdb {t}" + (", context only" if t in CONTEXT_TYPES else ""),
            t,
            TEMPLATE_WORDS if t in CONTEXT_TYPES else 0,
        )
        for t in ALL_TYPES
        if t in types
    ]
    async with kept_engramdb(embedder, keep, prefix="hotpot-") as data_dir:
        marker = data_dir / "hotpot-ingested"
        ingest = math.nan
        if not marker.exists():
            t0 = time.perf_counter()
            await engramdb.remember(list(corpus), dataset_name="hotpot", self_improvement=False)
            ingest = time.perf_counter() - t0
            marker.write_text(str(len(corpus)), encoding="utf-8")
            progress(f"ingested {len(corpus)} paragraphs in {ingest:.1f} s")
        else:
            progress(f"reusing the store in {data_dir}")
        for system in systems:
            st = SearchType(system.key)
            only = system.key in CONTEXT_TYPES
            try:
                await engramdb.recall(
                    questions[0].text, st, datasets=["hotpot"], top_k=top_k, only_context=only
                )
                for q in questions:
                    t1 = time.perf_counter()
                    hits = await engramdb.recall(
                        q.text, st, datasets=["hotpot"], top_k=top_k, only_context=only
                    )
                    system.latencies.append(time.perf_counter() - t1)
                    texts = [str(getattr(h, "text", "")) for h in hits]
                    system.record(q, texts[:1] if only else texts)
            except Exception:
                system.error = traceback.format_exc()
                print(f"\n{system.key} FAILED:\n{system.error}", file=sys.stderr)
            progress(f"asked {len(system.positions)} questions with {system.key}")
    return ingest, systems


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help=f"directory of the two JSON files (default {DEFAULT_DATA})")
    parser.add_argument("--embedder", choices=("onnx", "fake"), default="onnx")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="first N questions")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--types", default=",".join(ALL_TYPES))
    parser.add_argument("--baselines-only", action="store_true")
    parser.add_argument("--no-hops", dest="hops", action="store_false", help="no hop table")
    parser.add_argument("--keep-store", metavar="DIR", help="keep (and reuse) the store in DIR")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json", dest="json_path", metavar="OUT.json")
    parser.add_argument(
        "--multi-hop",
        action="store_true",
        help="turn on the graph lane, bridge slot and prose split (off by default in engramdb)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.multi_hop:
        use_multi_hop()
    types = [t.strip().upper() for t in args.types.split(",") if t.strip()]
    unknown = [t for t in types if t not in ALL_TYPES]
    if unknown:
        sys.exit(f"unknown --types {unknown}; choose from {', '.join(ALL_TYPES)}")
    cores = pin_cores(args.cores)
    path = resolve_data_dir(args.data)
    corpus, questions = load(path, args.limit)
    wall = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"  [{time.perf_counter() - wall:7.1f}s] {msg}", flush=True)

    print(f"HotpotQA-50 answer in context — {path}")
    print(f"cores: {len(cores)}; embedder: {args.embedder}; top_k: {args.top_k}")
    print(load_note(len(cores)))
    print(f"{len(corpus)} paragraphs, {len(questions)} questions (yes/no skipped)")

    bm25_index = BM25(corpus)
    bm25 = SystemResult("BM25 over paragraphs (baseline)", "bm25")
    for q in questions:
        bm25.record(q, [corpus[i] for i in bm25_index.search(q.text, 30)])
    systems = [bm25]
    failure = None
    ingest = math.nan
    if not args.baselines_only:
        ingest, found = asyncio.run(
            run_engramdb(
                corpus,
                questions,
                embedder=args.embedder,
                top_k=args.top_k,
                types=types,
                progress=progress,
                keep=Path(args.keep_store) if args.keep_store else None,
            )
        )
        systems.extend(found)
    full = len(questions) == 49
    rows = []
    for s in systems:
        failure = failure or s.error
        ref = REFERENCE.get(s.key) if full else None
        if s.key == "CHUNKS" and args.embedder != "onnx":
            ref = None
        lat = latency_summary(s.latencies) if s.latencies else None
        rows.append(
            [
                s.name + (" (FAILED)" if s.error else ""),
                s.at(BUDGETS[0]),
                s.at(BUDGETS[1]),
                ref[0] if ref else None,
                ref[1] if ref else None,
                f"{lat['p50_ms']:.1f}" if lat else None,
                f"{lat['p95_ms']:.1f}" if lat else None,
                f"{ref[2]:.0f}" if ref and ref[2] else None,
            ]
        )
    print(f"\nAnswer in context over {len(questions)} questions (context only: +60 words)")
    headers = ["system", "@100", "@300", "ref @100", "ref @300", "p50 ms", "p95 ms", "ref p50"]
    print(format_table(headers, rows))
    print("(ref = cognee 1.6.5, /work/shared/REFERENCE-FIGURES.md; full set only)")

    hops = [bridge_kind(q, corpus, bm25_index) for q in questions]
    kinds = [k for k, _, _ in hops]
    bridges = [b for _, b, _ in hops]
    openings = [o for _, _, o in hops]
    if args.hops:
        hop_rows = []
        for i, q in enumerate(questions):
            row: list[object] = [q.text[:60], q.answer[:20], kinds[i], bridges[i][:28] or "-"]
            for s in systems:
                pos = s.positions[i] if i < len(s.positions) else None
                mark = ""
                if openings[i] and i < len(s.windows):
                    mark = " +" if openings[i] in s.windows[i] else " -"
                row.append(f"{pos if pos is not None else 'miss'}{mark}")
            hop_rows.append(row)
        print(
            "\nPer question: word position of the answer in each context (budget 300 + extra); "
            "for a bridge question, + / - : the bridge entity's paragraph is / is not in it"
        )
        heads = ["question", "answer", "hop", "bridge entity", *[SHORT[s.key] for s in systems]]
        print(format_table(heads, hop_rows))
        reached = []
        for s in systems:
            hit = [openings[i] in s.windows[i] for i in range(len(s.windows)) if openings[i]]
            reached.append(f"{SHORT[s.key]} {sum(hit)}/{len(hit)}")
        print("bridge paragraph in the context (bridge questions): " + ", ".join(reached))
    by_kind = []
    for kind in ("direct", "bridge", "-"):
        idx = [i for i, k in enumerate(kinds) if k == kind]
        if not idx:
            continue
        row = [kind, len(idx)]
        for s in systems:
            for w in BUDGETS:
                hits = [
                    s.positions[i] is not None and s.positions[i] <= w + s.extra_words  # type: ignore[operator]
                    for i in idx
                    if i < len(s.positions)
                ]
                row.append(sum(hits) / len(hits) if hits else None)
        by_kind.append(row)
    heads = ["hop", "n"] + [f"{SHORT[s.key]}@{w}" for s in systems for w in BUDGETS]
    print("\nBy hop kind (bridge = the answer's paragraph shares no name with the question)")
    print(format_table(heads, by_kind))
    elapsed = time.perf_counter() - wall
    print(f"\ningest {ingest:.1f} s; peak RSS {peak_rss_mb():.0f} MB; wall {elapsed:.1f} s")
    payload: dict[str, Any] = {
        "benchmark": "hotpotqa50_answer_in_context",
        "data": str(path),
        "questions": len(questions),
        "systems": [
            {
                "name": s.name,
                "key": s.key,
                **{f"at{w}": s.at(w) for w in BUDGETS},
                "latency": latency_summary(s.latencies) if s.latencies else None,
                "positions": s.positions,
                "error": s.error,
            }
            for s in systems
        ],
        "hop_kinds": kinds,
        "bridge_entities": bridges,
        "ingest_seconds": ingest,
    }
    write_json(args.json_path, payload)
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
