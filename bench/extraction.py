"""Offline graph extraction: quality on the gold set and speed on real chunks.

Run from the repository root::

    .venv/bin/python bench/extraction.py                     # gold-set scores + speed
    .venv/bin/python bench/extraction.py --errors dev        # per-item misses on the dev split
    .venv/bin/python bench/extraction.py --data ../shared/data --json bench/results/extraction.json

Quality: tests/data/extraction_gold.jsonl (hand-written; scoring rules in
tests/unit/extract/gold.py): entity precision/recall/F1 strict (name + type) and lenient
(name only), relation P/R/F1 by endpoint pair and with a compatible relation name.

Bounds: seconds for one pathological text each (one huge sentence of coordinations,
conjunctions, parentheses or repeated words; ten thousand distinct capitalised names; a megabyte),
beside the same extractor on ordinary prose of the same length in the same run (the ratio).

Speed: chunks per second on ~300-token chunks (about 230 words, the MiniLM tokenizer's
~1.3 tokens per English word) cut from LoCoMo conversations (``<data>/locomo/locomo_dev.json``,
turns rendered "Speaker: text" as bench/locomo.py does) and HotpotQA paragraphs
(``<data>/hotpotqa_cognee50/hotpot_50_corpus.json``). ``--data`` defaults to
``../shared/data`` relative to the repository root; the data is read, never copied.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from tests.unit.extract.cases import (  # noqa: E402
    HUGE_SENTENCES,
    SEED_ALICE,
    ten_thousand_capitalised_words,
)
from tests.unit.extract.gold import Scores, load_gold, score_item  # noqa: E402

from engramdb.extract.offline import HeuristicExtractor  # noqa: E402
from engramdb.extract.types import ChunkExtraction, Extractor  # noqa: E402

_WORDS_PER_CHUNK = 230


def _pin_cores(cores: int) -> list[int]:
    if cores <= 0 or not hasattr(os, "sched_setaffinity"):
        return []
    chosen = sorted(os.sched_getaffinity(0))[:cores]
    os.sched_setaffinity(0, chosen)
    return chosen


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [
        [f"{c:.3f}" if isinstance(c, float) else str(c) for c in row] for row in rows
    ]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _extractors(names: Sequence[str]) -> dict[str, Extractor]:
    out: dict[str, Extractor] = {}
    for name in names:
        if name == "heuristic":
            out[name] = HeuristicExtractor()
        elif name == "heuristic+cooc":
            out[name] = HeuristicExtractor(cooccurrence=True)
        elif name == "spacy":
            try:
                from engramdb.extract.spacy_extractor import SpacyExtractor, spacy_available
            except ImportError:
                continue
            if spacy_available():
                out[name] = SpacyExtractor()
            else:
                print("spaCy is not installed: skipping the spacy extractor", file=sys.stderr)
    return out


def _run(extractor: Extractor, texts: list[str]) -> list[ChunkExtraction]:
    return asyncio.run(extractor.extract(texts))


def quality(
    extractors: dict[str, Extractor], errors: str | None
) -> tuple[list[list[object]], dict[str, Any]]:
    gold = load_gold()
    rows: list[list[object]] = []
    payload: dict[str, Any] = {}
    for name, extractor in extractors.items():
        results = _run(extractor, [g.text for g in gold])
        for split in ("dev", "heldout", "all"):
            total = Scores()
            for item, res in zip(gold, results, strict=True):
                if split != "all" and item.split != split:
                    continue
                s = score_item(
                    item,
                    [(e.name, e.type) for e in res.entities],
                    [(r.source, r.relation, r.target) for r in res.relations],
                )
                total.add(s)
                if errors == item.split and split == item.split and split != "all":
                    _print_errors(name, item, res, s)
            row: list[object] = [name, split]
            for c in (total.strict, total.lenient, total.pairs, total.labelled):
                row += [c.precision, c.recall, c.f1]
            rows.append(row)
            payload[f"{name}/{split}"] = row[2:]
    return rows, payload


def _print_errors(name: str, item: Any, res: ChunkExtraction, s: Scores) -> None:
    from tests.unit.extract.gold import norm

    gold_e = {(norm(n), t) for n, t in item.entities}
    pred_e = {(norm(e.name), e.type) for e in res.entities}
    opt = {norm(o) for o in item.optional}
    gold_r = {(norm(a), norm(b)) for a, _, b in item.relations}
    pred_r = {(norm(r.source), norm(r.target)): r.relation for r in res.relations}
    miss = sorted(gold_e - pred_e)
    extra = sorted(p for p in pred_e - gold_e if p[0] not in opt)
    rmiss = sorted(gold_r - set(pred_r))
    rextra = sorted(
        f"{a}-{pred_r[(a, b)]}->{b}"
        for a, b in set(pred_r) - gold_r
        if a not in opt and b not in opt
    )
    if miss or extra or rmiss or rextra:
        print(f"[{name}] {item.id}: {item.text}")
        if miss:
            print(f"    missing entities: {miss}")
        if extra:
            print(f"    extra entities:   {extra}")
        if rmiss:
            print(f"    missing relations: {rmiss}")
        if rextra:
            print(f"    extra relations:   {rextra}")
    del s


def _chunks(words: list[str]) -> list[str]:
    return [
        " ".join(words[i : i + _WORDS_PER_CHUNK])
        for i in range(0, len(words) - _WORDS_PER_CHUNK // 2, _WORDS_PER_CHUNK)
    ]


def load_chunks(data: Path, limit: int) -> dict[str, list[str]]:
    """~300-token chunks: LoCoMo sessions (paragraph-aligned) and HotpotQA paragraphs."""
    corpora: dict[str, list[str]] = {}
    locomo = data / "locomo" / "locomo_dev.json"
    if locomo.exists():
        chunks: list[str] = []
        for sample in json.loads(locomo.read_text(encoding="utf-8")):
            conv = sample["conversation"]
            n = 1
            while f"session_{n}" in conv:
                paras = [f"Session {n}: {conv.get(f'session_{n}_date_time', '')}"]
                paras += [f"{t['speaker']}: {t['text']}" for t in conv[f"session_{n}"]]
                current: list[str] = []
                count = 0
                for p in paras:
                    current.append(p)
                    count += len(p.split())
                    if count >= _WORDS_PER_CHUNK:
                        chunks.append("\n\n".join(current))
                        current, count = [], 0
                if current:
                    chunks.append("\n\n".join(current))
                n += 1
        corpora["locomo"] = chunks[:limit]
    hotpot = data / "hotpotqa_cognee50" / "hotpot_50_corpus.json"
    if hotpot.exists():
        paragraphs = json.loads(hotpot.read_text(encoding="utf-8"))
        words = " ".join(str(p) for p in paragraphs).split()
        corpora["hotpotqa"] = _chunks(words)[:limit]
    return corpora


def speed(
    extractors: dict[str, Extractor], corpora: dict[str, list[str]], repeat: int
) -> tuple[list[list[object]], dict[str, Any]]:
    rows: list[list[object]] = []
    payload: dict[str, Any] = {}
    for name, extractor in extractors.items():
        _run(extractor, ["Warm-up: Alice moved to Paris in 2010."])
        for corpus, chunks in corpora.items():
            best = float("inf")
            results: list[ChunkExtraction] = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                results = _run(extractor, chunks)
                best = min(best, time.perf_counter() - t0)
            ents = sum(len(r.entities) for r in results) / max(1, len(results))
            rels = sum(len(r.relations) for r in results) / max(1, len(results))
            types = Counter(e.type for r in results for e in r.entities)
            top = ", ".join(f"{t} {c}" for t, c in types.most_common(5))
            rate = len(chunks) / best if best > 0 else float("inf")
            rows.append(
                [name, corpus, len(chunks), round(rate, 1), round(ents, 1), round(rels, 1), top]
            )
            payload[f"{name}/{corpus}"] = {
                "chunks_per_s": rate,
                "entities": ents,
                "relations": rels,
            }
    return rows, payload


def _prose(length: int) -> str:
    return ((SEED_ALICE + " ") * (length // (len(SEED_ALICE) + 1) + 1))[:length]


def bounds(extractors: dict[str, Extractor]) -> list[list[object]]:
    """Each pathological text's extraction time beside ordinary prose of its length."""
    texts = {
        **HUGE_SENTENCES,
        "10k capitalised names": ten_thousand_capitalised_words(),
        "one megabyte": _prose(1_000_000),
    }
    rows: list[list[object]] = []
    for name, extractor in extractors.items():
        for label, text in texts.items():
            took = []
            for sample in (text, _prose(len(text))):
                t0 = time.perf_counter()
                _run(extractor, [sample])
                took.append(time.perf_counter() - t0)
            ratio = took[0] / took[1] if took[1] > 0 else float("inf")
            rows.append(
                [name, label, len(text), round(took[0], 3), round(took[1], 3), round(ratio, 2)]
            )
    return rows


