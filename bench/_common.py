"""Helpers shared by the benchmark scripts (not part of the library, never run by pytest).

Every script isolates itself in a temporary data directory, pins itself to a number of CPU
cores (default 2, the machine the reference figures were measured on) and prints plain-text
tables; ``--json`` writes the same figures to a file (``bench/results/`` is git-ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import resource
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent

#: A word list for synthetic text: common English words, so the WordPiece tokenizer of
#: all-MiniLM-L6-v2 maps most of them to a single token (about 1.1-1.2 tokens per word).
_WORD_LIST = """
    time year people way day man thing woman life child world school state family student group
    country problem hand part place case week company system program question work government
    number night point home water room mother area money story fact month lot right study book
    eye job word business issue side kind head house service friend father power hour game line
    end member law car city community name president team minute idea kid body information back
    parent face others level office door health person art war history party result change
    morning reason research girl guy moment air teacher force education garden river mountain
    market village bridge window kitchen paper letter music picture doctor patient library
    museum station island forest ocean winter summer spring autumn road train flight hotel
    coffee dinner lunch breakfast recipe painting camera guitar piano concert festival holiday
    birthday wedding meeting project report budget plan design model engine network server
    database memory signal energy battery planet star garden flower tree bird dog cat horse
    make take give find tell ask work seem feel try leave call keep start show hear play run
    move live believe bring happen write provide sit stand lose pay meet include continue learn
    change lead understand watch follow stop create speak read spend grow open walk win offer
    remember love consider appear buy wait serve die send expect build stay fall cut reach
    kill remain suggest raise pass sell require report decide pull visit travel paint cook
    good new first last long great little own other old right big high different small large
    next early young important few public bad same able local sure free better true whole
    real best low late hard major strong possible special clear recent certain personal open
    red blue green quiet bright happy careful quick slow warm cold famous simple modern
"""
WORDS: tuple[str, ...] = tuple(dict.fromkeys(_WORD_LIST.split()))


def pin_cores(cores: int) -> list[int]:
    """Restrict this process (and its children) to the first ``cores`` allowed CPUs."""
    if cores <= 0 or not hasattr(os, "sched_setaffinity"):
        return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    allowed = sorted(os.sched_getaffinity(0))
    chosen = allowed[:cores]
    os.sched_setaffinity(0, chosen)
    return chosen


def _cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies over all CPUs, from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal
    return total - idle, total


def load_note(cores: int, when: str = "at start", sample_seconds: float = 1.0) -> str:
    """How busy the machine is right now (other processes: this script sleeps while it
    samples /proc/stat), plus the 1-minute load average, flagged when it would skew timings."""
    try:
        busy0, total0 = _cpu_times()
        time.sleep(sample_seconds)
        busy1, total1 = _cpu_times()
        busy = (busy1 - busy0) / max(total1 - total0, 1)
    except (OSError, ValueError, IndexError):
        busy = math.nan
    load1 = os.getloadavg()[0]
    flag = ""
    if busy > 0.25:
        flag = " — BUSY: other processes compete for the CPU; timings are noisy"
    return (
        f"machine {when}: CPU busy {busy:.0%} of {os.cpu_count()} CPUs over a "
        f"{sample_seconds:.0f} s sample; load average (1 min) {load1:.2f}{flag}"
    )


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile (``pct`` in 0..100); NaN for an empty sequence."""
    if not values:
        return math.nan
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * pct / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency_summary(seconds: Sequence[float]) -> dict[str, float]:
    """p50/p95/mean/max in milliseconds."""
    ms = [s * 1000.0 for s in seconds]
    return {
        "n": float(len(ms)),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "mean_ms": sum(ms) / len(ms) if ms else math.nan,
        "max_ms": max(ms) if ms else math.nan,
    }


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float:
    """Current resident set size (VmRSS) of this process, from /proc."""
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return math.nan


def random_sentence(rng: random.Random, min_words: int = 6, max_words: int = 16) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(min_words, max_words))]
    return " ".join(words).capitalize() + "."


def random_paragraph(rng: random.Random, min_words: int, max_words: int) -> str:
    """Sentences until the paragraph holds between ``min_words`` and ``max_words`` words."""
    target = rng.randint(min_words, max_words)
    sentences: list[str] = []
    count = 0
    while count < target:
        sentence = random_sentence(rng, 6, min(16, max(6, target - count)))
        sentences.append(sentence)
        count += len(sentence.split())
    return " ".join(sentences)


