"""Recall latency at 10k and 100k chunks, import time and idle memory.

Run from the repository root::

    .venv/bin/python bench/recall_latency.py
    .venv/bin/python bench/recall_latency.py --sizes 10000 --queries 100
    .venv/bin/python bench/recall_latency.py --graph     # synthetic entities, relations, summaries

Embedding 100k chunks with the ONNX model would take hours, so the store is filled directly:
``store.write_document`` with documents of 100 Chunk nodes each (the shape the ingestion
pipeline writes: a Document node, Chunk nodes, ``is_part_of`` edges, one vector per chunk in the
``chunks`` collection and the chunk text in the ``chunks`` full-text collection), with random
unit 384-d float32 vectors. The dataset is marked as built with all-MiniLM-L6-v2 (384), so
``recall`` embeds each query with the real ONNX model. Chunk texts are synthetic English-like
text: function words mixed with content words drawn from a Zipf distribution over ~30k words,
so full-text posting lists have realistic lengths. Queries are short questions over the same
vocabulary.

Measured on a warm store (the engine is reopened after populating, a few warm-up queries run
first, and the first "cold" query is reported separately): p50/p95 of the full
``engramdb.recall`` call, and separately of the query embedding, ``store.vector_search`` and
``store.lexical_search`` alone. HYBRID_COMPLETION and GRAPH_COMPLETION are timed with
``only_context=True`` (no LLM is configured: the call returns the prompt it would send).

By default the synthetic store holds **chunks only** — no entities, relations or summaries — so
the graph types find no graph to walk there. ``--graph`` builds every document with
``engramdb.ingest.graph_builder.plan_document`` instead, from synthetic
``ChunkExtraction`` items (4 entities drawn from a Zipf distribution, so a few are hubs shared by
many chunks, 3 relations between them and a one-sentence summary per chunk), with random
vectors for chunks, summaries and new entities.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import numpy as np

from _common import (
    REPO_ROOT,
    WORDS,
    current_rss_mb,
    format_table,
    isolated_engramdb,
    latency_summary,
    load_note,
    peak_rss_mb,
    pin_cores,
    random_paragraph,
    write_json,
)

DATASET = "latency"
ENTITIES_PER_CHUNK = 4
RELATIONS_PER_CHUNK = 3
_ENTITY_TYPES = ("PERSON", "PLACE", "CONCEPT")
_RELATIONS = ("knows", "visited", "works_for", "likes", "mentions", "lives_in", "owns")
MODEL, DIM = "all-MiniLM-L6-v2", 384
CHUNKS_PER_DOC = 100
TARGET_CHUNKS_P50_MS = 30.0
TARGET_IMPORT_S = 0.3
TARGET_IDLE_RSS_MB = 300.0

_FUNCTION = "the of and a to in is was that for it with as on at by from he she they we you "
_FUNCTION += "his her their this be have had not but or an are were which when there what all one "
_FUNCTION += "so if about"
FUNCTION_WORDS = _FUNCTION.split()
_SYLLABLES = "ba be bi bo bu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re "
_SYLLABLES += "ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu dor len mar "
_SYLLABLES += "tis van gel"
SYLLABLES = _SYLLABLES.split()


class TextGenerator:
    """English-like synthetic text: ~45 % function words, the rest content words drawn from a
    Zipf(1.0) distribution over the common-word list followed by ~30k pseudo-words."""

    def __init__(self, seed: int, vocabulary: int = 30_000) -> None:
        self.rng = np.random.default_rng(seed)
        words = list(dict.fromkeys(WORDS))
        pseudo_rng = random.Random(seed)
        seen = set(words)
        while len(words) < vocabulary:
            w = "".join(pseudo_rng.choice(SYLLABLES) for _ in range(pseudo_rng.randint(2, 4)))
            if w not in seen:
                seen.add(w)
                words.append(w)
        self.vocab = np.array(words, dtype=object)
        weights = 1.0 / (np.arange(len(words)) + 2.7)
        self.p = weights / weights.sum()
        self.function = np.array(FUNCTION_WORDS, dtype=object)

    def content(self, n: int) -> list[str]:
        return list(self.rng.choice(self.vocab, size=n, p=self.p))

    def chunk(self, n_words: int) -> str:
        is_function = self.rng.random(n_words) < 0.45
        content = iter(self.content(int((~is_function).sum())))
        function = iter(self.rng.choice(self.function, size=int(is_function.sum())))
        out: list[str] = []
        for i, f in enumerate(is_function):
            out.append(str(next(function) if f else next(content)))
            if i % 12 == 11:
                out[-1] += "."
        return " ".join(out) + "."

    def question(self) -> str:
        c = self.content(4)
        templates = (
            "What did the {0} say about the {1} in {2}?",
            "When was the {0} {1} moved to the {2}?",
            "Why does {0} keep the {1} and the {2} {3}?",
            "Where is the {0} of the {1}?",
            "How did they {0} {1} {2} with {3}?",
        )
        return str(self.rng.choice(np.array(templates, dtype=object))).format(*c)


def build_write(dataset_id: UUID, doc_index: int, texts: list[str], vectors: np.ndarray) -> Any:
    """A DocumentWrite shaped like the one ``ingest.pipeline.build_document_write`` makes."""
    from engramdb.graph_schema import CHUNK_COLLECTION
    from engramdb.models.records import DataRecord, Edge, Node, NodeType, stable_id, utcnow
    from engramdb.storage.base import DocumentWrite, VectorRow

    body = "\n\n".join(texts)
    content_hash = hashlib.sha256(body.encode("utf-8")).hexdigest()
    data_id = stable_id("data", dataset_id, content_hash)
    name = f"bench_doc_{doc_index:06d}"
    data = DataRecord(
        id=data_id,
        dataset_id=dataset_id,
        name=name,
        content_hash=content_hash,
        mime_type="text/plain",
        size_bytes=len(body.encode("utf-8")),
        chunk_count=len(texts),
        created_at=utcnow(),
    )
    nodes = [
        Node(
            id=data_id,
            dataset_id=dataset_id,
            type=NodeType.DOCUMENT,
            name=name,
            properties={"mime_type": "text/plain", "chunk_count": len(texts)},
        )
    ]
    edges, rows, lexical = [], [], []
    offset = 0
    for index, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        chunk_id = stable_id("chunk", data_id, index)
        nodes.append(
            Node(
                id=chunk_id,
                dataset_id=dataset_id,
                type=NodeType.CHUNK,
                name=f"{name}#{index}",
                text=text,
                properties={
                    "chunk_index": index,
                    "data_id": str(data_id),
                    "document_name": name,
                    "token_count": len(text.split()),
                    "start": offset,
                    "end": offset + len(text),
                    "node_set": [],
                },
            )
        )
        offset += len(text) + 2
        edges.append(
            Edge(
                id=stable_id("edge", chunk_id, "is_part_of", data_id),
                dataset_id=dataset_id,
                source_id=chunk_id,
                target_id=data_id,
                relation="is_part_of",
            )
        )
        rows.append(VectorRow(chunk_id, CHUNK_COLLECTION, vector))
        lexical.append((chunk_id, text))
    return DocumentWrite(
        data=data, nodes=nodes, edges=edges, vectors=rows, lexical={CHUNK_COLLECTION: lexical}
    )


async def build_graph_write(
    dataset: Any,
    doc_index: int,
    texts: list[str],
    rng: np.random.Generator,
    gen: TextGenerator,
    chunk_vectors: np.ndarray | None = None,
) -> Any:
    """A DocumentWrite made by ``plan_document`` from synthetic extractions: the same nodes,
    edges, summaries and entity sharing the pipeline writes, with random vectors (the chunks'
    own from ``chunk_vectors``, one row per text, when given)."""
    from engramdb.engine import get_engine
    from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
    from engramdb.ingest.graph_builder import (
        PreparedDocument,
        entity_id,
        entity_type_id,
        plan_document,
    )
    from engramdb.ingest.types import ChunkDraft, LoadedDocument
    from engramdb.models.records import stable_id
    from engramdb.storage.base import DocumentWrite, VectorRow

    body = "\n\n".join(texts)
    content_hash = hashlib.sha256(body.encode("utf-8")).hexdigest()
    name = f"bench_doc_{doc_index:06d}"
    doc = LoadedDocument(name, body, "text/plain", content_hash, len(body.encode("utf-8")))
    chunks, extractions, offset = [], [], 0
    for index, text in enumerate(texts):
        chunks.append(ChunkDraft(text, index, len(text.split()), 0.5, offset, offset + len(text)))
        offset += len(text) + 2
        names = list(dict.fromkeys(w.title() for w in gen.content(ENTITIES_PER_CHUNK)))
        entities = [ExtractedEntity(n, _ENTITY_TYPES[len(n) % 3]) for n in names]
        relations = [
            ExtractedRelation(names[i], str(rng.choice(_RELATIONS)), names[i + 1])
            for i in range(min(RELATIONS_PER_CHUNK, len(names) - 1))
        ]
        summary = text.split(".")[0] + "."
        extractions.append(ChunkExtraction(entities, relations, summary, "synthetic"))
    prepared = PreparedDocument(
        doc, stable_id("data", dataset.id, content_hash), chunks, extractions
    )
    ids = {
        key
        for ex in extractions
        for e in ex.entities
        for key in (entity_id(dataset.id, e.name, e.type), entity_type_id(dataset.id, e.type))
    }
    existing = {n.id: n for n in await get_engine().store.get_nodes(sorted(ids, key=str))}
    plan = plan_document(
        dataset,
        prepared,
        importance_weight=0.5,
        external_metadata={},
        node_set=[],
        existing=existing,
    )
    vectors = rng.standard_normal((len(plan.to_embed), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    if chunk_vectors is not None:
        from engramdb.graph_schema import CHUNK_COLLECTION

        at = [i for i, (_, coll, _) in enumerate(plan.to_embed) if coll == CHUNK_COLLECTION]
        vectors[at] = chunk_vectors[: len(at)]
    rows = [
        VectorRow(node_id, coll, vectors[i]) for i, (node_id, coll, _) in enumerate(plan.to_embed)
    ]
    return DocumentWrite(
        data=plan.data, nodes=plan.nodes, edges=plan.edges, vectors=rows, lexical=plan.lexical
    )


@dataclass(slots=True)
class SizeFigures:
    chunks: int
    populate_seconds: float = 0.0
    first_recall_ms: float = 0.0
    rss_mb: float = 0.0
    timings: dict[str, list[float]] = field(default_factory=dict)
    hits: dict[str, float] = field(default_factory=dict)
    #: Mean words of the only_context prompt, per context-only operation.
    prompt_words: dict[str, float] = field(default_factory=dict)
    #: Node counts by type after populating (entities, summaries, ...).
    node_counts: dict[str, int] = field(default_factory=dict)


OPERATIONS = (
    ("recall CHUNKS", "recall_chunks"),
    ("  query embedding alone", "embed"),
    ("  store.vector_search alone", "vector_search"),
    ("recall CHUNKS_LEXICAL", "recall_lexical"),
    ("  store.lexical_search alone", "lexical_search"),
    ("recall HYBRID_COMPLETION, only_context", "recall_hybrid"),
    ("recall GRAPH_COMPLETION, only_context", "recall_graph"),
)
#: Context-only operations: (timing key, search type).
CONTEXT_OPERATIONS = (
    ("recall_hybrid", "HYBRID_COMPLETION"),
    ("recall_graph", "GRAPH_COMPLETION"),
)


async def populate(
    gen: TextGenerator,
    rng: np.random.Generator,
    have: int,
    want: int,
    chunk_words: tuple[int, int],
    progress: Any,
    graph: bool = False,
) -> float:
    from engramdb.engine import get_engine

    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.get_or_create_dataset(owner.id, DATASET)
    await engine.store.set_dataset_embedding(dataset.id, MODEL, DIM)
    started = time.perf_counter()
    doc_index = have // CHUNKS_PER_DOC
    while have < want:
        n = min(CHUNKS_PER_DOC, want - have)
        texts = [gen.chunk(int(rng.integers(chunk_words[0], chunk_words[1] + 1))) for _ in range(n)]
        vectors = rng.standard_normal((n, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        if graph:
            write = await build_graph_write(dataset, doc_index, texts, rng, gen)
        else:
            write = build_write(dataset.id, doc_index, texts, vectors)
        written = await engine.store.write_document(write)
        if not written:
            raise RuntimeError(f"document {doc_index} was not written (duplicate content?)")
        have += n
        doc_index += 1
        if have % 10_000 == 0:
            progress(f"populated {have:,} chunks")
    return time.perf_counter() - started


async def measure(queries: list[str], warmup: int, top_k: int, figures: SizeFigures) -> None:
    import engramdb
    from engramdb import SearchType
    from engramdb.engine import get_engine, set_engine
    from engramdb.graph_schema import CHUNK_COLLECTION

    # Reopen: a fresh engine and store, so the vector index is loaded from the file.
    await get_engine().close()
    set_engine(None)
    engine = get_engine()
    embedder = engine.embedder
    await embedder.embed(["load the model before the first timed call"])
    t0 = time.perf_counter()
    await engramdb.recall(queries[0], SearchType.CHUNKS, datasets=[DATASET], top_k=top_k)
    figures.first_recall_ms = (time.perf_counter() - t0) * 1000
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, DATASET)
    assert dataset is not None
    ids = [dataset.id]
    for q in queries[:warmup]:
        await engramdb.recall(q, SearchType.CHUNKS, datasets=[DATASET], top_k=top_k)
        await engramdb.recall(q, SearchType.CHUNKS_LEXICAL, datasets=[DATASET], top_k=top_k)
        for _, type_ in CONTEXT_OPERATIONS:
            await engramdb.recall(
                q, SearchType(type_), datasets=[DATASET], top_k=top_k, only_context=True
            )
    timings: dict[str, list[float]] = {key: [] for _, key in OPERATIONS}
    returned: dict[str, list[int]] = {"recall_chunks": [], "recall_lexical": []}
    words: dict[str, list[int]] = {key: [] for key, _ in CONTEXT_OPERATIONS}
    for q in queries[warmup:]:
        t0 = time.perf_counter()
        res = await engramdb.recall(q, SearchType.CHUNKS, datasets=[DATASET], top_k=top_k)
        timings["recall_chunks"].append(time.perf_counter() - t0)
        returned["recall_chunks"].append(len(res))

        t0 = time.perf_counter()
        vector = (await embedder.embed([q]))[0]
        timings["embed"].append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        await engine.store.vector_search(CHUNK_COLLECTION, vector, ids, top_k)
        timings["vector_search"].append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        res = await engramdb.recall(q, SearchType.CHUNKS_LEXICAL, datasets=[DATASET], top_k=top_k)
        timings["recall_lexical"].append(time.perf_counter() - t0)
        returned["recall_lexical"].append(len(res))

        t0 = time.perf_counter()
        await engine.store.lexical_search(CHUNK_COLLECTION, q, ids, top_k)
        timings["lexical_search"].append(time.perf_counter() - t0)

        for key, type_ in CONTEXT_OPERATIONS:
            t0 = time.perf_counter()
            res = await engramdb.recall(
                q, SearchType(type_), datasets=[DATASET], top_k=top_k, only_context=True
            )
            timings[key].append(time.perf_counter() - t0)
            words[key].append(len(str(getattr(res[0], "text", "")).split()) if res else 0)
    figures.timings = timings
    figures.hits = {k: sum(v) / len(v) for k, v in returned.items() if v}
    figures.prompt_words = {k: sum(v) / len(v) for k, v in words.items() if v}
    figures.rss_mb = current_rss_mb()


async def run_sizes(args: argparse.Namespace, progress: Any) -> list[SizeFigures]:
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    gen = TextGenerator(args.seed)
    rng = np.random.default_rng(args.seed + 1)
    queries = [gen.question() for _ in range(args.queries + args.warmup)]
    words = tuple(int(x) for x in args.chunk_words.split("-"))
    chunk_words = (words[0], words[-1])
    out: list[SizeFigures] = []
    async with isolated_engramdb("onnx", prefix="latency-"):
        have = 0
        for size in sizes:
            figures = SizeFigures(size)
            figures.populate_seconds = await populate(
                gen, rng, have, size, chunk_words, progress, graph=args.graph
            )
            progress(f"{size:,} chunks written in {figures.populate_seconds:.1f}s")
            figures.node_counts = await count_nodes()
            have = size
            await measure(queries, args.warmup, args.top_k, figures)
            progress(f"{size:,} chunks measured")
            out.append(figures)
    return out


async def count_nodes() -> dict[str, int]:
    """Nodes by type in the benchmark store (read-only SQL on the engine's database file)."""
    import sqlite3

    from engramdb.engine import get_engine

    path = Path(get_engine().settings.engramdb_data_dir) / "engramdb.sqlite3"
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return dict(con.execute("SELECT type, COUNT(*) FROM nodes GROUP BY type").fetchall())
        finally:
            con.close()
    except (sqlite3.Error, AttributeError) as exc:  # schema or settings differ: not essential
        return {"error": str(exc)}  # type: ignore[dict-item]


# --------------------------------------------------------------------------------------------
# fresh-process figures


def import_time(runs: int = 5) -> dict[str, float]:
    """Best-of-N wall time of ``python -c 'import engramdb'`` minus ``python -c pass``, and
    the best cumulative time ``-X importtime`` reports for the engramdb package."""

    def wall(code: str) -> float:
        best = float("inf")
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT)
            best = min(best, time.perf_counter() - t0)
        return best

    baseline, with_import = wall("pass"), wall("import engramdb")
    cumulative = float("inf")
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import engramdb"],
            check=True,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
        )
        for line in proc.stderr.splitlines():
            parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
            if len(parts) == 3 and parts[2] == "engramdb":
                cumulative = min(cumulative, int(parts[1]) / 1e6)
    return {
        "python_pass_s": baseline,
        "python_import_engramdb_s": with_import,
        "import_engramdb_s": with_import - baseline,
        "importtime_cumulative_s": cumulative,
    }


