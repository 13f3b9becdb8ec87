"""remember → recall → forget through the public API, on the embedded store."""

from __future__ import annotations

import math
import uuid
from typing import Any

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import NodeType, RunStatus

FACTS = [
    "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin, "
    "while Tom never moved.",
    "Alice moved to Paris in 2010, while Bob has always lived in New York.",
    "Andreas was born in Venice, but later settled in Lisbon.",
]


async def _remember_facts() -> list[engramdb.RememberResult]:
    out = []
    for fact, weight in zip(FACTS, (0.5, 0.7, 0.3), strict=True):
        out.append(
            await engramdb.remember(
                fact,
                dataset_name="importance_demo",
                importance_weight=weight,
                self_improvement=False,
            )
        )
    return out


async def test_remember_then_recall_finds_the_matching_fact() -> None:
    results = await _remember_facts()
    assert [r.status for r in results] == ["completed"] * 3
    assert all(r.counts["documents"] == 1 and r.counts["chunks"] == 1 for r in results)

    found = await engramdb.recall(
        "Andreas born Venice settled Lisbon", datasets=["importance_demo"]
    )
    assert found, "recall returned nothing"
    top = found[0]
    assert top.source == "graph"
    assert "Andreas" in top.text
    assert top.search_type == "CHUNKS"  # no LLM configured, no query_type → CHUNKS
    assert isinstance(top.score, float)
    assert top.dataset_name == "importance_demo"
    assert top.metadata["data_id"] == str(results[2].data_ids[0])
    assert top.metadata["chunk_index"] == 0
    assert top.metadata["document_name"].startswith("text_")
    assert uuid.UUID(top.metadata["chunk_id"])
    scores = [r.score for r in found]
    assert scores == sorted(scores), "CHUNKS must come closest first"


async def test_results_are_models_read_by_attribute() -> None:
    await _remember_facts()
    top = (await engramdb.recall("Alice Paris", top_k=1))[0]
    with pytest.raises(AttributeError):
        top.get("text")  # type: ignore[union-attr]


async def test_lexical_search_has_no_score() -> None:
    await _remember_facts()
    found = await engramdb.recall(
        "Helsinki", engramdb.SearchType.CHUNKS_LEXICAL, datasets=["importance_demo"]
    )
    assert len(found) == 1
    assert "Helsinki" in found[0].text
    assert found[0].score is None
    assert found[0].search_type == "CHUNKS_LEXICAL"


async def test_query_type_accepts_strings() -> None:
    await _remember_facts()
    found = await engramdb.recall("lisbon", "chunks_lexical")
    assert found and "Lisbon" in found[0].text


async def test_weight_is_stored_on_data_record_and_every_chunk() -> None:
    results = await _remember_facts()
    store = get_engine().store
    for result, weight in zip(results, (0.5, 0.7, 0.3), strict=True):
        record = await store.get_data(result.data_ids[0])
        assert record is not None and record.importance_weight == weight
    dataset = results[0].dataset_id
    chunks = await store.list_nodes([dataset], type=NodeType.CHUNK)
    docs = await store.list_nodes([dataset], type=NodeType.DOCUMENT)
    assert sorted(c.importance_weight for c in chunks) == [0.3, 0.5, 0.7]
    assert sorted(d.importance_weight for d in docs) == [0.3, 0.5, 0.7]


async def test_reingest_is_skipped_and_keeps_stored_weight() -> None:
    first = await engramdb.remember(FACTS[0], importance_weight=0.9)
    again = await engramdb.remember(FACTS[0], importance_weight=0.1)
    assert again.counts["documents"] == 0 and again.counts["skipped"] == 1
    assert again.items[0].status == "skipped" and again.data_ids == first.data_ids
    record = await get_engine().store.get_data(first.data_ids[0])
    assert record is not None and record.importance_weight == 0.9


async def test_list_of_texts_dedupes_within_one_call() -> None:
    result = await engramdb.remember([FACTS[0], FACTS[1], FACTS[0]])
    assert result.counts["documents"] == 2 and result.counts["skipped"] == 1


async def test_recall_before_any_ingestion_raises_precondition() -> None:
    with pytest.raises(engramdb.RecallPreconditionError, match="Recall prerequisites not met"):
        await engramdb.recall("anything")
    assert engramdb.RecallPreconditionError.status_code == 422


async def test_unknown_dataset_names_are_listed() -> None:
    await _remember_facts()
    with pytest.raises(engramdb.DatasetNotFoundError) as info:
        await engramdb.recall("x", datasets=["importance_demo", "typo", "other"])
    assert info.value.missing == ["typo", "other"]
    assert info.value.status_code == 404