@contextlib.asynccontextmanager
async def isolated_engramdb(
    embedder: str, *, fake_dimensions: int = 64, prefix: str = "engramdb-bench-"
) -> AsyncIterator[Path]:
    """Point engramdb at a fresh temporary data directory with the chosen embedder; on exit
    forget everything, close the engine and delete the directory."""
    import engramdb
    from engramdb.engine import get_engine, set_engine

    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    _use_store(data_dir, embedder, fake_dimensions)
    try:
        yield data_dir
    finally:
        try:
            with contextlib.suppress(Exception):
                await engramdb.forget(everything=True)
            await get_engine().close()
            set_engine(None)
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)


def _use_store(data_dir: Path, embedder: str, fake_dimensions: int) -> None:
    """Point engramdb at the SQLite store in ``data_dir`` with the chosen embedder."""
    import engramdb

    engramdb.config.set("engramdb_data_dir", data_dir)
    engramdb.config.set("engramdb_storage_url", "")
    engramdb.config.set("embedding_provider", embedder)
    engramdb.config.set("embedding_dimensions", fake_dimensions if embedder == "fake" else 384)


@contextlib.asynccontextmanager
async def kept_engramdb(
    embedder: str, keep: Path | None, *, fake_dimensions: int = 64, prefix: str = "engramdb-bench-"
) -> AsyncIterator[Path]:
    """:func:`isolated_engramdb`, or with ``keep`` (a benchmark's --keep-store DIR) a store kept
    in DIR and reused by the next run, which then skips ingestion (delete DIR after changing
    ingestion)."""
    if keep is None:
        async with isolated_engramdb(
            embedder, fake_dimensions=fake_dimensions, prefix=prefix
        ) as data_dir:
            yield data_dir
        return
    from engramdb.engine import get_engine, set_engine

    keep.mkdir(parents=True, exist_ok=True)
    _use_store(keep, embedder, fake_dimensions)
    try:
        yield keep
    finally:
        await get_engine().close()
        set_engine(None)


def use_multi_hop() -> None:
    """--multi-hop of hotpotqa.py and locomo.py: HYBRID_COMPLETION with ``hybrid.MULTI_HOP``
    and GRAPH_COMPLETION with its graph lane and prose split, the configuration measured for
    issue 18."""
    from engramdb.retrieval.retrievers import graph_completion, hybrid

    hybrid.HybridRetriever.__init__.__defaults__ = (hybrid.MULTI_HOP,)
    graph_completion.GRAPH_LANE_WEIGHT = 1.0
    graph_completion.PROSE_PASSAGE_WORDS = 50
    graph_completion.PASSAGE_SCORING = graph_completion.MULTI_HOP_PASSAGE_SCORING


def write_json(path: str | None, payload: dict[str, Any]) -> None:
    if not path:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"\nwrote {target}")


def format_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))

    def line(values: Sequence[str]) -> str:
        parts = [
            values[i].ljust(widths[i]) if i == 0 else values[i].rjust(widths[i])
            for i in range(len(values))
        ]
        return "  ".join(parts).rstrip()

    out = [line(list(headers)), line(["-" * w for w in widths])]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


# --- timing another checkout's code in the same run ----------------------------------------------


def add_code_trees(parser: argparse.ArgumentParser) -> None:
    """``--src`` / ``--baseline-src`` (a baseline tree's code timed in the same run, in child
    processes) and the child processes' hidden ``--data-dir`` / ``--storage-url``."""
    parser.add_argument("--src", default=str(REPO_ROOT / "src"), help="code to time")
    parser.add_argument("--baseline-src", help="also time this tree's code (e.g. main's src)")
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--storage-url", default="", help=argparse.SUPPRESS)


def code_trees(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(label, src directory) of each tree to time: the baseline first, when given."""
    return ([("baseline", args.baseline_src)] if args.baseline_src else []) + [("new", args.src)]


def tree_env(src: str) -> dict[str, str]:
    """The environment of a child process running ``src``'s code (and this folder's modules)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([src, str(Path(__file__).parent)]))
