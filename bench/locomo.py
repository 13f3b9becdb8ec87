"""LoCoMo evidence recall: engramdb CHUNKS / CHUNKS_LEXICAL and context-only completion types
against two BM25 baselines.

Run from the repository root::

    .venv/bin/python bench/locomo.py                    # ONNX embedder, all 5 conversations
    .venv/bin/python bench/locomo.py --embedder fake --limit-conversations 1
    .venv/bin/python bench/locomo.py --types CHUNKS_LEXICAL,HYBRID_COMPLETION
    .venv/bin/python bench/locomo.py --json bench/results/locomo.json

The data (LoCoMo, CC BY-NC 4.0) is read from ``--data``, else ``$ENGRAMDB_BENCH_DATA``, else
``../shared/data/locomo/locomo_dev.json`` relative to the repository root. It is never copied.

Each session of a conversation becomes one document (a date header line, then one paragraph per
turn) in a dataset per conversation. Every question of category != 5 is asked against its
conversation's dataset. **Evidence recall** is the share of questions for which ONE retrieved
item, read in rank order within a budget of W words of retrieved text, holds >= 80 % of the
content words of at least one of the question's evidence turns. See bench/README.md.

The completion types (RAG_COMPLETION, HYBRID_COMPLETION, GRAPH_COMPLETION, TRIPLET_COMPLETION)
are asked with ``only_context=True`` (no LLM is configured): the result is one item, the
prompt text the LLM would have received, scored with the same metric within the budget plus
:data:`TEMPLATE_WORDS` words for the prompt template, as the reference's context-only figures
were measured (/work/shared/REFERENCE-FIGURES.md; ``bench/locomo_hybrid.py`` does the same).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import os
import re
import sys
import time
import traceback
from collections import Counter, defaultdict
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
    percentile,
    pin_cores,
    use_multi_hop,
    write_json,
)

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
BUDGETS = (250, 750)
#: Ways of counting the budget's words (see Budget); both are computed, --budget-unit picks the
#: one the main table shows.
UNITS = ("content", "whitespace")
#: Share of an evidence turn's content words one retrieved item must hold.
COVERAGE = 0.8
#: Extra words a context-only prompt gets for its template (REFERENCE-FIGURES.md).
TEMPLATE_WORDS = 60

#: engramdb search types the script can ask; the completion types only with only_context=True.
ITEM_TYPES = ("CHUNKS", "CHUNKS_LEXICAL")
CONTEXT_TYPES = ("RAG_COMPLETION", "HYBRID_COMPLETION", "GRAPH_COMPLETION", "TRIPLET_COMPLETION")
ALL_TYPES = (*ITEM_TYPES, *CONTEXT_TYPES)
#: Short labels for the per-category table.
SHORT = {
    "bm25_turns": "turns",
    "bm25_sessions": "sess",
    "CHUNKS": "dense",
    "CHUNKS_LEXICAL": "lex",
    "RAG_COMPLETION": "rag",
    "HYBRID_COMPLETION": "hybrid",
    "GRAPH_COMPLETION": "graph",
    "TRIPLET_COMPLETION": "triplet",
}

#: Published figures of the reference system (cognee 1.6.5) on the same split, measured with
#: the same metric: /work/shared/REFERENCE-FIGURES.md. (@250, @750, recall p50 ms or None.)
REFERENCE: dict[str, tuple[float, float, float | None]] = {
    "bm25_turns": (0.694, 0.746, None),
    "bm25_sessions": (0.526, 0.817, None),
    "CHUNKS": (0.531, 0.712, 157.0),
    "CHUNKS_LEXICAL": (0.720, 0.838, 147.0),
    "HYBRID_COMPLETION": (0.393, 0.716, 223.0),  # context only, +60 words
    "GRAPH_COMPLETION": (0.425, 0.616, 395.0),  # context only, +60 words
}

# --------------------------------------------------------------------------------------------
# tokenisation and the metric

_TOKEN = re.compile(r"[^\W_]+")  # unicode letters and digits; '_' and punctuation split words
_EVIDENCE_ID = re.compile(r"D\d+:\d+")

#: A small English stopword list (function words, auxiliaries, pronouns and the tails that
#: contractions leave behind: "don't" -> "don", "t"). Used for content words, for BM25 and for
#: the budget unit alike.
_STOPWORD_LIST = """
    a an the and or but if then else of to in on at by for with from as into onto about over
    under after before up down out off again further once than so too very just also only own
    same such both each few more most other some any all no nor not
    is are was were be been being am do does did doing have has had having
    can could will would shall should may might must
    i me my mine myself we us our ours you your yours he him his she her hers it its they them
    their theirs this that these those there here what which who whom whose when where why how
    s t d m ll re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn haven hasn
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_LIST.split())


