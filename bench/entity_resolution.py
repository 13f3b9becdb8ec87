"""Entity resolution: alias-pair precision / recall / F1 on a hand-labelled gold set.

Run from the repository root::

    .venv/bin/python bench/entity_resolution.py --hotpot-data /work/shared/data/hotpotqa_cognee50 \\
        --locomo-data /work/shared/data/locomo/locomo_dev.json
    .venv/bin/python bench/entity_resolution.py ... --verbose     # every pair and its outcome

**Gold** (``bench/entity_resolution_gold.jsonl``, written by hand): pairs of mentions, each
citing the document it was read in (``hotpotqa:<paragraph index>`` of the HotpotQA-50 corpus,
``locomo:<conversation>:session_<n>``), labelled ``same`` (one entity) or not: surnames, first
names, titles, middle names, spellings, a nickname, mentions in two documents, and pairs that
must stay apart (a mother and her son, two brothers, two emperors, two people sharing a surname
across documents). The texts are read in place (``--hotpot-data``/``$ENGRAMDB_HOTPOT_DATA``,
``--locomo-data``/``$ENGRAMDB_BENCH_DATA``) and never copied; the gold file's notes quote a
few words of HotpotQA (CC BY-SA 4.0, Yang et al. 2018) and nothing of LoCoMo (CC BY-NC 4.0).

**Method.** The cited documents are remembered as the benchmarks remember them (the HotpotQA
paragraphs, one document each, in one dataset; each conversation's sessions, one document each,
in one dataset per conversation), with the offline extractor and the fake embedder. A mention
is found in a document when an entity node that one of the document's chunks ``contains`` is
named by it or lists it among its ``aliases`` (compared case-insensitively; a mention's leading
titles may be absent, since the extractors drop them before naming). A pair is predicted
``same`` when both mentions find a common node. Precision = correct ``same`` / predicted
``same``; recall = correct ``same`` / gold ``same``. The script uses only the public API, so
the same file measures another checkout (``PYTHONPATH=<checkout>/src``) for a before/after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, format_table, isolated_engramdb, pin_cores
from locomo import load_conversations

GOLD = REPO_ROOT / "bench" / "entity_resolution_gold.jsonl"
DEFAULT_HOTPOT = REPO_ROOT.parent / "shared" / "data" / "hotpotqa_cognee50"
DEFAULT_LOCOMO = REPO_ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
_EDGE = " .,:;!?\"'()[]{}“”‘’«»"


@dataclass(frozen=True, slots=True)
class Pair:
    a: str
    b: str
    same: bool
    kind: str
    source_a: str
    source_b: str


def load_gold(path: Path) -> list[Pair]:
    pairs: list[Pair] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            pairs.append(
                Pair(raw["a"], raw["b"], raw["same"], raw["kind"], raw["source_a"], raw["source_b"])
            )
    return pairs


def _path(option: str | None, env: str, default: Path) -> Path:
    raw = option or os.environ.get(env)
    return Path(raw).expanduser().resolve() if raw else default.resolve()


def load_sources(pairs: Sequence[Pair], hotpot: Path, locomo: Path) -> dict[str, tuple[str, str]]:
    """source id -> (dataset name, document text) for every cited source."""
    cited = {s for p in pairs for s in (p.source_a, p.source_b)}
    out: dict[str, tuple[str, str]] = {}
    if any(s.startswith("hotpotqa:") for s in cited):
        corpus = json.loads((hotpot / "hotpot_50_corpus.json").read_text(encoding="utf-8"))
        for s in cited:
            if s.startswith("hotpotqa:"):
                out[s] = ("hotpot", corpus[int(s.split(":")[1])])
    if any(s.startswith("locomo:") for s in cited):
        conversations, _ = load_conversations(locomo, None)
        for conv in conversations:
            for session in conv.sessions:
                sid = f"locomo:{conv.sample_id}:session_{session.number}"
                if sid in cited:
                    out[sid] = (conv.dataset, session.text)
    missing = sorted(cited - set(out))
    if missing:
        sys.exit(f"sources not found in the data: {missing}")
    return out


def _neutral(text: str) -> str:
    return " ".join(text.casefold().split()).strip(_EDGE)


def _spellings(mention: str) -> set[str]:
    """The mention, and the mention without leading titles ("Sheriff Dibba" → "Dibba")."""
    from engramdb.extract.heuristic.gazetteer import TITLES

    words = mention.split()
    out = {_neutral(mention)}
    while len(words) > 1 and words[0].casefold().rstrip(".") in TITLES:
        words = words[1:]
        out.add(_neutral(" ".join(words)))
    return out


async def entity_surfaces(sources: dict[str, tuple[str, str]]) -> dict[str, dict[str, set[str]]]:
    """Remember the sources; source id -> entity node id -> its name and aliases (neutral)."""
    import engramdb
    from engramdb.models.records import NodeType

    by_dataset: dict[str, list[str]] = defaultdict(list)
    for sid, (dataset, _) in sorted(sources.items()):
        by_dataset[dataset].append(sid)
    out: dict[str, dict[str, set[str]]] = {sid: {} for sid in sources}
    for dataset, sids in by_dataset.items():
        texts = [sources[s][1] for s in sids]
        await engramdb.remember(texts, dataset_name=dataset, self_improvement=False)
        graph = await engramdb.get_graph([dataset], limit=100_000)
        nodes = {n.id: n for n in graph.nodes}
        chunk_source: dict[Any, str] = {}
        for node in graph.nodes_of_type(NodeType.CHUNK):
            head = node.text.strip()[:200]
            chunk_source[node.id] = next(s for s, t in zip(sids, texts, strict=True) if head in t)
        for edge in graph.edges:
            if edge.relation != "contains" or edge.source_id not in chunk_source:
                continue
            entity = nodes.get(edge.target_id)
            if entity is None or entity.type != NodeType.ENTITY:
                continue
            aliases = entity.properties.get("aliases") or []
            names = {_neutral(entity.name), *(_neutral(a) for a in aliases)}
            out[chunk_source[edge.source_id]][str(entity.id)] = names
    return out


def nodes_for(mention: str, surfaces: dict[str, set[str]]) -> set[str]:
    spellings = _spellings(mention)
    return {node for node, names in surfaces.items() if names & spellings}


def score(rows: Sequence[tuple[Pair, bool]]) -> tuple[int, int, int, float, float, float]:
    tp = sum(1 for p, same in rows if same and p.same)
    fp = sum(1 for p, same in rows if same and not p.same)
    fn = sum(1 for p, same in rows if not same and p.same)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return tp, fp, fn, precision, recall, f1


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", default=str(GOLD), help=f"gold pairs (default {GOLD})")
    parser.add_argument("--hotpot-data", help=f"HotpotQA-50 directory (default {DEFAULT_HOTPOT})")
    parser.add_argument("--locomo-data", help=f"locomo_dev.json (default {DEFAULT_LOCOMO})")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print every pair")
    return parser.parse_args(argv)


async def run(args: argparse.Namespace) -> int:
    pairs = load_gold(Path(args.gold))
    hotpot = _path(args.hotpot_data, "ENGRAMDB_HOTPOT_DATA", DEFAULT_HOTPOT)
    locomo = _path(args.locomo_data, "ENGRAMDB_BENCH_DATA", DEFAULT_LOCOMO)
    sources = load_sources(pairs, hotpot, locomo)
    t0 = time.perf_counter()
    async with isolated_engramdb("fake"):
        surfaces = await entity_surfaces(sources)
    elapsed = time.perf_counter() - t0
    rows: list[tuple[Pair, bool]] = []
    found = 0
    for pair in pairs:
        a = nodes_for(pair.a, surfaces[pair.source_a])
        b = nodes_for(pair.b, surfaces[pair.source_b])
        found += bool(a) + bool(b)
        rows.append((pair, bool(a & b)))
        if args.verbose:
            verdict = "same" if a & b else "apart"
            ok = "ok " if (a & b and pair.same) or (not a & b and not pair.same) else "ERR"
            print(
                f"{ok} {verdict:5} gold={'same' if pair.same else 'apart':5} {pair.kind:15} "
                f"{pair.a!r} ~ {pair.b!r} ({pair.source_a}, {pair.source_b})"
                f"{'' if a else ' [a not found]'}{'' if b else ' [b not found]'}"
            )
    import engramdb

    print(f"engramdb at {Path(engramdb.__file__).parent}")
    print(
        f"{len(pairs)} gold pairs ({sum(p.same for p in pairs)} same), "
        f"{len(sources)} documents remembered in {elapsed:.1f} s; "
        f"{found} of {2 * len(pairs)} mentions found\n"
    )
    kinds = sorted({p.kind for p in pairs})
    table = []
    for kind in [*kinds, "all"]:
        subset = [(p, s) for p, s in rows if kind in ("all", p.kind)]
        tp, fp, fn, precision, recall, f1 = score(subset)
        table.append(
            (kind, len(subset), tp, fp, fn, f"{precision:.3f}", f"{recall:.3f}", f"{f1:.3f}")
        )
    print(format_table(("kind", "pairs", "tp", "fp", "fn", "precision", "recall", "F1"), table))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    pin_cores(args.cores)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
