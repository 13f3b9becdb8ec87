"""Separate small remember() calls share LLM extraction calls (ENGRAMDB_EXTRACTION_BATCH_REMEMBERS):
chunks searchable at once, the graph identical to one batched remember's, extracted before any
graph read, forget removing a queued document, and the queue surviving a SIGKILL. Through the
real LLM client against the local OpenAI-protocol server; on PostgreSQL too
(tests/postgres/test_extraction_queue.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import engramdb
from engramdb import SearchType
from engramdb.engine import get_engine
from engramdb.ingest.queue import queued
from tests.support.chunk_answers import chunk_answers, is_extraction, is_review
from tests.support.openai_server import OpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("Paris", "Berlin", "Rome", "Oslo", "Lima", "Cairo", "Quito", "Dakar")


def note(i: int) -> str:
    return f"Note {i}: Alice Smith met Bob{i} Jones in {NAMES[i % len(NAMES)]} on day {i}."


def _use_llm(server: OpenAIServer, batch: int) -> None:
    server.set_default("chat/completions", chunk_answers(server))
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    engramdb.config.set("engramdb_extraction_batch_remembers", batch)
    engramdb.config.set("engramdb_extraction_batch_seconds", 0)


def _extractions(server: OpenAIServer) -> int:
    return sum(map(is_extraction, server.requests_to("chat/completions")))


async def _graph(dataset: str) -> tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]:
    """The dataset's nodes (type, name, text) and edges (source, relation, target) by name."""
    store = get_engine().store
    found = await store.find_dataset((await get_engine().resolve_user(None)).id, dataset)
    assert found is not None
    nodes = await store.list_nodes([found.id], limit=100_000)
    names = {n.id: n.name for n in nodes}
    edges = await store.list_edges([found.id], limit=100_000)
    return (
        {(n.type, n.name, n.text) for n in nodes},
        {(names[e.source_id], e.relation, names[e.target_id]) for e in edges},
    )


async def test_separate_remembers_share_calls_and_build_the_batched_graph(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server, batch=8)
    texts = [note(i) for i in range(20)]
    await engramdb.remember(texts, dataset_name="batched", self_improvement=False)
    batched_calls = _extractions(openai_server)
    assert batched_calls == 3  # 20 one-chunk documents, 8 chunks a call

    first = await engramdb.remember(texts[0], dataset_name="separate", self_improvement=False)
    assert first.counts["extraction_queued"] == 1 and first.items[0].reason == "extraction_queued"
    assert first.counts["entities"] == 0  # its graph is queued ...
    assert _extractions(openai_server) == batched_calls
    hits = await engramdb.recall("Bob0", query_type=SearchType.CHUNKS, datasets=["separate"])
    assert [h.text for h in hits] == [texts[0]]  # ... its chunk is searchable at once
    lexical = await engramdb.recall(
        '"Bob0 Jones"', query_type=SearchType.CHUNKS_LEXICAL, datasets=["separate"]
    )
    assert [h.text for h in lexical] == [texts[0]]
    for i, text in enumerate(texts[1:], start=1):
        result = await engramdb.remember(text, dataset_name="separate", self_improvement=False)
        if (i + 1) % 8 == 0:  # the eighth queued document extracts the batch, in one call
            assert result.counts["extraction_queued"] == 0
            assert result.counts["extracted_from_queue"] == 8
            assert result.counts["llm_calls"] == 1
    assert _extractions(openai_server) == batched_calls + 2  # 16 extracted, 4 queued
    # a graph read extracts what is queued first: never a graph silently missing a document
    await engramdb.recall("Alice", query_type=SearchType.GRAPH_COMPLETION, only_context=True)
    assert _extractions(openai_server) == 2 * batched_calls
    assert await _graph("separate") == await _graph("batched")


async def test_graph_reads_and_improve_extract_the_queue(openai_server: OpenAIServer) -> None:
    _use_llm(openai_server, batch=100)
    await engramdb.remember(note(1))
    result = await engramdb.remember(note(2))
    assert result.improve == "queued"  # the automatic improve follows the extraction
    page = Path(await engramdb.visualize_graph(str(Path.cwd() / "graph.html")))
    assert "Bob2" in page.read_text()  # the entity of a queued document is drawn
    assert _extractions(openai_server) == 1
    await engramdb.remember(note(3))
    improved = await engramdb.improve()
    assert improved.status != "errored", improved.stage_summary()
    assert _extractions(openai_server) == 2
    nodes, _ = await _graph("main_dataset")
    assert ("Entity", "Bob3", "Bob3") in nodes