def tokens(text: str) -> list[str]:
    """Lower-cased alphanumeric word tokens minus stopwords, in order (with repeats)."""
    return [w for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS]


def content_words(text: str) -> frozenset[str]:
    return frozenset(tokens(text))


@dataclass(frozen=True, slots=True)
class Budget:
    """How retrieved text is measured against the word budget.

    ``content`` (default) counts content-word tokens (the tokenizer above, with repeats);
    ``whitespace`` counts whitespace-separated words. See bench/README.md for why the default
    is ``content``: only it reproduces the reference's published baselines.
    """

    unit: str

    def units(self, text: str) -> list[str]:
        return tokens(text) if self.unit == "content" else text.split()

    def seen(self, units: list[str]) -> frozenset[str]:
        if self.unit == "content":
            return frozenset(units)
        return content_words(" ".join(units))


def evidence_hit(
    items: Sequence[str], evidence: Sequence[frozenset[str]], words: int, budget: Budget
) -> bool:
    """True when one item, walked in rank order within ``words`` of retrieved text, covers
    >= 80 % of the content words of one evidence turn. The item that crosses the budget is cut
    to the remaining words; items after it are not seen."""
    used = 0
    for item in items:
        remaining = words - used
        if remaining <= 0:
            return False
        units = budget.units(item)[:remaining]
        seen = budget.seen(units)
        for turn in evidence:
            if len(turn & seen) >= COVERAGE * len(turn):
                return True
        used += len(units)
    return False


# --------------------------------------------------------------------------------------------
# BM25 baseline


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75, idf = ln((N - n + 0.5) / (n + 0.5) + 1)) over ``docs``,
    with the content-word tokenizer; only documents sharing a term with the query are ranked."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.lengths: list[int] = []
        for i, doc in enumerate(docs):
            counts = Counter(tokens(doc))
            self.lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self.postings[term].append((i, tf))
        n_docs = len(docs)
        self.avg_len = (sum(self.lengths) / n_docs) if n_docs else 0.0
        self.idf = {
            term: math.log((n_docs - len(p) + 0.5) / (len(p) + 0.5) + 1.0)
            for term, p in self.postings.items()
        }

    def search(self, query: str, top_k: int) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for term in tokens(query):
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = self.idf[term]
            for doc, tf in postings:
                norm = self.k1 * (1.0 - self.b + self.b * self.lengths[doc] / self.avg_len)
                scores[doc] += idf * tf * (self.k1 + 1.0) / (tf + norm)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [doc for doc, _ in ranked[:top_k]]


# --------------------------------------------------------------------------------------------
# data


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None

    @property
    def paragraph(self) -> str:
        out = f"{self.speaker}: {self.text}"
        if self.caption:
            out += f" [shares a photo: {self.caption}]"
        return out


@dataclass(frozen=True, slots=True)
class Session:
    number: int
    date: str
    turns: tuple[Turn, ...]

    @property
    def text(self) -> str:
        header = f"Session {self.number}: {self.date}"
        return "\n\n".join([header, *(t.paragraph for t in self.turns)])


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    category: int
    evidence: tuple[frozenset[str], ...]


@dataclass(slots=True)
class Conversation:
    sample_id: str
    dataset: str
    sessions: list[Session]
    questions: list[Question] = field(default_factory=list)


@dataclass(slots=True)
class LoadStats:
    questions_total: int = 0
    questions_cat5: int = 0
    questions_used: int = 0
    questions_skipped: int = 0
    evidence_malformed: int = 0
    evidence_missing: int = 0
    evidence_empty: int = 0
    turns: int = 0


def resolve_data_path(option: str | None) -> Path:
    raw = option or os.environ.get("ENGRAMDB_BENCH_DATA")
    # A path given by the user is relative to the working directory; the default is relative
    # to the repository root.
    path = Path(raw).expanduser().resolve() if raw else DEFAULT_DATA.resolve()
    if not path.is_file():
        sys.exit(
            f"LoCoMo data not found at {path}; pass --data PATH or set ENGRAMDB_BENCH_DATA "
            "(the file is not shipped in the repository: LoCoMo is CC BY-NC 4.0)"
        )
    return path


