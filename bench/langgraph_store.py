"""EngramdbStore beside LangGraph's InMemoryStore: put / get / search latency in one run.

Run from the repository root::

    .venv/bin/python bench/langgraph_store.py                       # the real ONNX embedder
    .venv/bin/python bench/langgraph_store.py --embedder fake --items 1000

Both stores get the same items (``--items``, spread over ``--namespaces`` namespaces
``("memories", "user-N")``, each value ``{"text": <sentence>, "n": i}``) and embed the ``text``
field with the same embedder (engramdb's, also handed to InMemoryStore as its ``embed``
function), so the difference is the store, not the model. Timed one call at a time, as an
agent loop makes them: ``put`` of new items, ``put`` replacing an item, ``get``, ``search`` with
a filter only, ``search`` with a query (semantic, limit 5) within one user's namespace and across
all of them, and ``list_namespaces``. EngramdbStore persists to SQLite in a temporary data
directory; InMemoryStore keeps everything in a dict.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    format_table,
    latency_summary,
    load_note,
    pin_cores,
    random_sentence,
    write_json,
)


def _timed(calls: list[Callable[[], Any]]) -> list[float]:
    seconds = []
    for call in calls:
        t0 = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - t0)
    return seconds


def _workload(store: Any, items: int, namespaces: int, rng: random.Random) -> dict[str, Any]:
    texts = [random_sentence(rng) for _ in range(items)]
    ns = [("memories", f"user-{i % namespaces}") for i in range(items)]
    queries = [random_sentence(rng, 4, 8) for _ in range(50)]
    out: dict[str, Any] = {}
    out["put (new)"] = _timed(
        [(lambda i=i: store.put(ns[i], f"k{i}", {"text": texts[i], "n": i})) for i in range(items)]
    )
    picks = [rng.randrange(items) for _ in range(max(1, items // 4))]
    out["put (replace)"] = _timed(
        [(lambda i=i: store.put(ns[i], f"k{i}", {"text": texts[-i - 1], "n": i})) for i in picks]
    )
    gets = [rng.randrange(items) for _ in range(items)]
    out["get"] = _timed([(lambda i=i: store.get(ns[i], f"k{i}")) for i in gets])
    out["search filter"] = _timed(
        [(lambda i=i: store.search(ns[i], filter={"n": {"$gte": i}}, limit=5)) for i in gets[:50]]
    )
    out["search query, 1 ns"] = _timed(
        [
            (lambda q=q, i=i: store.search(ns[i], query=q, limit=5))
            for q, i in zip(queries, gets[:50], strict=True)
        ]
    )
    out["search query, all"] = _timed(
        [(lambda q=q: store.search(("memories",), query=q, limit=5)) for q in queries]
    )
    out["list_namespaces"] = _timed([lambda: store.list_namespaces(prefix=("memories",))] * 20)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--namespaces", type=int, default=10)
    parser.add_argument("--embedder", default="onnx", help="onnx (default) or fake")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    pin_cores(args.cores)
    print(load_note(args.cores))

    import tempfile

    from langgraph.store.memory import InMemoryStore

    import engramdb
    from engramdb.integrations.langgraph import EngramdbStore
    from engramdb.providers.embedding.factory import build_embedder

    engramdb.config.set("embedding_provider", args.embedder)
    engramdb.config.set("embedding_dimensions", 64 if args.embedder == "fake" else 384)
    embedder = build_embedder(engramdb.config.settings)

    def embed(texts: list[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in asyncio.run(embedder.embed(texts))]

    ours = EngramdbStore(
        data_dir=tempfile.mkdtemp(prefix="engramdb-bench-lg-"), index={"fields": ["text"]}
    )
    stores = {
        "InMemoryStore": InMemoryStore(
            index={"dims": embedder.dimension, "embed": embed, "fields": ["text"]}
        ),
        "EngramdbStore": ours,
    }
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for name, store in stores.items():
        t0 = time.perf_counter()
        timings = _workload(store, args.items, args.namespaces, random.Random(7))
        wall = time.perf_counter() - t0
        figures[name] = {op: latency_summary(s) for op, s in timings.items()}
        print(f"{name}: wall {wall:.1f} s")
    ops = list(figures["InMemoryStore"])
    rows = [
        [
            op,
            figures["InMemoryStore"][op]["p50_ms"],
            figures["InMemoryStore"][op]["p95_ms"],
            figures["EngramdbStore"][op]["p50_ms"],
            figures["EngramdbStore"][op]["p95_ms"],
        ]
        for op in ops
    ]
    print(f"\n{args.items} items in {args.namespaces} namespaces, embedder {embedder.model_name}\n")
    print(
        format_table(
            ["operation", "InMemory p50 ms", "p95", "Engramdb p50 ms", "p95"],
            rows,
        )
    )
    ours.close()
    write_json(args.json, {"items": args.items, "embedder": args.embedder, "figures": figures})


if __name__ == "__main__":
    main()