def _show(extractors: dict[str, Extractor], chunks: list[str], n: int) -> None:
    for text in chunks[:n]:
        print("=" * 100)
        print(text[:1500])
        for name, extractor in extractors.items():
            res = _run(extractor, [text])[0]
            print(f"--- {name}: {len(res.entities)} entities, {len(res.relations)} relations")
            print("   ", ", ".join(f"{e.name}/{e.type}" for e in res.entities))
            for r in res.relations:
                print(f"    {r.source} -{r.relation}-> {r.target}")
            print("    summary:", res.summary)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--extractors", default="heuristic,heuristic+cooc,spacy")
    parser.add_argument("--data", default=str(REPO_ROOT.parent / "shared" / "data"))
    parser.add_argument("--limit", type=int, default=300, help="chunks per corpus for speed")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--errors", choices=["dev", "heldout"], default=None)
    parser.add_argument("--show", type=int, default=0, help="print N LoCoMo chunk extractions")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    cores = _pin_cores(args.cores)
    extractors = _extractors(args.extractors.split(","))
    print(f"cores: {cores or 'all'}; extractors: {', '.join(extractors)}")
    rows, q_payload = quality(extractors, args.errors)
    print("\nGold set (tests/data/extraction_gold.jsonl): entity and relation P / R / F1\n")
    print(
        _table(
            [
                "extractor",
                "split",
                "ent P",
                "ent R",
                "ent F1",
                "len P",
                "len R",
                "len F1",
                "pair P",
                "pair R",
                "pair F1",
                "lab P",
                "lab R",
                "lab F1",
            ],
            rows,
        )
    )
    payload: dict[str, Any] = {"quality": q_payload}
    if not args.no_speed:
        print("\nBounds: one pathological text each, beside ordinary prose of its length\n")
        print(_table(["extractor", "text", "chars", "s", "prose s", "ratio"], bounds(extractors)))
    corpora = {} if args.no_speed else load_chunks(Path(args.data), args.limit)
    if args.show and corpora.get("locomo"):
        _show(extractors, corpora["locomo"], args.show)
    if corpora:
        s_rows, s_payload = speed(extractors, corpora, args.repeat)
        print("\nSpeed on ~300-token chunks (best of --repeat runs)\n")
        print(
            _table(
                [
                    "extractor",
                    "corpus",
                    "chunks",
                    "chunks/s",
                    "ent/chunk",
                    "rel/chunk",
                    "top types",
                ],
                s_rows,
            )
        )
        payload["speed"] = s_payload
    elif not args.no_speed:
        print(f"\nno data under {args.data}: speed not measured")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