def load_conversations(path: Path, limit: int | None) -> tuple[list[Conversation], LoadStats]:
    import json

    raw = json.loads(path.read_text(encoding="utf-8"))
    stats = LoadStats()
    conversations: list[Conversation] = []
    for sample in raw[:limit] if limit else raw:
        conv = sample["conversation"]
        sessions: list[Session] = []
        for key, value in conv.items():
            match = re.fullmatch(r"session_(\d+)", key)
            if not match or not isinstance(value, list) or not value:
                continue
            number = int(match.group(1))
            turns = tuple(
                Turn(
                    dia_id=str(t.get("dia_id", "")),
                    speaker=str(t.get("speaker", "")),
                    text=str(t.get("text", "")),
                    caption=t.get("blip_caption") or None,
                )
                for t in value
            )
            date = str(conv.get(f"session_{number}_date_time", "unknown date"))
            sessions.append(Session(number, date, turns))
        sessions.sort(key=lambda s: s.number)
        by_id = {t.dia_id: t for s in sessions for t in s.turns}
        stats.turns += len(by_id)
        sample_id = str(sample["sample_id"])
        item = Conversation(sample_id, sample_id.replace("-", "_"), sessions)
        for qa in sample.get("qa", []):
            stats.questions_total += 1
            category = int(qa.get("category", 0))
            if category == 5:
                stats.questions_cat5 += 1
                continue
            evidence: list[frozenset[str]] = []
            for ev in qa.get("evidence", []):
                if not isinstance(ev, str) or not _EVIDENCE_ID.fullmatch(ev):
                    stats.evidence_malformed += 1
                    continue
                turn = by_id.get(ev)
                if turn is None:
                    stats.evidence_missing += 1
                    continue
                words = content_words(turn.paragraph)
                if not words:
                    stats.evidence_empty += 1
                    continue
                evidence.append(words)
            if not evidence:
                stats.questions_skipped += 1
                continue
            stats.questions_used += 1
            item.questions.append(Question(str(qa["question"]), category, tuple(evidence)))
        conversations.append(item)
    return conversations, stats


# --------------------------------------------------------------------------------------------
# evaluation


@dataclass(slots=True)
class SystemResult:
    name: str
    key: str
    hits: dict[tuple[str, int], list[bool]] = field(
        default_factory=lambda: {(u, w): [] for u in UNITS for w in BUDGETS}
    )
    categories: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    returned: list[int] = field(default_factory=list)
    error: str | None = None
    #: Words added to every budget (TEMPLATE_WORDS for only_context prompts, else 0).
    extra_words: int = 0

    def record(self, question: Question, items: Sequence[str]) -> None:
        self.categories.append(question.category)
        self.returned.append(len(items))
        for unit in UNITS:
            for words in BUDGETS:
                budget = words + self.extra_words
                hit = evidence_hit(items, question.evidence, budget, Budget(unit))
                self.hits[unit, words].append(hit)

    def recall_at(self, words: int, unit: str, category: int | None = None) -> float:
        flags = [
            h
            for h, c in zip(self.hits[unit, words], self.categories, strict=True)
            if category is None or c == category
        ]
        return sum(flags) / len(flags) if flags else math.nan

    def summary(self, unit: str) -> dict[str, Any]:
        cats = sorted(set(self.categories))
        out: dict[str, Any] = {
            "system": self.name,
            "questions": len(self.categories),
            **{f"recall@{w}": self.recall_at(w, unit) for w in BUDGETS},
            **{
                f"recall@{w}_{other}_units": self.recall_at(w, other)
                for other in UNITS
                if other != unit
                for w in BUDGETS
            },
            "by_category": {
                str(c): {
                    "questions": self.categories.count(c),
                    **{f"recall@{w}": self.recall_at(w, unit, c) for w in BUDGETS},
                }
                for c in cats
            },
            "mean_items_returned": (
                sum(self.returned) / len(self.returned) if self.returned else math.nan
            ),
            "extra_words": self.extra_words,
        }
        if self.latencies:
            out["latency"] = latency_summary(self.latencies)
        if self.error:
            out["error"] = self.error
        return out


