"""cognee's classic verbs through engramdb's public surface: add, cognify, search, prune."""

from __future__ import annotations

from pathlib import Path

import pytest

import engramdb
from engramdb import SearchType
from engramdb.models.results import ResponseMarkerEntry

OWLS = "Owls hunt at night and sleep in hollow trees during the day."
BATS = "Bats find insects in the dark by echolocation."


async def _chunks(query: str, **kwargs: object) -> list[dict[str, object]]:
    found = await engramdb.search(query, query_type=SearchType.CHUNKS, **kwargs)
    assert all(isinstance(item, dict) for item in found)
    return found


async def test_add_stores_without_building_and_cognify_builds() -> None:
    added = await engramdb.add(OWLS)
    assert added.dataset_name == "main_dataset"
    assert [i.status for i in added.items] == ["pending"]
    # staged only: nothing to find yet, and the dataset reads as warm (no marker)
    assert await _chunks("When do owls hunt?") == []
    recalled = await engramdb.recall("owls", datasets=["main_dataset"])
    assert not any(isinstance(r, ResponseMarkerEntry) for r in recalled)

    built = await engramdb.cognify()
    (result,) = built.values()
    assert result.dataset_id == added.dataset_id
    assert result.counts["documents"] == 1
    assert [i.data_id for i in result.items] == added.data_ids
    (hit,) = await _chunks("When do owls hunt?", top_k=1)
    assert hit["text"] == OWLS
    assert hit["data_id"] == str(added.data_ids[0])
    assert {"id", "chunk_index", "document_name", "score"} <= set(hit)

    # built content is not added again, and a second cognify has nothing to build
    again = await engramdb.add(OWLS)
    assert [(i.status, i.reason) for i in again.items] == [("skipped", "already_present")]
    assert await engramdb.cognify() == {}


async def test_add_then_cognify_equals_remember() -> None:
    await engramdb.remember(OWLS, dataset_name="remembered", self_improvement=False)
    await engramdb.add(OWLS, "cognified")
    await engramdb.cognify(["cognified"])
    a = await _chunks("owls", datasets=["remembered"])
    b = await _chunks("owls", datasets="cognified")
    assert [x["text"] for x in a] == [x["text"] for x in b] == [OWLS]
    skipped = await engramdb.add(OWLS, "remembered")
    assert skipped.items[0].status == "skipped"


async def test_cognify_builds_only_the_named_datasets(tmp_path: Path) -> None:
    notes = tmp_path / "bats.md"
    notes.write_text(BATS)
    await engramdb.add(OWLS, dataset_name="owls", node_set=["birds"], importance_weight=0.9)
    await engramdb.add([str(notes)], dataset_name="bats")
    built = await engramdb.cognify(datasets="bats")
    assert [r.dataset_name for r in built.values()] == ["bats"]
    assert await _chunks("owls hunt", datasets=["owls"]) == []
    (hit,) = await _chunks("insects dark", datasets=["bats"])
    assert hit["text"] == BATS and hit["document_name"] == "bats.md"
    await engramdb.cognify()
    (owl,) = await _chunks("owls hunt", datasets=["owls"])
    assert owl["importance_weight"] == 0.9
    with pytest.raises(engramdb.DatasetNotFoundError):
        await engramdb.cognify(["no_such_dataset"])


async def test_cognify_in_the_background() -> None:
    await engramdb.add(OWLS)
    (pending,) = (await engramdb.cognify(run_in_background=True)).values()
    assert pending.status == "running"
    done = await pending.wait()
    assert done.status == "completed" and done.counts["documents"] == 1