_IDLE_SCRIPT = textwrap.dedent(
    """
    import asyncio, gc, json, sys, time
    import engramdb
    from engramdb import SearchType

    def status():
        out = {}
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    out[line.split(":")[0]] = int(line.split()[1]) / 1024.0
        return out

    engramdb.config.set("engramdb_data_dir", sys.argv[1])
    engramdb.config.set("engramdb_storage_url", "")
    engramdb.config.set("embedding_provider", "onnx")
    engramdb.config.set("embedding_dimensions", 384)
    before = status()

    async def main():
        hits = await engramdb.recall(
            "Where did the friends travel last summer?",
            SearchType.CHUNKS, datasets=["small"], top_k=5,
        )
        return len(hits)

    n = asyncio.run(main())
    gc.collect()
    time.sleep(0.5)
    after = status()
    print(json.dumps({"hits": n, "rss_before_mb": before["VmRSS"],
                      "rss_mb": after["VmRSS"], "hwm_mb": after["VmHWM"]}))
    """
)


async def _small_store(path: Path) -> int:
    import engramdb
    from engramdb.engine import get_engine, set_engine

    engramdb.config.set("engramdb_data_dir", path)
    engramdb.config.set("engramdb_storage_url", "")
    engramdb.config.set("embedding_provider", "onnx")
    engramdb.config.set("embedding_dimensions", 384)
    rng = random.Random(7)
    texts = [random_paragraph(rng, 60, 120) for _ in range(50)]
    res = await engramdb.remember(texts, dataset_name="small", self_improvement=False)
    await get_engine().close()
    set_engine(None)
    return int(res.counts.get("chunks", 0))