def run_baselines(conversations: Sequence[Conversation], top_k: int) -> list[SystemResult]:
    turns = SystemResult("BM25 over single turns (baseline)", "bm25_turns")
    sessions = SystemResult("BM25 over whole sessions (baseline)", "bm25_sessions")
    for conv in conversations:
        turn_texts = [t.paragraph for s in conv.sessions for t in s.turns]
        session_texts = [s.text for s in conv.sessions]
        turn_index, session_index = BM25(turn_texts), BM25(session_texts)
        for q in conv.questions:
            turns.record(q, [turn_texts[i] for i in turn_index.search(q.text, top_k)])
            sessions.record(q, [session_texts[i] for i in session_index.search(q.text, top_k)])
    return [turns, sessions]


@dataclass(slots=True)
class IngestFigures:
    documents: int = 0
    skipped: int = 0
    chunks: int = 0
    vectors: int = 0
    seconds: float = 0.0
    stage: dict[str, float] = field(
        default_factory=lambda: {"chunk": 0.0, "embed": 0.0, "write": 0.0, "total": 0.0}
    )
    call_seconds: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "skipped": self.skipped,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "seconds": self.seconds,
            "chunks_per_s": self.chunks / self.seconds if self.seconds else math.nan,
            "stage_seconds": self.stage,
            "remember_call_p50_ms": percentile(self.call_seconds, 50) * 1000.0,
            "remember_call_p95_ms": percentile(self.call_seconds, 95) * 1000.0,
        }


async def ingest_conversations(
    conversations: Sequence[Conversation], ingest: IngestFigures, progress: Callable[[str], None]
) -> None:
    """One remember() call per session, into one dataset per conversation."""
    import engramdb

    started = time.perf_counter()
    for conv in conversations:
        for session in conv.sessions:
            t0 = time.perf_counter()
            res = await engramdb.remember(
                session.text,
                dataset_name=conv.dataset,
                external_metadata={
                    "session": session.number,
                    "date": session.date,
                    "conversation": conv.sample_id,
                },
                self_improvement=False,
            )
            ingest.call_seconds.append(time.perf_counter() - t0)
            for key in ("documents", "skipped", "chunks", "vectors"):
                setattr(ingest, key, getattr(ingest, key) + int(res.counts.get(key, 0)))
            for stage, value in res.timings.items():
                ingest.stage[stage] = ingest.stage.get(stage, 0.0) + float(value)
        progress(f"ingested {conv.sample_id}: {len(conv.sessions)} sessions")
    ingest.seconds = time.perf_counter() - started


async def run_engramdb(
    conversations: Sequence[Conversation],
    *,
    embedder: str,
    fake_dimensions: int,
    top_k: int,
    types: Sequence[str] = ALL_TYPES,
    progress: Callable[[str], None],
    keep: Path | None = None,
) -> tuple[IngestFigures | None, list[SystemResult], float]:
    import engramdb
    from engramdb import SearchType

    ingest = IngestFigures()
    names = {
        "CHUNKS": f"engramdb CHUNKS ({embedder})",
        "CHUNKS_LEXICAL": "engramdb CHUNKS_LEXICAL",
        **{t: f"engramdb {t}, context only ({embedder})" for t in CONTEXT_TYPES},
    }
    systems = [
        SystemResult(names[t], t, extra_words=TEMPLATE_WORDS if t in CONTEXT_TYPES else 0)
        for t in ALL_TYPES
        if t in types
    ]
    async with kept_engramdb(
        embedder, keep, fake_dimensions=fake_dimensions, prefix="locomo-"
    ) as data_dir:
        marker = data_dir / "locomo-ingested"
        ingested = ",".join(c.sample_id for c in conversations)
        figures: IngestFigures | None = ingest
        if marker.exists():
            if marker.read_text(encoding="utf-8") != ingested:
                sys.exit(f"{data_dir} holds other conversations: delete it or pick another DIR")
            progress(f"reusing the store in {data_dir}")
            figures = None
        else:
            await ingest_conversations(conversations, ingest, progress)
            marker.write_text(ingested, encoding="utf-8")

        for system in systems:
            search_type = SearchType(system.key)
            # only_context: the completion types return the prompt instead of asking an LLM.
            only_context = system.key in CONTEXT_TYPES
            first = conversations[0]
            try:
                # One untimed call per type loads what a first call loads (model, indexes).
                await engramdb.recall(
                    first.questions[0].text,
                    search_type,
                    datasets=[first.dataset],
                    top_k=top_k,
                    only_context=only_context,
                )
                for conv in conversations:
                    for q in conv.questions:
                        t0 = time.perf_counter()
                        hits = await engramdb.recall(
                            q.text,
                            search_type,
                            datasets=[conv.dataset],
                            top_k=top_k,
                            only_context=only_context,
                        )
                        system.latencies.append(time.perf_counter() - t0)
                        texts = [str(getattr(h, "text", "")) for h in hits]
                        # The prompt is results[0].text; anything after it is not the context.
                        system.record(q, texts[:1] if only_context else texts)
            except Exception:
                system.error = traceback.format_exc()
                print(f"\n{system.key} FAILED:\n{system.error}", file=sys.stderr)
            progress(f"asked {len(system.categories)} questions with {system.key}")
        t0 = time.perf_counter()
    forget_seconds = time.perf_counter() - t0
    return figures, systems, forget_seconds