async def test_forget_removes_a_queued_document(openai_server: OpenAIServer) -> None:
    _use_llm(openai_server, batch=100)
    kept = await engramdb.remember(note(1), self_improvement=False)
    gone = await engramdb.remember(note(2), self_improvement=False)
    await engramdb.forget(data_id=gone.data_ids[0])
    dataset_id = kept.dataset_id
    assert [q.data_id for q in await queued(get_engine().store, dataset_id)] == kept.data_ids
    await engramdb.recall("Alice", query_type=SearchType.GRAPH_COMPLETION, only_context=True)
    (request,) = [r for r in openai_server.requests_to("chat/completions") if is_extraction(r)]
    assert "Bob1" in str(request.json) and "Bob2" not in str(request.json)
    nodes, _ = await _graph("main_dataset")
    assert not any(name == "Bob2" for _, name, _ in nodes)


async def test_the_age_trigger_and_close_extract_the_queue(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    _use_llm(openai_server, batch=100)
    engramdb.config.set("engramdb_extraction_batch_seconds", 0.3)
    await engramdb.remember(note(1), self_improvement=False)
    assert _extractions(openai_server) == 0
    deadline = time.monotonic() + 10
    while _extractions(openai_server) == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert _extractions(openai_server) == 1  # the oldest got old enough

    engramdb.config.set("engramdb_extraction_batch_seconds", 0)
    engine = engramdb.Engine(data_dir=tmp_path / "closing")
    result = await engine.remember(note(2), self_improvement=False)
    assert result.counts["extraction_queued"] == 1
    await engine.close()  # closing extracts what it queued
    assert _extractions(openai_server) == 2
    async with engramdb.Engine(data_dir=tmp_path / "closing") as reopened:
        assert not await queued(reopened.store, result.dataset_id)


async def test_stream_of_remembers_costs_under_a_third_of_a_call_per_document(
    openai_server: OpenAIServer,
) -> None:
    """Issue 17: 60 separate remembers with the automatic improve (conflict review included)
    cost at most 0.3 LLM calls per document; no review is lost."""
    _use_llm(openai_server, batch=8)
    for i in range(60):
        await engramdb.remember(note(i))
    await engramdb.recall("Alice", query_type=SearchType.GRAPH_COMPLETION, only_context=True)
    requests = openai_server.requests_to("chat/completions")
    reviews = sum(map(is_review, requests))
    assert reviews > 0 and len(requests) / 60 <= 0.3, (len(requests), reviews)
    again = await engramdb.improve()  # every fact was reviewed by the automatic improves
    stage = again.stage("review_conflicts")
    assert stage is not None and stage.reason == "no_new_facts", again.stage_summary()


def _worker(data_dir: Path, url: str, batch: int, count: int) -> subprocess.Popen[str]:
    args = [str(data_dir), url, str(batch), str(count)]
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.queue_worker", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


async def test_a_killed_process_loses_no_queued_extraction(
    openai_server: OpenAIServer, isolated_config: Path
) -> None:
    """SIGKILL after three remembers returned with their extraction queued, and a second worker
    killed while its extraction call is in flight: the queue keeps every document, and the
    next graph read extracts them all."""
    _use_llm(openai_server, batch=4)
    proc = _worker(isolated_config, openai_server.base_url, 4, 3)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "QUEUED 3", proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert _extractions(openai_server) == 0

    openai_server.enqueue("chat/completions", Reply.sleep(60))  # the next call hangs
    proc = _worker(isolated_config, openai_server.base_url, 4, 4)  # the fourth fills the queue
    deadline = time.monotonic() + 60
    while _extractions(openai_server) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _extractions(openai_server) == 1  # killed mid-extraction
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    store = get_engine().store
    await get_engine().ensure_setup()
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "main_dataset")
    assert dataset is not None
    assert len(await queued(store, dataset.id)) == 4
    await engramdb.recall("Alice", query_type=SearchType.GRAPH_COMPLETION, only_context=True)
    assert not await queued(store, dataset.id)
    nodes, _ = await _graph("main_dataset")
    assert {f"Bob{i}" for i in range(4)} <= {name for _, name, _ in nodes}