async def test_dataset_ids_and_all_readable_datasets() -> None:
    demo = (await _remember_facts())[0].dataset_id
    other = await engramdb.remember("Zebras graze in the Serengeti.", dataset_name="animals")
    by_id = await engramdb.recall("zebras serengeti", dataset_ids=[other.dataset_id])
    assert {r.dataset_id for r in by_id} == {other.dataset_id}
    everywhere = await engramdb.recall("zebras serengeti helsinki", top_k=10)
    assert {r.dataset_id for r in everywhere} == {demo, other.dataset_id}
    with pytest.raises(engramdb.PermissionDeniedError):
        await engramdb.recall("x", dataset_ids=[uuid.uuid4()])


async def test_recall_rejects_unknown_keyword_and_scope() -> None:
    await _remember_facts()
    with pytest.raises(TypeError, match="node_type"):
        await engramdb.recall("x", node_type="Entity")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="unknown recall scope"):
        await engramdb.recall("x", scope="everything")


@pytest.mark.parametrize("search_type", ["GRAPH_COMPLETION", "RAG_COMPLETION", "HYBRID_COMPLETION"])
async def test_completion_without_an_llm_says_how_to_configure_one(search_type: str) -> None:
    await _remember_facts()
    with pytest.raises(engramdb.LLMNotConfiguredError, match=search_type) as info:
        await engramdb.recall("Where does Alice live?", search_type)
    assert "LLM_API_KEY" in str(info.value) and "only_context=True" in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"query_text": ""}, "empty"),
        ({"query_text": "   "}, "empty"),
        ({"query_text": "x" * 100_001}, "limit"),
        ({"query_text": "x", "top_k": 0}, "top_k"),
        ({"query_text": "x", "top_k": 10**9}, "top_k"),
        ({"query_text": "x", "query_type": "NOPE"}, "unknown query_type"),
        ({"query_text": "x", "feedback_influence": 2.0}, "feedback_influence"),
        ({"query_text": "x", "code_query": {"operation": "explore"}}, "scope includes 'code'"),
    ],
)
async def test_recall_bad_arguments(kwargs: dict[str, Any], fragment: str) -> None:
    await _remember_facts()
    with pytest.raises(engramdb.EngramValidationError, match=fragment):
        await engramdb.recall(**kwargs)


@pytest.mark.parametrize("weight", [math.nan, math.inf, -0.1, 1.01, "0.5", True, None])
async def test_bad_weight_writes_nothing(weight: object) -> None:
    with pytest.raises(engramdb.EngramValidationError, match="importance_weight"):
        await engramdb.remember("A fact.", importance_weight=weight)  # type: ignore[arg-type]
    assert not await get_engine().store.exists()


@pytest.mark.parametrize("name", ["", "   ", "x" * 129, "../etc", "a/b", " lead", "semi;colon"])
async def test_bad_dataset_name_writes_nothing(name: str) -> None:
    with pytest.raises(engramdb.EngramValidationError, match="dataset name"):
        await engramdb.remember("A fact.", dataset_name=name)
    assert not await get_engine().store.exists()


@pytest.mark.parametrize("data", ["", "  \n\t ", []])
async def test_empty_input_writes_nothing(data: object) -> None:
    with pytest.raises(engramdb.EngramValidationError):
        await engramdb.remember(data)  # type: ignore[arg-type]
    assert not await get_engine().store.exists()


async def test_bad_file_in_a_list_writes_nothing(tmp_path: Any) -> None:
    good = tmp_path / "good.txt"
    good.write_text("A good file.")
    bad = tmp_path / "bad.docx"
    bad.write_bytes(b"PK\x03\x04")
    with pytest.raises(engramdb.EngramValidationError, match=r"bad\.docx"):
        await engramdb.remember([good, bad])
    assert not await get_engine().store.exists()


async def test_invalid_utf8_file_is_refused(tmp_path: Any) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9 au lait".encode("latin-1"))
    with pytest.raises(engramdb.EngramValidationError, match="UTF-8"):
        await engramdb.remember(bad)


async def test_files_and_directories(tmp_path: Any) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Trip\n\nWe hiked the Dolomites in June.")
    (folder / "b.csv").write_text("city,country\nOslo,Norway\nLima,Peru\n")
    (folder / "c.json").write_text('{"pet": {"name": "Rex", "kind": "dog"}}')
    (folder / "d.html").write_text("<html><body><p>The lighthouse is red.</p></body></html>")
    result = await engramdb.remember(folder, dataset_name="notes")
    assert result.counts["documents"] == 4
    found = await engramdb.recall("lighthouse", "CHUNKS_LEXICAL", datasets=["notes"])
    assert found and "lighthouse is red" in found[0].text
    assert found[0].metadata["document_name"] == "d.html"


