"""cognee's visualize_graph arguments, wait_for_background_tasks and the config setters, through
the public surface with cognee's example shapes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import engramdb
from engramdb import SearchType, config
from tests.support.openai_server import OpenAIServer, Reply

PYTHON = "Python is a programming language. Django is a web framework written in Python."
NLP = "NLP is a subfield of AI. spaCy is an NLP library for Python."
OTHER = "Owls hunt at night in Finland."

_DATA = re.compile(r'<script type="application/json" id="engram-data">(.*?)</script>', re.DOTALL)


def _names(page: Path) -> set[str]:
    data: dict[str, Any] = json.loads(_DATA.findall(page.read_text())[0])
    nodes = data["nodes"]
    return {str(n.get("name") or n.get("label")) for n in nodes}


async def test_visualize_graph_takes_cognees_arguments(tmp_path: Path) -> None:
    await engramdb.remember([PYTHON, NLP], dataset_name="tech", self_improvement=False)
    await engramdb.remember(OTHER, dataset_name="birds", self_improvement=False)
    # graph_visualization.py's three calls
    whole = Path(await engramdb.visualize_graph(str(tmp_path / "full.html"), dataset="tech"))
    assert whole == tmp_path / "full.html"
    drawn = _names(whole)
    assert "Python" in drawn and "Finland" not in drawn
    seeded = await engramdb.visualize_graph(
        destination_file_path=str(tmp_path / "query.html"),
        dataset="tech",
        query="What is spaCy?",
        neighborhood_depth=1,
    )
    near = _names(Path(seeded))
    assert near and near < drawn  # a bounded neighbourhood of the query's chunk
    assert "NLP" in near
    full = await engramdb.visualize(tmp_path / "f2.html", dataset="tech", full=True, query="x")
    assert _names(Path(full)) == drawn
    # seeds from a search result: the subgraph behind it
    hits = await engramdb.search(
        "Django web framework", query_type=SearchType.CHUNKS, datasets=["tech"]
    )
    behind = await engramdb.visualize_graph(
        str(tmp_path / "r.html"), dataset="tech", recall_result=hits[:1], neighborhood_depth=1
    )
    assert "Python" in _names(Path(behind))
    birds = (await engramdb.list_datasets())[1]
    assert "Finland" in _names(Path(await engramdb.visualize_graph(tmp_path, dataset=birds.id)))
    with pytest.raises(engramdb.EngramValidationError, match="not both"):
        await engramdb.visualize_graph("a.html", destination_file_path="b.html")


async def test_wait_for_background_tasks() -> None:
    await engramdb.add(PYTHON)
    (pending,) = (await engramdb.cognify(run_in_background=True)).values()
    assert await engramdb.wait_for_background_tasks(timeout=60) is True
    assert pending._task is not None and pending._task.done()
    assert await engramdb.wait_for_background_tasks() is True  # nothing left


def test_config_setters_map_onto_the_settings(tmp_path: Path) -> None:
    config.set_llm_config({"llm_model": "qwen", "llm_endpoint": "http://127.0.0.1:1/v1"})
    config.set_llm_api_key("sk-test")
    config.set_llm_provider("openai")
    assert (config.get("llm_model"), config.get("llm_api_key")) == ("qwen", "sk-test")
    config.set_embedding_config({"embedding_model": "m", "embedding_dimensions": "128"})
    assert config.get("embedding_dimensions") == 128
    config.system_root_directory(str(tmp_path / "system"))
    assert config.get("engramdb_data_dir") == tmp_path / "system"
    config.set_chunk_size(128)
    assert config.get("chunk_max_tokens") == 128
    # cognee's embedded providers are engramdb's embedded store
    config.set_graph_database_provider("kuzu")
    config.set_vector_db_provider("lancedb")
    config.set_graph_db_config({"graph_database_provider": "ladybug"})
    config.set_relational_db_config({"db_provider": "sqlite", "db_path": ""})
    assert config.settings.storage_url.startswith("sqlite:///")


def test_pgvector_and_postgres_configure_the_postgresql_store() -> None:
    # pgvector_example.py's two calls
    config.set_vector_db_config(
        {
            "vector_db_provider": "pgvector",
            "vector_dataset_database_handler": "pgvector",
            "vector_db_name": "cognee_db",
            "vector_db_host": "127.0.0.1",
            "vector_db_port": "5432",
            "vector_db_username": "cognee",
            "vector_db_password": "cognee",
        }
    )
    expected = "postgresql://cognee:cognee@127.0.0.1:5432/cognee_db"
    assert config.get("engramdb_storage_url") == expected
    config.set_relational_db_config(
        {
            "db_path": "",
            "db_name": "cognee_db",
            "db_host": "127.0.0.1",
            "db_port": "5432",
            "db_username": "cognee",
            "db_password": "cognee",
            "db_provider": "postgres",
        }
    )
    assert config.get("engramdb_storage_url") == expected
    config.set_vector_db_provider("pgvector")  # the store is PostgreSQL: accepted


@pytest.mark.parametrize(
    ("call", "advice"),
    [
        (lambda: config.set_graph_database_provider("neo4j"), "ENGRAMDB_STORAGE_URL"),
        (
            lambda: config.set_graph_db_config(
                {"graph_database_provider": "neptune_analytics", "graph_database_url": "x"}
            ),
            "ENGRAMDB_STORAGE_URL",
        ),
        (
            lambda: config.set_vector_db_config({"vector_db_url": "s3://bucket/lance"}),
            "ENGRAMDB_STORAGE_URL",
        ),
        (lambda: config.set_vector_db_provider("qdrant"), "PostgreSQL"),
        (lambda: config.set_embedding_provider("fastembed"), "EMBEDDING_PROVIDER=onnx"),
        (lambda: config.set_llm_config({"llm_temperature": 0.1}), "llm_model"),
        (lambda: config.set_chunk_strategy("paragraph"), "chunker="),
        (lambda: config.set("llm_model", "m", persist=True), ".env"),
    ],
)
def test_what_does_not_map_is_refused_naming_what_to_use(call: Any, advice: str) -> None:
    with pytest.raises(engramdb.FeatureNotAvailableError, match=re.escape(advice)):
        call()


def test_pgvector_without_a_connection_says_how_to_give_one() -> None:
    with pytest.raises(engramdb.ConfigurationError, match="ENGRAMDB_STORAGE_URL"):
        config.set_vector_db_provider("pgvector")


# -- the search types the LLM chooses for, and those engramdb refuses ---------------------------


def _use_llm(server: OpenAIServer) -> None:
    config.set("llm_endpoint", server.base_url)
    config.set("llm_api_key", "test-key")
    config.set("llm_max_retries", 0)


async def test_feeling_lucky_offline_picks_by_rule_and_says_so() -> None:
    await engramdb.remember([PYTHON, OTHER], self_improvement=False)
    hits = await engramdb.search("Who hunts at night?", query_type="FEELING_LUCKY", top_k=1)
    assert hits[0]["text"] == OTHER  # CHUNKS, the rule's pick for a question
    (entry,) = await engramdb.recall("owls", query_type=SearchType.FEELING_LUCKY, top_k=1)
    assert entry.metadata["selected_search_type"] == "CHUNKS"
    assert entry.metadata["selected_by"].startswith("rule")
    rows = await engramdb.search(
        "MATCH (e:Entity) WHERE e.name = 'Finland' RETURN e.name AS name",
        query_type=SearchType.FEELING_LUCKY,
    )
    assert rows == [
        {"name": "Finland", "text": "name: Finland", "dataset_id": rows[0]["dataset_id"]}
    ]


async def test_feeling_lucky_asks_the_llm(openai_server: OpenAIServer) -> None:
    await engramdb.remember([PYTHON, OTHER], self_improvement=False)
    _use_llm(openai_server)
    openai_server.enqueue("chat/completions", Reply.json(openai_server.chat_document("CHUNKS")))
    hits = await engramdb.search("Who hunts at night?", query_type="FEELING_LUCKY", top_k=1)
    assert hits[0]["text"] == OTHER
    # an answer that is no type means RAG_COMPLETION (cognee's rule): an LLM answer comes back
    openai_server.enqueue("chat/completions", Reply.json(openai_server.chat_document("dunno")))
    openai_server.chat_text = "Owls do."
    assert await engramdb.search("Who hunts at night?", query_type="FEELING_LUCKY") == ["Owls do."]


async def test_natural_language_writes_cypher_with_the_llm(openai_server: OpenAIServer) -> None:
    await engramdb.remember([PYTHON, OTHER], self_improvement=False)
    with pytest.raises(engramdb.LLMNotConfiguredError, match=r"SearchType\.CYPHER"):
        await engramdb.search("Which places are known?", query_type="NATURAL_LANGUAGE")
    _use_llm(openai_server)
    bad = "MATCH (e:Entity RETURN e"
    good = "```cypher\nMATCH (e:Entity) WHERE e.name = 'Finland' RETURN e.name AS place\n```"
    openai_server.enqueue(
        "chat/completions",
        Reply.json(openai_server.chat_document(bad)),
        Reply.json(openai_server.chat_document(good)),
    )
    (row,) = await engramdb.search("Which places are known?", query_type="NATURAL_LANGUAGE")
    assert row["place"] == "Finland"
    retry = openai_server.requests_to("chat/completions")[-1].json["messages"]
    assert "failed" in retry[-1]["content"]  # the parser's error went back to the LLM


async def test_graph_report_and_the_refused_types() -> None:
    await engramdb.remember([PYTHON, NLP], self_improvement=False)
    report = await engramdb.search("anything", query_type="GRAPH_REPORT", top_k=2)
    assert len(report) == 2 and report[0].startswith("Python: ")
    with pytest.raises(engramdb.FeatureNotAvailableError, match="GRAPH_SUMMARY_COMPLETION"):
        await engramdb.search("q", query_type="BROAD")


async def test_cognee_network_visualization_draws_graph_data_tuples(tmp_path: Path) -> None:
    from engramdb.compat.cognee.modules.visualization.cognee_network_visualization import (
        cognee_network_visualization,
    )

    nodes = [("u1", {"name": "Ada", "type": "Person"}), ("d1", {"name": "notes.md"})]
    edges = [("u1", "d1", "owns", {"relationship_name": "owns"})]
    target = tmp_path / "g.html"
    page = await cognee_network_visualization((nodes, edges), str(target))
    assert target.read_text() == page
    assert {"Ada", "notes.md"} <= _names(target)


async def test_natural_language_reads_only_the_callers_datasets(
    openai_server: OpenAIServer,
) -> None:
    await engramdb.remember("The vault code is mauveheron.", "vault", self_improvement=False)
    bob = await engramdb.create_user("bob@example.com")
    await engramdb.remember(OTHER, "bobs", user=bob, self_improvement=False)
    _use_llm(openai_server)
    openai_server.chat_text = "MATCH (n) RETURN n.name AS name, n.text AS text"
    rows = await engramdb.search("Everything?", query_type="NATURAL_LANGUAGE", user=bob)
    assert rows and not any("mauveheron" in str(r) for r in rows)
    mine = await engramdb.search("Everything?", query_type="NATURAL_LANGUAGE")
    assert any("mauveheron" in str(r) for r in mine)