def idle_rss() -> dict[str, float]:
    """VmRSS of a fresh process after one CHUNKS recall on a small (50-document) store."""
    import shutil

    path = Path(tempfile.mkdtemp(prefix="latency-idle-"))
    try:
        chunks = asyncio.run(_small_store(path))
        proc = subprocess.run(
            [sys.executable, "-c", _IDLE_SCRIPT, str(path)],
            check=True,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
        )
        result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
        result["store_chunks"] = chunks
        return result
    finally:
        shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# main


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="chunk counts, comma-separated")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per size")
    parser.add_argument("--warmup", type=int, default=5, help="untimed queries per size")
    parser.add_argument("--top-k", type=int, default=15)
    parser.add_argument("--chunk-words", default="100-180", help="words per chunk, MIN-MAX")
    parser.add_argument("--skip-subprocess", action="store_true", help="skip import/RSS checks")
    parser.add_argument(
        "--graph",
        action="store_true",
        help="build documents with synthetic entities, relations and summaries (plan_document)",
    )
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--cores", type=int, default=2, help="pin to N cores (0 = all)")
    parser.add_argument("--json", dest="json_path", metavar="OUT.json")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cores = pin_cores(args.cores)
    wall = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"  [{time.perf_counter() - wall:6.1f}s] {msg}", flush=True)

    print(
        f"engramdb recall latency — cores: {len(cores)} {cores}; {args.queries} timed queries "
        f"after {args.warmup} warm-up per size; top_k={args.top_k}; chunks of "
        f"{args.chunk_words} words; store: "
        + (
            f"chunks + synthetic graph ({ENTITIES_PER_CHUNK} entities, {RELATIONS_PER_CHUNK} "
            "relations, 1 summary per chunk)"
            if args.graph
            else "chunks only (no entities/relations/summaries: the graph types have no graph)"
        )
    )
    machine = load_note(len(cores))
    print(machine)
    sizes = asyncio.run(run_sizes(args, progress))

    print("\nLatency in ms (p50 / p95), warm")
    headers = ["operation"]
    for s in sizes:
        headers += [f"{s.chunks // 1000}k p50", f"{s.chunks // 1000}k p95"]
    rows = []
    for label, key in OPERATIONS:
        row: list[object] = [label]
        for s in sizes:
            summ = latency_summary(s.timings[key])
            row += [f"{summ['p50_ms']:.1f}", f"{summ['p95_ms']:.1f}"]
        rows.append(row)
    print(format_table(headers, rows))
    print(
        format_table(
            ["store", "populate s", "chunks/s written", "first recall ms", "RSS MB", "hits/query"],
            [
                [
                    f"{s.chunks:,} chunks",
                    f"{s.populate_seconds:.1f}",
                    f"{(s.chunks - (sizes[i - 1].chunks if i else 0)) / s.populate_seconds:.0f}",
                    f"{s.first_recall_ms:.0f}",
                    f"{s.rss_mb:.0f}",
                    f"{s.hits.get('recall_chunks', 0):.0f} / {s.hits.get('recall_lexical', 0):.0f}",
                ]
                for i, s in enumerate(sizes)
            ],
        )
    )
    print(
        "(populate = direct store writes of 100-chunk documents with random vectors, "
        "incremental; first recall = first CHUNKS recall after reopening the store, model "
        "already loaded; RSS = VmRSS after the timed queries; hits = CHUNKS / LEXICAL results)"
    )
    print(
        "context-only prompt, mean words: "
        + "; ".join(
            f"{s.chunks:,} chunks: "
            + ", ".join(f"{t} {s.prompt_words.get(k, 0):.0f}" for k, t in CONTEXT_OPERATIONS)
            for s in sizes
        )
    )
    print(
        "nodes by type: "
        + "; ".join(
            f"{s.chunks:,} chunks: " + ", ".join(f"{k} {v:,}" for k, v in s.node_counts.items())
            for s in sizes
        )
    )
    if not args.graph:
        print(
            "NOTE: the synthetic store holds chunks only (no entities, relations or summaries), "
            "so HYBRID/GRAPH_COMPLETION find no graph to expand; run with --graph for a store "
            "with synthetic entities and relations"
        )

    extra: dict[str, Any] = {}
    if not args.skip_subprocess:
        progress("measuring import time and idle RSS in fresh processes")
        extra["import"] = import_time()
        extra["idle"] = idle_rss()
        imp, idle = extra["import"], extra["idle"]
        print("\nFresh processes")
        print(
            f"  import engramdb: {imp['import_engramdb_s']:.3f} s (best of 5: "
            f"{imp['python_import_engramdb_s']:.3f} s for `python -c 'import engramdb'` minus "
            f"{imp['python_pass_s']:.3f} s for `python -c pass`; -X importtime cumulative "
            f"{imp['importtime_cumulative_s']:.3f} s)"
        )
        print(
            f"  idle RSS after one CHUNKS recall on a {idle['store_chunks']:.0f}-chunk store: "
            f"{idle['rss_mb']:.0f} MB (after import, before recall: {idle['rss_before_mb']:.0f} "
            f"MB; peak VmHWM {idle['hwm_mb']:.0f} MB)"
        )

    print("\nTargets")
    largest = sizes[-1]
    p50 = latency_summary(largest.timings["recall_chunks"])["p50_ms"]
    verdict = "met" if p50 <= TARGET_CHUNKS_P50_MS else "NOT met"
    print(
        f"  recall CHUNKS p50 at {largest.chunks:,} chunks: {p50:.1f} ms "
        f"(target <= {TARGET_CHUNKS_P50_MS:.0f} ms): {verdict}"
    )
    if extra:
        t = extra["import"]["import_engramdb_s"]
        print(
            f"  import engramdb: {t:.3f} s (target <= {TARGET_IMPORT_S} s): "
            f"{'met' if t <= TARGET_IMPORT_S else 'NOT met'}"
        )
        r = extra["idle"]["rss_mb"]
        print(
            f"  idle RSS after a recall: {r:.0f} MB (target <= {TARGET_IDLE_RSS_MB:.0f} MB): "
            f"{'met' if r <= TARGET_IDLE_RSS_MB else 'NOT met'}"
        )
    elapsed = time.perf_counter() - wall
    print(f"\npeak RSS of this process: {peak_rss_mb():.0f} MB; wall time: {elapsed:.1f} s")
    machine_end = load_note(len(cores), "at end")
    print(machine_end)

    write_json(
        args.json_path,
        {
            "benchmark": "recall_latency",
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "machine_at_start": machine,
            "machine_at_end": machine_end,
            "cores": len(cores),
            "top_k": args.top_k,
            "queries": args.queries,
            "warmup": args.warmup,
            "graph": args.graph,
            "sizes": [
                {
                    "chunks": s.chunks,
                    "populate_seconds": s.populate_seconds,
                    "first_recall_ms": s.first_recall_ms,
                    "rss_mb": s.rss_mb,
                    "mean_hits": s.hits,
                    "prompt_words": s.prompt_words,
                    "node_counts": s.node_counts,
                    "latency": {key: latency_summary(s.timings[key]) for _, key in OPERATIONS},
                }
                for s in sizes
            ],
            **extra,
            "wall_seconds": elapsed,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