async def test_search_shapes_per_type() -> None:
    await engramdb.add([OWLS, BATS])
    await engramdb.cognify()
    summaries = await engramdb.search("owls", query_type=SearchType.SUMMARIES, top_k=1)
    assert isinstance(summaries[0], dict) and "text" in summaries[0]
    lexical = await engramdb.search('"echolocation"', query_type="CHUNKS_LEXICAL")
    assert [x["text"] for x in lexical] == [BATS]
    contexts = await engramdb.search(
        "When do owls hunt?", query_type=SearchType.RAG_COMPLETION, only_context=True
    )
    assert contexts and all(isinstance(c, str) for c in contexts)
    assert "Owls hunt at night" in contexts[0]
    verbose = await engramdb.search("owls", query_type=SearchType.CHUNKS, verbose=True, top_k=1)
    assert set(verbose[0]) == {"text_result", "context_result", "objects_result"}
    assert verbose[0]["objects_result"]["text"] == OWLS
    # the default type answers with an LLM: without one the error names the way out
    with pytest.raises(engramdb.LLMNotConfiguredError, match="CHUNKS"):
        await engramdb.search("When do owls hunt?")


@pytest.mark.parametrize(
    ("call", "kwargs", "advice"),
    [
        ("add", {"vector_db_config": {"vector_db_provider": "lancedb"}}, "ENGRAMDB_STORAGE_URL"),
        ("add", {"incremental_loading": False}, "always skipped"),
        ("cognify", {"functional_relationships": {"x": 1}}, "its own relations"),
        ("search", {"node_type": object}, "node_name"),
    ],
)
async def test_options_engramdb_cannot_honour_are_refused_by_name(
    call: str, kwargs: dict[str, object], advice: str
) -> None:
    args = {"add": (OWLS,), "cognify": (), "search": ("owls",)}[call]
    name = next(iter(kwargs))
    with pytest.raises(engramdb.FeatureNotAvailableError, match=name) as caught:
        await getattr(engramdb, call)(*args, **kwargs)
    assert advice in str(caught.value)


async def test_prune_data_deletes_every_input_and_keeps_datasets_and_sessions() -> None:
    other = await engramdb.create_user("other@example.com")
    await engramdb.remember(OWLS, self_improvement=False)
    await engramdb.remember(BATS, dataset_name="theirs", user=other, self_improvement=False)
    await engramdb.add(BATS)
    await engramdb.recall("owls", session_id="chat", query_type=SearchType.CHUNKS)
    await engramdb.prune.prune_data()
    assert await _chunks("owls") == []
    assert await _chunks("bats", user=other) == []
    assert await engramdb.cognify() == {}  # the staged input went too
    assert [d.name for d in await engramdb.list_datasets()] == ["main_dataset"]
    assert [d.name for d in await engramdb.list_datasets(user=other)] == ["theirs"]
    assert len(await engramdb.session.get_session("chat")) == 1


async def test_prune_system_resets_the_graph_and_sessions_keeping_staged_inputs() -> None:
    await engramdb.remember(OWLS, self_improvement=False)
    await engramdb.add(BATS)
    await engramdb.recall("owls", session_id="chat", query_type=SearchType.CHUNKS)
    await engramdb.prune.prune_system()
    assert await _chunks("owls") == []
    assert await engramdb.session.list_sessions() == []
    (rebuilt,) = (await engramdb.cognify()).values()  # added, not built: still there
    assert rebuilt.counts["documents"] == 1
    assert [x["text"] for x in await _chunks("insects")] == [BATS]


async def test_prune_system_metadata_deletes_the_datasets_too() -> None:
    await engramdb.remember(OWLS, dataset_name="owls", self_improvement=False)
    await engramdb.add(BATS, dataset_name="bats")
    await engramdb.prune.prune_system(graph=False, vector=False, metadata=True, cache=False)
    assert await engramdb.list_datasets() == []
    await engramdb.remember(OWLS, dataset_name="owls", self_improvement=False)
    assert [x["text"] for x in await _chunks("owls")] == [OWLS]


async def test_prune_before_anything_was_stored_creates_nothing(isolated_config: Path) -> None:
    await engramdb.prune.prune_data()
    await engramdb.prune.prune_system(metadata=True)
    assert list(isolated_config.iterdir()) == []


async def test_the_engine_has_the_classic_verbs(tmp_path: Path) -> None:
    async with engramdb.Engine(data_dir=tmp_path) as mem:
        await mem.add(OWLS)
        await mem.cognify()
        assert [x["text"] for x in await mem.search("owls", SearchType.CHUNKS)] == [OWLS]
        await mem.prune.prune_data()
        assert await mem.search("owls", SearchType.CHUNKS) == []
