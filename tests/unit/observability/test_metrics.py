"""Metrics recorded in-process: the LLM client's calls and tokens through the real client against
the local OpenAI-protocol server, and the background-runs gauge (issue 16, item 4: "LLM calls and
tokens, ingest throughput, queue depth of background runs")."""

from __future__ import annotations

from typing import Any

import engramdb
from engramdb.engine import get_engine
from engramdb.observability.metrics import exposition
from engramdb.providers.llm import OpenAICompatibleLLM
from engramdb.settings import config
from tests.support.openai_server import OpenAIServer, Reply


def samples() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    from prometheus_client.parser import text_string_to_metric_families

    found = exposition()
    assert found is not None
    out = {}
    for family in text_string_to_metric_families(found[0].decode()):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(name: str, **labels: str) -> float:
    return samples().get((name, tuple(sorted(labels.items()))), 0.0)


def answer(server: OpenAIServer, text: str, prompt: int, completion: int) -> Reply:
    document = server.chat_document(text)
    document["usage"] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    return Reply.json(document)


async def test_llm_calls_and_tokens_are_counted_by_model(
    openai_server: OpenAIServer, spans: Any
) -> None:
    model = "metrics-test-model"
    llm = OpenAICompatibleLLM(model, base_url=openai_server.base_url, timeout=5.0)
    calls = value("engramdb_llm_calls_total", model=model)
    prompt = value("engramdb_llm_tokens_total", model=model, kind="prompt")
    completion = value("engramdb_llm_tokens_total", model=model, kind="completion")
    openai_server.enqueue("chat/completions", answer(openai_server, "one", 11, 7))
    openai_server.enqueue("chat/completions", answer(openai_server, "two", 5, 3))
    await llm.complete([{"role": "user", "content": "hi"}])
    await llm.complete([{"role": "user", "content": "again"}])
    await llm.close()
    assert value("engramdb_llm_calls_total", model=model) - calls == 2
    assert value("engramdb_llm_tokens_total", model=model, kind="prompt") - prompt == 16
    assert value("engramdb_llm_tokens_total", model=model, kind="completion") - completion == 10
    chats = [s for s in spans.get_finished_spans() if s.name == "engramdb.llm.chat"]
    assert [s.attributes["gen_ai.usage.input_tokens"] for s in chats] == [11, 5]
    assert [s.attributes["gen_ai.request.model"] for s in chats] == [model, model]


async def test_background_runs_in_flight_are_the_gauge() -> None:
    """A run started in the background is counted from its start until it finishes."""
    before = value("engramdb_background_runs", kind="remember")
    result = await engramdb.remember("Bats fly at dusk.", dataset_name="bg", run_in_background=True)
    # The run is created but has not been scheduled yet: it is in the queue.
    assert value("engramdb_background_runs", kind="remember") == before + 1
    await result.wait()
    assert await get_engine().wait_for_background_tasks(30)
    assert value("engramdb_background_runs", kind="remember") == before


async def test_metrics_switched_off_record_nothing() -> None:
    ok = value("engramdb_verb_duration_seconds_count", verb="remember", outcome="ok")
    config.set("engramdb_metrics_enabled", False)
    await engramdb.remember("Off the record.", dataset_name="quiet")
    assert exposition() is None
    config.set("engramdb_metrics_enabled", True)
    assert value("engramdb_verb_duration_seconds_count", verb="remember", outcome="ok") == ok
