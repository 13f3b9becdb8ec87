"""The LangGraph and LangChain example scripts run as written, against the real frameworks.

Issue 15: "each has a runnable example script under examples/ that a test executes"; the LLM is
the local OpenAI-protocol server, reached through the variables the examples document.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str, data_dir: Path, server: OpenAIServer | None) -> str:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ENGRAMDB_", "LLM_", "EMBEDDING_"))
    }
    env.update(
        EMBEDDING_PROVIDER="fake", EMBEDDING_DIMENSIONS="64", ENGRAMDB_DATA_DIR=str(data_dir)
    )
    if server is not None:
        env.update(LLM_ENDPOINT=server.base_url, LLM_API_KEY="test-key", LLM_MODEL="test-chat")
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _system_prompt(request: RecordedRequest) -> str:
    assert request.json is not None
    return str(request.json["messages"][0]["content"])


def test_the_agent_uses_a_fact_from_another_thread(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    """Thread 2 has no history of its own: the colour reaches the LLM from the store."""

    def answer(request: RecordedRequest) -> Reply:
        facts = [line for line in _system_prompt(request).splitlines() if line.startswith("- ")]
        return Reply.json(openai_server.chat_document("You said: " + " ".join(facts)))

    openai_server.set_default("chat/completions", answer)
    out = _run("langgraph_memory_agent.py", tmp_path, openai_server)
    thread2 = next(line for line in out.splitlines() if line.startswith("thread 2:"))
    assert "teal" in thread2
    second = openai_server.requests_to("chat/completions")[1]
    assert second.json is not None
    users = [m["content"] for m in second.json["messages"] if m["role"] == "user"]
    assert users == ["What is my favourite colour?"]
    assert "teal" in _system_prompt(second)


def test_the_agent_example_runs_offline(tmp_path: Path) -> None:
    out = _run("langgraph_memory_agent.py", tmp_path, None)
    assert "thread 2: From memory: my favourite colour is teal" in out


def test_the_langchain_example_answers_from_the_retrieved_document(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    def answer(request: RecordedRequest) -> Reply:
        context = _system_prompt(request).replace("\n", " ")
        return Reply.json(openai_server.chat_document("At night: " + context))

    openai_server.set_default("chat/completions", answer)
    out = _run("langchain_retriever.py", tmp_path, openai_server)
    lines = out.splitlines()
    assert "Barn owls hunt at night" in lines[0]
    assert lines[2].startswith("answer: At night:") and "Barn owls" in lines[2]
    assert "('human', 'When do owls hunt?')" in lines[3]
