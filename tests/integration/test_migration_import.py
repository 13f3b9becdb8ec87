"""Importing mem0, Letta and Zep exports (engramdb.migration) through remember() and add()."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engramdb
from engramdb import SearchType
from engramdb.engine import get_engine
from engramdb.errors import EngramValidationError
from engramdb.migration import (
    IMPORT_MODES,
    GraphitiSource,
    LettaSource,
    Mem0Source,
    MemorySource,
    ZepSource,
)
from engramdb.models.records import DataRecord, NodeType
from tests.integration.test_graph_ingest import _scripted_extraction, _use_llm
from tests.support.openai_server import OpenAIServer

DATA = Path(__file__).resolve().parents[1] / "data" / "migration"
MEM0 = DATA / "mem0_platform.json"
MEM0_OSS = DATA / "mem0_oss.json"
LETTA = DATA / "letta_agent.af"
ZEP = DATA / "zep_dump.json"
#: The relations the pipeline itself writes (not a source's facts).
_STRUCTURAL = {"is_part_of", "contains", "is_a", "summarizes"}


async def _records(dataset: str) -> list[DataRecord]:
    store = get_engine().store
    owner = await get_engine().resolve_user(None)
    found = await store.find_dataset(owner.id, dataset)
    assert found is not None, f"no dataset {dataset}"
    return await store.list_data(found.id)


async def _by_external_id(dataset: str) -> dict[str, DataRecord]:
    return {r.external_metadata["external_id"]: r for r in await _records(dataset)}


async def _chunk_texts(query: str, dataset: str, top_k: int = 3) -> list[str]:
    """The best chunks by full-text search (the tests' embedder is not semantic)."""
    found = await engramdb.recall(query, SearchType.CHUNKS_LEXICAL, datasets=[dataset], top_k=top_k)
    return [r.text for r in found]


async def _facts(dataset: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    graph = await engramdb.get_graph([dataset])
    names = {n.id: n.name for n in graph.nodes}
    return {
        (names[e.source_id], e.relation, names[e.target_id]): e.properties
        for e in graph.edges
        if e.relation not in _STRUCTURAL
    }


async def _entity_names(dataset: str) -> set[str]:
    graph = await engramdb.get_graph([dataset])
    return {n.name for n in graph.nodes_of_type(NodeType.ENTITY)}


def test_the_modes_are_cognees() -> None:
    assert IMPORT_MODES == ("re-derive", "preserve", "hybrid")
    assert Mem0Source(MEM0).mode == "re-derive"
    assert LettaSource(LETTA).mode == "re-derive"
    assert ZepSource(ZEP).mode == "hybrid"
    assert issubclass(GraphitiSource, ZepSource) and issubclass(ZepSource, MemorySource)
    with pytest.raises(EngramValidationError, match="unknown import mode 'keep'"):
        Mem0Source(MEM0, mode="keep")


# --- mem0 ----------------------------------------------------------------------------------


async def test_mem0_platform_export_one_document_per_memory_with_its_metadata() -> None:
    result = await engramdb.remember(Mem0Source(MEM0), dataset_name="mem0", self_improvement=False)
    assert result.counts["documents"] == 3
    records = await _by_external_id("mem0")
    bees = records["7f1c-001"].external_metadata
    assert bees["external_system"] == "mem0" and bees["import_mode"] == "re-derive"
    assert bees["user_id"] == "priya" and bees["categories"] == ["hobbies"]
    assert bees["created_at"] == "2023-04-18T08:15:00+00:00"
    assert bees["updated_at"] == "2023-05-02T10:00:00+00:00"
    assert bees["mem0_metadata"] == {"channel": "voice_note"} and bees["hash"] == "a1b2c3"
    assert records["7f1c-002"].external_metadata["created_at"] == "2024-09-03T23:40:00+00:00"
    club = records["7f1c-003"].external_metadata
    assert (club["agent_id"], club["run_id"]) == ("club-bot", "run-77")
    assert club["created_at"].startswith("2024-06-10")  # from seconds since the epoch
    assert all(r.node_set == ["import:mem0"] for r in records.values())

    (top,) = await _chunk_texts("Where are Priya's beehives?", "mem0", top_k=1)
    assert top.startswith("Priya keeps her beehives on the roof") and "Categories: hobbies" in top
    assert "Priya" in await _entity_names("mem0")  # re-derive: the extractor built a graph


async def test_mem0_preserve_keeps_memories_verbatim_without_a_graph() -> None:
    source = Mem0Source(json.loads(MEM0_OSS.read_text()), mode="preserve")  # loaded JSON
    await engramdb.remember(source, dataset_name="kept", self_improvement=False)
    assert await _entity_names("kept") == set()
    hits = await _chunk_texts("vintage motorcycles garage", "kept", top_k=1)
    assert hits == ["Tomasz repairs vintage Polish motorcycles in his garage."]
    vector = await engramdb.recall("WSK 125", SearchType.CHUNKS, datasets=["kept"], top_k=2)
    assert "Tomasz's favourite model is the WSK 125." in [r.text for r in vector]
    (hybrid,) = await engramdb.recall(
        "Which WSK model?", SearchType.HYBRID_COMPLETION, datasets=["kept"], only_context=True
    )
    assert "Tomasz's favourite model is the WSK 125." in hybrid.text
    records = await _by_external_id("kept")
    assert set(records) == {"oss-1", "oss-2"}
    assert "created_at" not in records["oss-2"].external_metadata  # none given, none invented


async def test_importing_again_skips_what_is_there_and_forget_removes_the_import() -> None:
    first = await engramdb.remember(Mem0Source(MEM0), dataset_name="again")
    again = await engramdb.remember(Mem0Source(MEM0), dataset_name="again")
    assert [i.status for i in again.items] == ["skipped"] * 3

    await engramdb.forget(data_id=first.data_ids[1])  # one memory
    assert set(await _by_external_id("again")) == {"7f1c-001", "7f1c-003"}
    assert not any("hazelnut" in t for t in await _chunk_texts("hazelnuts allergy", "again"))

    await engramdb.forget(dataset="again")
    assert "again" not in [d.name for d in await engramdb.list_datasets()]
    assert (await get_engine().store.check_integrity()).ok


async def test_temporal_recall_dates_imported_memories_by_their_created_at() -> None:
    await engramdb.remember(Mem0Source(MEM0), dataset_name="dated", self_improvement=False)
    (context,) = await engramdb.recall(
        "What did Priya tell me in April 2023?",
        SearchType.TEMPORAL,
        datasets=["dated"],
        only_context=True,
    )
    first = context.text.split("Context:\n", 1)[1].splitlines()[0]
    bees = "Priya keeps her beehives on the roof of the Harbour Street library."
    assert first == f"[18 April 2023] {bees}"
    assert "[3 September 2024] Priya is allergic to hazelnuts." in context.text


# --- Letta ---------------------------------------------------------------------------------


async def test_letta_agent_file_blocks_message_batches_and_passages() -> None:
    await engramdb.remember(LettaSource(LETTA), dataset_name="letta", self_improvement=False)
    records = await _by_external_id("letta")
    # the empty scratchpad block holds nothing; the system prompt and tool output are no memories
    assert set(records) == {
        "blk-human",
        "blk-persona",
        "garden_helper:messages:0",
        "garden_helper:messages:1",
        "pass-1",
    }
    human = records["blk-human"].external_metadata
    assert (human["label"], human["limit"], human["agent_id"]) == ("human", 5000, "agent-7c")
    day_one = records["garden_helper:messages:0"].external_metadata
    assert day_one["created_at"] == "2024-03-02T09:00:00+00:00" and day_one["message_count"] == 2
    passage = records["pass-1"].external_metadata
    assert passage["created_at"] == "2023-10-12T14:00:00+00:00"
    assert all(r.node_set == ["import:letta"] for r in records.values())

    (top,) = await _chunk_texts("Which plot is Wojtek's allotment?", "letta", top_k=1)
    assert top.startswith("Wojtek's allotment is plot 31")
    batch = await _chunk_texts("tomatoes blight beans", "letta", top_k=1)
    assert batch[0].startswith("# Conversation with agent garden_helper, 2024-03-02\n")
    assert "user [2024-03-02T09:00:00+00:00]: My tomatoes got blight last summer." in batch[0]
    assert "system prompt" not in batch[0] and '"status"' not in batch[0]
    assert (await _chunk_texts("retired tram driver", "letta", top_k=1))[0].startswith("human:\n")


async def test_letta_preserve_derives_nothing() -> None:
    await engramdb.remember(
        LettaSource(LETTA, mode="preserve"), dataset_name="letta_kept", self_improvement=False
    )
    assert await _entity_names("letta_kept") == set()
    assert len(await _records("letta_kept")) == 5


# --- Zep / Graphiti ------------------------------------------------------------------------


async def test_zep_hybrid_keeps_the_dumps_graph_and_extracts_the_episodes(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)
    openai_server.set_default("chat/completions", _scripted_extraction(openai_server))
    result = await engramdb.remember(ZepSource(ZEP), dataset_name="zep", self_improvement=False)
    assert result.counts["documents"] == 6  # 1 episode, 3 entities, 2 facts

    # only the episode went to the LLM: the dump's entities and facts are written as given
    sent = " ".join(
        m["content"]
        for r in openai_server.requests_to("chat/completions")
        for m in r.json["messages"]
    )
    assert "spectrometer moves to building C" in sent
    assert "supervises" not in sent and "Lab manager of the chemistry group" not in sent

    facts = await _facts("zep")
    supervises = facts[("Marta", "supervises", "Ivo")]
    assert supervises["valid_at"] == "2023-09-01T00:00:00+00:00"
    assert supervises["fact"] == "Marta supervises Ivo." and supervises["external_id"] == "e-1"
    operates = facts[("Ivo", "operates", "Spectrometer")]
    assert operates["invalid_at"] == "2024-03-01T00:00:00+00:00"
    graph = await engramdb.get_graph(["zep"])
    (marta,) = [
        n
        for n in graph.nodes_of_type(NodeType.ENTITY)
        if n.name == "Marta" and n.properties["extractor"] == "import:zep"
    ]
    assert marta.properties["entity_type"] == "PERSON"  # the dump's label, not the LLM's
    assert marta.properties["description"] == "Lab manager of the chemistry group."
    lab = graph.node_named("Lab", NodeType.ENTITY)  # the scripted LLM's, from the episode
    assert lab is not None and lab.properties["extractor"] == "llm"

    records = await _by_external_id("zep")
    assert records["e-2"].external_metadata["invalid_at"] == "2024-03-01T00:00:00+00:00"
    assert records["ep-a1"].external_metadata["group_id"] == "lab-chem"
    assert records["n-marta"].external_metadata["labels"] == ["Entity", "Person"]
    (top,) = await _chunk_texts("Who supervises Ivo?", "zep", top_k=1)
    valid = "(valid from 2023-09-01T00:00:00+00:00)"
    assert top == f"Marta —supervises→ Ivo: Marta supervises Ivo. {valid}"


async def test_zep_preserve_writes_the_given_graph_and_no_other() -> None:
    await engramdb.remember(
        GraphitiSource(ZEP, mode="preserve"), dataset_name="graphiti", self_improvement=False
    )
    assert await _entity_names("graphiti") == {"Marta", "Ivo", "Spectrometer"}  # none derived
    assert set(await _facts("graphiti")) == {
        ("Marta", "supervises", "Ivo"),
        ("Ivo", "operates", "Spectrometer"),
    }
    records = await _records("graphiti")
    assert {r.node_set[0] for r in records} == {"import:graphiti"}
    hits = await _chunk_texts("spectrometer building C", "graphiti", top_k=1)
    assert hits[0].startswith("# Lab meeting\nMarta announced")


async def test_zep_re_derive_extracts_the_facts_like_any_text() -> None:
    await engramdb.remember(
        ZepSource(ZEP, mode="re-derive"), dataset_name="rederived", self_improvement=False
    )
    facts = await _facts("rederived")
    assert not any("valid_at" in p for p in facts.values())  # nothing written as given
    assert "Marta" in await _entity_names("rederived")  # the offline extractor found her
    assert len(await _records("rederived")) == 6  # the entities and facts were not dropped


async def test_add_then_cognify_keeps_each_documents_mode() -> None:
    added = await engramdb.add(ZepSource(ZEP, mode="preserve"), "staged")
    assert [i.status for i in added.items] == ["pending"] * 6
    await engramdb.cognify(["staged"])
    assert await _entity_names("staged") == {"Marta", "Ivo", "Spectrometer"}
    assert ("Marta", "supervises", "Ivo") in await _facts("staged")
    assert (await _by_external_id("staged"))["e-1"].node_set == ["import:zep"]


# --- malformed exports -------------------------------------------------------------------


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "export.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("make", "text", "message"),
    [
        (Mem0Source, '{"results": [', "is not valid JSON"),
        (Mem0Source, '{"data": []}', "is not a mem0 export"),
        (Mem0Source, '{"results": [{"id": "x"}]}', r"results\[0\] has no memory text"),
        (Mem0Source, '{"results": ["just text"]}', r"results\[0\] is a string, not an object"),
        (
            Mem0Source,
            '[{"memory": "ok", "created_at": "last Tuesday"}]',
            r"the list\[0\]\.created_at is not a timestamp",
        ),
        (Mem0Source, '{"results": []}', "holds nothing to import"),
        (LettaSource, "[1, 2]", "is not a JSON object"),
        (LettaSource, '{"agents": [{"block_ids": ["b9"]}]}', r"names blocks \['b9'\]"),
        (ZepSource, '{"something": 1}', "is not a Zep/Graphiti dump"),
        (
            ZepSource,
            '{"edges": [{"source_node_uuid": "7a0e2d52-6f39-4c39-9a55-4d3b8f6f1c11", '
            '"target_node_uuid": "Bob"}]}',
            r"edges\[0\]\.source_node_uuid is '7a0e2d52.*which no node of the dump has",
        ),
        (ZepSource, '{"episodes": [{"name": "empty"}]}', r"episodes\[0\] has no content"),
    ],
)
async def test_a_malformed_export_is_refused_naming_the_file_and_nothing_is_written(
    tmp_path: Path, make: type[MemorySource], text: str, message: str
) -> None:
    path = _write(tmp_path, text)
    # a good text next to the bad export: the whole call is refused before anything is written
    with pytest.raises(EngramValidationError, match=message) as caught:
        await engramdb.remember(["Bees make honey.", make(path)], dataset_name="bad")  # type: ignore[call-arg]
    assert str(path) in str(caught.value)
    with pytest.raises(EngramValidationError, match=message):
        await engramdb.add(make(path), "bad")  # type: ignore[call-arg]
    assert "bad" not in [d.name for d in await engramdb.list_datasets()]


async def test_a_missing_export_file_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "data" / "sample_letta_dump.json"
    with pytest.raises(EngramValidationError, match=r"Letta agent file '.*': does not exist"):
        await engramdb.remember(LettaSource(missing))
    with pytest.raises(EngramValidationError, match="takes a path to an export file"):
        await engramdb.remember(Mem0Source(42))  # type: ignore[arg-type]


# --- cognee's module path ----------------------------------------------------------------


def test_cognee_migration_path_mirrors_the_importers() -> None:
    from engramdb.compat.cognee import migration

    assert migration.Mem0Source is Mem0Source and migration.ZepSource is ZepSource
    assert set(migration.__all__) == {
        "IMPORT_MODES",
        "GraphitiSource",
        "LettaSource",
        "Mem0Source",
        "MemorySource",
        "ZepSource",
    }
    with pytest.raises(ImportError):
        from engramdb.compat.cognee.migration import export_dataset  # noqa: F401