async def test_forget_one_item_keeps_the_others() -> None:
    results = await _remember_facts()
    store = get_engine().store
    dataset = results[0].dataset_id
    gone = await engramdb.forget(data_id=results[2].data_ids[0])
    assert gone.data_records == 1 and gone.nodes >= 2 and gone.vectors >= 1
    types = await store.list_nodes([dataset], type=NodeType.ENTITY_TYPE)
    assert {"person", "place"} <= {t.name for t in types}  # shared with the other documents
    found = await engramdb.recall("Andreas Venice Lisbon", "CHUNKS_LEXICAL")
    assert all("Andreas" not in r.text for r in found)
    assert len(await store.list_nodes([dataset], type=NodeType.CHUNK)) == 2
    assert (await store.check_integrity()).ok
    # forgotten content can be remembered again
    again = await engramdb.remember(FACTS[2], dataset_name="importance_demo")
    assert again.counts["documents"] == 1


async def test_forget_dataset_and_everything() -> None:
    await _remember_facts()
    await engramdb.remember("Zebras graze.", dataset_name="animals")
    gone = await engramdb.forget(dataset="animals")
    assert gone.datasets == 1 and gone.data_records == 1
    assert [d.name for d in await engramdb.list_datasets()] == ["importance_demo"]
    with pytest.raises(engramdb.DatasetNotFoundError):
        await engramdb.forget(dataset="animals")
    everything = await engramdb.forget(everything=True)
    assert everything.datasets == 1 and everything.data_records == 3
    assert await engramdb.list_datasets() == []
    assert (await get_engine().store.check_integrity()).ok


async def test_forget_needs_exactly_one_target() -> None:
    with pytest.raises(engramdb.EngramValidationError, match="exactly one"):
        await engramdb.forget()
    with pytest.raises(engramdb.EngramValidationError, match="exactly one"):
        await engramdb.forget(everything=True, dataset="x")


async def test_run_in_background_returns_at_once() -> None:
    pending = await engramdb.remember(FACTS, run_in_background=True)
    assert pending.status == "running" and len(pending.data_ids) == 3
    done = await pending.wait()
    assert done.status == "completed" and done.counts["documents"] == 3
    assert set(done.data_ids) == set(pending.data_ids)
    # the run id announced at once is the recorded run's, and the result's
    runs = await get_engine().store.list_runs([done.dataset_id])
    assert pending.run_id is not None and done.run_id == pending.run_id
    assert [r.id for r in runs if r.pipeline == "remember"] == [pending.run_id]
    assert (await pending).status == "completed"


async def test_pipeline_runs_are_recorded() -> None:
    results = await _remember_facts()
    runs = await get_engine().store.list_runs([results[0].dataset_id])
    assert len(runs) == 3
    assert all(r.status is RunStatus.COMPLETED and r.finished_at is not None for r in runs)


async def test_embedding_dimension_change_is_a_clear_error() -> None:
    await engramdb.remember("A fact about owls.", dataset_name="birds")
    engramdb.config.set("embedding_dimensions", 32)
    with pytest.raises(engramdb.EmbeddingMismatchError, match="birds"):
        await engramdb.remember("Another fact about owls.", dataset_name="birds")
    with pytest.raises(engramdb.EmbeddingMismatchError):
        await engramdb.recall("owls", datasets=["birds"])


async def test_a_rebuilt_document_keeps_its_entities_embedded() -> None:
    """``incremental_loading=False`` builds present content again in one write that replaces
    the stored copy: the entities only it mentions are built anew with their vectors, and
    those another document also mentions keep theirs."""
    text = "Ada Lovelace met Charles Babbage in London."
    await engramdb.remember(text, "notes", self_improvement=False)
    await engramdb.remember("Charles Babbage lived in London.", "notes", self_improvement=False)
    engine = get_engine()
    dataset = await engine.store.find_dataset((await engine.resolve_user(None)).id, "notes")
    assert dataset is not None
    query = (await engine.embedder.embed(["Ada Lovelace"]))[0]

    async def entity_hits() -> list[uuid.UUID]:
        hits = await engine.store.vector_search("entities", query, [dataset.id], 20)
        return sorted(h.node_id for h in hits)

    before = await entity_hits()
    result = await engramdb.remember(
        text, "notes", incremental_loading=False, self_improvement=False
    )
    assert [i.status for i in result.items] == ["ingested"]
    assert len(before) >= 3 and await entity_hits() == before
    assert (await engine.store.check_integrity()).ok
    assert len(await engine.store.list_data(dataset.id)) == 2
