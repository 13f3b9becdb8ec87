"""LLM calls per document of separate remember() calls (issue 17), before and after the
extraction queue, against the local OpenAI-protocol server the tests use.

Run from the repository root::

    .venv/bin/python bench/separate_remembers.py              # 60 documents
    .venv/bin/python bench/separate_remembers.py --documents 120 --json bench/results/sep.json

Each pass starts from an empty data directory (fake embedder) and remembers the same short
notes (one chunk each) ONE CALL AT A TIME with the automatic improve on (so the conflict
review runs too), then makes one graph read (which extracts anything still queued). The server
(``tests/support/openai_server.py`` with ``tests/support/chunk_answers.py``: every chunk of a
request answered on its own) counts what it receives: extraction calls, review calls, total.
Passes:

* ``before``: the defaults (``ENGRAMDB_EXTRACTION_BATCH_REMEMBERS=1``,
  ``IMPROVE_REVIEW_BATCH_REMEMBERS=1``): one extraction and one review per remember;
* ``queue``: ``ENGRAMDB_EXTRACTION_BATCH_REMEMBERS=8`` (one full extraction call's worth);
* ``queue+review``: the same with ``IMPROVE_REVIEW_BATCH_REMEMBERS=4``;
* ``batched``: one remember() of the whole list (the reference point for the graph).

The graph of every pass (nodes by type, name and text; edges by names and relation) is compared
with the batched pass's.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from tests.support.chunk_answers import chunk_answers, is_extraction, is_review
from tests.support.openai_server import OpenAIServer

from _common import format_table, isolated_engramdb, write_json

CITIES = ("Paris", "Berlin", "Rome", "Oslo", "Lima", "Cairo", "Quito", "Dakar")
PASSES: dict[str, dict[str, int]] = {
    "before": {},
    "queue": {"engramdb_extraction_batch_remembers": 8},
    "queue+review": {
        "engramdb_extraction_batch_remembers": 8,
        "improve_review_batch_remembers": 4,
    },
    "batched": {},
}


def note(i: int) -> str:
    return f"Note {i}: Alice Smith met Bob{i} Jones in {CITIES[i % len(CITIES)]} on day {i}."


async def _graph() -> tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]:
    from engramdb.engine import get_engine

    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, "main_dataset")
    assert dataset is not None
    nodes = await engine.store.list_nodes([dataset.id], limit=1_000_000)
    names = {n.id: n.name for n in nodes}
    edges = await engine.store.list_edges([dataset.id], limit=1_000_000)
    graph = {n.type for n in nodes} - {"Entity", "EntityType", "Document", "Chunk", "Summary"}
    keep = [n for n in nodes if n.type not in graph]  # improve's derived nodes left out
    return (
        {(n.type, n.name, n.text) for n in keep},
        {
            (names[e.source_id], e.relation, names[e.target_id])
            for e in edges
            if e.source_id in {k.id for k in keep} and e.target_id in {k.id for k in keep}
        },
    )


async def run_pass(name: str, server: OpenAIServer, documents: int) -> dict[str, Any]:
    import engramdb
    from engramdb import SearchType

    server.reset()
    server.set_default("chat/completions", chunk_answers(server))
    async with isolated_engramdb("fake"):
        engramdb.config.set("llm_endpoint", server.base_url)
        engramdb.config.set("llm_api_key", "bench-key")
        engramdb.config.set("llm_max_retries", 0)
        engramdb.config.set("engramdb_extraction_batch_seconds", 0)
        for key, value in PASSES[name].items():
            engramdb.config.set(key, value)
        texts = [note(i) for i in range(documents)]
        started = time.perf_counter()
        if name == "batched":
            await engramdb.remember(texts)
        else:
            for text in texts:
                await engramdb.remember(text)
        await engramdb.recall("Alice", query_type=SearchType.GRAPH_COMPLETION, only_context=True)
        seconds = time.perf_counter() - started
        graph = await _graph()
        for key in PASSES[name]:
            engramdb.config.set(key, 1)
    requests = server.requests_to("chat/completions")
    extraction = sum(map(is_extraction, requests))
    review = sum(map(is_review, requests))
    return {
        "pass": name,
        "documents": documents,
        "extraction_calls": extraction,
        "review_calls": review,
        "calls": len(requests),
        "calls_per_document": round(len(requests) / documents, 3),
        "extraction_per_document": round(extraction / documents, 3),
        "seconds": round(seconds, 2),
        "graph": graph,
    }


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=60)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    with OpenAIServer() as server:
        rows = [await run_pass(name, server, args.documents) for name in PASSES]
    reference = rows[-1]["graph"]
    for row in rows:
        nodes, edges = row.pop("graph")
        row["nodes"], row["edges"] = len(nodes), len(edges)
        row["graph_equals_batched"] = (nodes, edges) == reference
    headers = list(rows[0])
    print(format_table(headers, [[row[h] for h in headers] for row in rows]))
    base = rows[0]["calls"]
    for row in rows[1:]:
        print(f"{row['pass']}: {row['calls'] / base:.3f}x the calls of 'before'")
    write_json(args.json, {"rows": rows})
    ok = rows[2]["calls_per_document"] <= 0.3 and all(r["graph_equals_batched"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