# --------------------------------------------------------------------------------------------
# main


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help=f"locomo_dev.json (default: {DEFAULT_DATA})")
    parser.add_argument("--embedder", choices=("onnx", "fake"), default="onnx")
    parser.add_argument("--fake-dimensions", type=int, default=64)
    parser.add_argument("--limit-conversations", type=int, default=None, metavar="N")
    parser.add_argument("--top-k", type=int, default=30, help="items asked of every system")
    parser.add_argument(
        "--budget-unit",
        choices=("content", "whitespace"),
        default="content",
        help="what a 'word' of the budget is (default: content-word tokens, see README)",
    )
    parser.add_argument(
        "--types",
        default=",".join(ALL_TYPES),
        help=f"engramdb search types, comma-separated (default: all: {','.join(ALL_TYPES)}); "
        f"{', '.join(CONTEXT_TYPES)} are asked with only_context=True",
    )
    parser.add_argument("--baselines-only", action="store_true", help="skip engramdb")
    parser.add_argument("--cores", type=int, default=2, help="pin to N cores (0 = all)")
    parser.add_argument("--json", dest="json_path", metavar="OUT.json")
    parser.add_argument(
        "--multi-hop",
        action="store_true",
        help="turn on the graph lane, bridge slot and prose split (as bench/hotpotqa.py)",
    )
    parser.add_argument(
        "--keep-store",
        metavar="DIR",
        help="keep (and reuse) the store in DIR: a later run skips ingestion",
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
    path = resolve_data_path(args.data)
    budget = Budget(args.budget_unit)
    wall = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"  [{time.perf_counter() - wall:7.1f}s] {msg}", flush=True)

    machine = load_note(len(cores))
    conversations, stats = load_conversations(path, args.limit_conversations)
    n_sessions = sum(len(c.sessions) for c in conversations)
    print(f"LoCoMo evidence recall — {path}")
    print(
        f"cores: {len(cores)} {cores}; embedder: {args.embedder}; top_k: {args.top_k}; "
        f"budget unit: {budget.unit} words; coverage >= {COVERAGE:.0%} of one evidence turn"
    )
    print(machine)
    print(
        f"{len(conversations)} conversations, {n_sessions} sessions, {stats.turns} turns; "
        f"{stats.questions_total} questions, {stats.questions_cat5} of category 5 excluded, "
        f"{stats.questions_used} asked, {stats.questions_skipped} skipped (no usable evidence "
        f"turn); evidence ids skipped: {stats.evidence_malformed} malformed, "
        f"{stats.evidence_missing} not found, {stats.evidence_empty} without content words"
    )

    systems = run_baselines(conversations, args.top_k)
    progress("baselines done")
    ingest: IngestFigures | None = None
    forget_seconds = math.nan
    failure: str | None = None
    if not args.baselines_only:
        try:
            ingest, engram_systems, forget_seconds = asyncio.run(
                run_engramdb(
                    conversations,
                    embedder=args.embedder,
                    fake_dimensions=args.fake_dimensions,
                    top_k=args.top_k,
                    types=types,
                    progress=progress,
                    keep=Path(args.keep_store) if args.keep_store else None,
                )
            )
            systems.extend(engram_systems)
        except Exception:
            failure = traceback.format_exc()
            print("\nengramdb run FAILED:\n" + failure, file=sys.stderr)
    elapsed = time.perf_counter() - wall

    unit = budget.unit
    other = next(u for u in UNITS if u != unit)
    full_split = args.limit_conversations is None or args.limit_conversations >= 5
    rows = []
    for s in systems:
        lat = latency_summary(s.latencies) if s.latencies else None
        ref = REFERENCE.get(s.key) if full_split else None
        if s.key == "CHUNKS" and args.embedder != "onnx":
            ref = None  # the reference's dense figures are for all-MiniLM-L6-v2
        if s.error:
            failure = failure or f"{s.key} failed:\n{s.error}"
        rows.append(
            [
                s.name + (" (FAILED)" if s.error else ""),
                s.recall_at(BUDGETS[0], unit),
                s.recall_at(BUDGETS[1], unit),
                ref[0] if ref else None,
                ref[1] if ref else None,
                f"{lat['p50_ms']:.1f}" if lat else None,
                f"{lat['p95_ms']:.1f}" if lat else None,
                f"{ref[2]:.0f}" if ref and ref[2] else None,
                s.recall_at(BUDGETS[0], other),
                s.recall_at(BUDGETS[1], other),
            ]
        )
    print(
        f"\nEvidence recall over {stats.questions_used} questions (top_k={args.top_k}; "
        f"budget in {unit} words; last two columns: budget in {other} words)"
    )
    print(
        format_table(
            [
                "system",
                "@250",
                "@750",
                "ref @250",
                "ref @750",
                "p50 ms",
                "p95 ms",
                "ref p50 ms",
                f"{other[:5]} @250",
                f"{other[:5]} @750",
            ],
            rows,
        )
    )
    print(
        "(ref = reference system, cognee 1.6.5, REFERENCE-FIGURES.md; full split only. "
        f"'context only' rows: recall(only_context=True) for lack of an LLM, scored on "
        f"results[0].text, the prompt, within the budget + {TEMPLATE_WORDS} template words; "
        "p50/p95 = latency of the whole recall call)"
    )

    cats = sorted({q.category for c in conversations for q in c.questions})
    cat_rows = []
    for cat in cats:
        n = sum(1 for c in conversations for q in c.questions if q.category == cat)
        row: list[object] = [f"category {cat}", n]
        for s in systems:
            row += [s.recall_at(w, unit, cat) for w in BUDGETS]
        cat_rows.append(row)
    headers = ["by category", "n"]
    for s in systems:
        headers += [f"{SHORT[s.key]}@250", f"{SHORT[s.key]}@750"]
    print()
    print(format_table(headers, cat_rows))

    if ingest is not None:
        summ = ingest.summary()
        print(f"\nIngestion ({args.embedder} embedder, one remember() call per session)")
        print(
            format_table(
                [
                    "documents",
                    "chunks",
                    "vectors",
                    "seconds",
                    "chunks/s",
                    "chunk s",
                    "embed s",
                    "write s",
                    "call p50 ms",
                    "call p95 ms",
                ],
                [
                    [
                        ingest.documents,
                        ingest.chunks,
                        ingest.vectors,
                        ingest.seconds,
                        summ["chunks_per_s"],
                        ingest.stage["chunk"],
                        ingest.stage["embed"],
                        ingest.stage["write"],
                        summ["remember_call_p50_ms"],
                        summ["remember_call_p95_ms"],
                    ]
                ],
            )
        )
        known = ("chunk", "embed", "write", "total")
        extra = {k: v for k, v in ingest.stage.items() if k not in known}
        if extra:
            print(
                "stages reported by res.timings, summed: "
                + ", ".join(f"{k} {v:.2f} s" for k, v in sorted(extra.items()))
            )
        if ingest.skipped:
            print(f"warning: {ingest.skipped} documents were skipped as already present")
        print(f"forget(everything=True) + close: {forget_seconds:.2f} s")
    print(f"\npeak RSS: {peak_rss_mb():.0f} MB; wall time: {elapsed:.1f} s")

    write_json(
        args.json_path,
        {
            "benchmark": "locomo_evidence_recall",
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "machine_at_start": machine,
            "data": str(path),
            "cores": len(cores),
            "embedder": args.embedder,
            "top_k": args.top_k,
            "budget_unit": budget.unit,
            "budgets": list(BUDGETS),
            "types": types,
            "template_words": TEMPLATE_WORDS,
            "load": dataclasses.asdict(stats),
            "systems": [s.summary(budget.unit) for s in systems],
            "ingest": ingest.summary() if ingest else None,
            "peak_rss_mb": peak_rss_mb(),
            "wall_seconds": elapsed,
            "error": failure,
        },
    )
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
