"""cognee's data management through the public surface: delete, update and the datasets
namespace (list_datasets, list_data, has_data, get_status, delete_data, empty_dataset,
delete_all, discover_datasets), in cognee's example shapes. Runs on PostgreSQL too
(tests/postgres/test_api.py)."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest

import engramdb
from engramdb import SearchType
from engramdb.datasets import PipelineRunStatus

CURIE = "Marie Curie worked in Paris with Pierre Curie."
EINSTEIN = "Albert Einstein visited Paris in 1921."
BOHR = "Niels Bohr lived in Copenhagen."


async def _entities() -> set[str]:
    graph = await engramdb.get_graph()
    return {n.name for n in graph.nodes if n.type == "Entity"}


async def _texts(query: str) -> list[str]:
    found = await engramdb.search(query, query_type=SearchType.CHUNKS, top_k=10)
    return [str(hit["text"]) for hit in found]


async def _main_dataset() -> engramdb.models.records.Dataset:  # type: ignore[name-defined]
    (dataset,) = await engramdb.datasets.list_datasets()
    return dataset


async def test_delete_removes_exactly_what_only_that_item_supported() -> None:
    added = await engramdb.add([CURIE, EINSTEIN])
    await engramdb.cognify()
    dataset = await _main_dataset()
    assert {"Marie Curie", "Albert Einstein", "Paris"} <= await _entities()
    with pytest.warns(DeprecationWarning, match="datasets.delete_data"):
        answer = await engramdb.delete(added.data_ids[0], dataset.id)
    assert answer == {"status": "success"}
    entities = await _entities()
    assert "Marie Curie" not in entities and "Pierre Curie" not in entities
    assert {"Albert Einstein", "Paris"} <= entities  # Paris is still supported by Einstein's
    assert await _texts("Paris") == [EINSTEIN]
    assert [d.id for d in await engramdb.datasets.list_data(dataset.id)] == [added.data_ids[1]]


async def test_update_replaces_the_content_under_the_same_data_id() -> None:
    added = await engramdb.add([CURIE, EINSTEIN])
    await engramdb.cognify()
    dataset = await _main_dataset()
    einstein = added.data_ids[1]
    result = await engramdb.update(data_id=einstein, data=BOHR, dataset_id=dataset.id)
    assert result["status"] == "full_rebuild"
    assert result["data_id"] == einstein and result["dataset_id"] == dataset.id
    assert result["fallback"]["reason"] and result["pipeline_run_id"] is not None
    entities = await _entities()
    assert "Albert Einstein" not in entities and {"Niels Bohr", "Copenhagen"} <= entities
    assert "Paris" in entities  # Curie's document still supports it
    hits = await engramdb.search("Copenhagen", query_type=SearchType.CHUNKS, top_k=10)
    assert {str(h["data_id"]) for h in hits if h["text"] == BOHR} == {str(einstein)}
    items = {d.id: d for d in await engramdb.datasets.list_data(dataset.id)}
    assert set(items) == set(added.data_ids) and items[einstein].status == "completed"
    # the same content again changes nothing; a list of two is refused, as in cognee
    again = await engramdb.update(einstein, BOHR, dataset.id)
    assert again["status"] == "unchanged"
    with pytest.raises(engramdb.EngramValidationError, match="exactly one document"):
        await engramdb.update(einstein, [BOHR, CURIE], dataset.id)
    with pytest.raises(engramdb.DataNotFoundError, match="Use add"):
        await engramdb.update(uuid4(), BOHR, dataset.id)


async def test_update_of_an_item_only_added_builds_it(tmp_path: Path) -> None:
    added = await engramdb.add(CURIE, node_set=["physics"])
    dataset = await _main_dataset()
    result = await engramdb.update(added.data_ids[0], BOHR, dataset.id)
    assert result["status"] == "full_rebuild"
    (item,) = await engramdb.datasets.list_data(dataset.id)
    assert (item.id, item.status, item.node_set) == (added.data_ids[0], "completed", ["physics"])
    assert await _texts("Copenhagen") == [BOHR]


async def test_list_data_has_data_and_status_in_cognees_shapes(tmp_path: Path) -> None:
    notes = tmp_path / "curie.md"
    notes.write_text(CURIE)
    added = await engramdb.add([str(notes), EINSTEIN], dataset_name="physics")
    (dataset,) = await engramdb.datasets.list_datasets()
    assert dataset.name == "physics"
    assert await engramdb.datasets.has_data(dataset.id) is True
    pending = await engramdb.datasets.list_data(dataset.id)
    assert [(d.id, d.status) for d in pending] == [(i, "pending") for i in added.data_ids]
    assert (pending[0].name, pending[0].extension) == ("curie.md", "md")
    assert pending[0].raw_data_location == str(notes)
    assert await engramdb.datasets.get_status([dataset.id]) == {}  # not cognified yet
    await engramdb.cognify(["physics"])
    status = await engramdb.datasets.get_status([dataset.id])
    assert status == {str(dataset.id): PipelineRunStatus.DATASET_PROCESSING_COMPLETED}
    assert status[str(dataset.id)] == "DATASET_PROCESSING_COMPLETED"
    nested = await engramdb.datasets.get_status(
        [dataset.id], pipeline_names=["cognify_pipeline", "memify_pipeline"]
    )
    assert nested[str(dataset.id)]["cognify_pipeline"] == "DATASET_PROCESSING_COMPLETED"
    built = await engramdb.datasets.list_data(dataset.id)
    assert all(d.status == "completed" and d.chunk_count >= 1 for d in built)
    assert {d.mime_type for d in built} == {"text/markdown", "text/plain"}


async def test_delete_data_of_pending_and_unknown_items_and_empty_datasets() -> None:
    added = await engramdb.add([CURIE, EINSTEIN])
    dataset = await _main_dataset()
    ok = await engramdb.datasets.delete_data(dataset_id=dataset.id, data_id=added.data_ids[0])
    assert ok == {"status": "success"}
    assert [d.id for d in await engramdb.datasets.list_data(dataset.id)] == [added.data_ids[1]]
    # an id the dataset does not hold: cognee's answer, nothing deleted
    assert await engramdb.datasets.delete_data(dataset.id, uuid4()) == {"status": "success"}
    await engramdb.datasets.delete_data(dataset.id, added.data_ids[1], delete_dataset_if_empty=True)
    assert await engramdb.datasets.list_datasets() == []


async def test_empty_dataset_and_delete_all() -> None:
    await engramdb.remember(CURIE, dataset_name="a", self_improvement=False)
    await engramdb.remember(EINSTEIN, dataset_name="b", self_improvement=False)
    first, _second = await engramdb.datasets.list_datasets()
    await engramdb.datasets.empty_dataset(first.id)
    assert [d.name for d in await engramdb.datasets.list_datasets()] == ["b"]
    await engramdb.datasets.delete_all()
    assert await engramdb.datasets.list_datasets() == []
    assert await _texts("Paris") == []


async def test_another_users_dataset_is_not_accessible() -> None:
    await engramdb.remember(CURIE, self_improvement=False)
    dataset = await _main_dataset()
    (item,) = await engramdb.datasets.list_data(dataset.id)
    stranger = await engramdb.create_user("stranger@example.com")
    with pytest.raises(engramdb.PermissionDeniedError, match="not accessible"):
        await engramdb.datasets.delete_data(dataset.id, item.id, user=stranger)
    with pytest.raises(engramdb.PermissionDeniedError):
        await engramdb.datasets.list_data(dataset.id, user=stranger)
    with pytest.raises(engramdb.PermissionDeniedError):
        await engramdb.update(item.id, BOHR, dataset.id, user=stranger)
    assert await engramdb.datasets.get_status([dataset.id], user=stranger) == {}
    await engramdb.datasets.delete_all(user=stranger)
    assert await _texts("Paris") == [CURIE]


def test_discover_datasets_names_folders_like_cognee(tmp_path: Path) -> None:
    (tmp_path / "top.txt").write_text("x")
    (tmp_path / "docs" / "2024").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("a")
    (tmp_path / "docs" / "2024" / "b.md").write_text("b")
    assert engramdb.datasets.discover_datasets(str(tmp_path)) == ["docs.2024", "docs", None]
