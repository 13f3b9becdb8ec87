"""Past improve runs with their stages (``list_improve_runs``), and the titles the datasets
listing gives pasted texts (the graph view's human names). Run again on PostgreSQL by
tests/postgres/test_api.py."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid4

import pytest

import engramdb
from engramdb.errors import DatasetNotFoundError, PermissionDeniedError
from engramdb.settings import IMPROVE_STAGES
from engramdb.viz.select import human_labels

FACTS = "Ada Lovelace wrote the first program for the Analytical Engine in London in 1843."
MORE = "Grace Hopper built the first compiler at Remington Rand while she lived in New York."


async def test_improve_runs_are_listed_newest_first_with_their_stages() -> None:
    await engramdb.remember(FACTS, dataset_name="history", self_improvement=False)
    await engramdb.remember(MORE, dataset_name="computing", self_improvement=False)
    assert await engramdb.list_improve_runs() == []
    first = await engramdb.improve("history")
    second = await engramdb.improve("history", build_global_context_index=False)
    other = await engramdb.improve("computing")

    runs = await engramdb.list_improve_runs("history")
    assert [r.stages for r in runs] == [second.stages, first.stages]
    assert [r.status for r in runs] == [second.status, first.status]
    assert [s.stage for s in runs[0].stages] == list(IMPROVE_STAGES)
    index = {s.stage: s for s in runs[1].stages}["global_context_index"]
    assert index.status == "completed" and index.duration_ms > 0
    assert runs[0].started_at >= runs[1].started_at and runs[0].finished_at is not None
    assert {r.dataset_name for r in runs} == {"history"}

    everything = await engramdb.list_improve_runs()
    assert [r.dataset_name for r in everything] == ["computing", "history", "history"]
    assert everything[0].stages == other.stages
    assert len(await engramdb.list_improve_runs(limit=1)) == 1
    by_id = await engramdb.list_improve_runs(runs[0].dataset_id)
    assert [r.run_id for r in by_id] == [r.run_id for r in runs]


async def test_improve_runs_of_a_missing_or_foreign_dataset_are_refused() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    with pytest.raises(DatasetNotFoundError):
        await engramdb.list_improve_runs("no_such_dataset")
    with pytest.raises(PermissionDeniedError):
        await engramdb.list_improve_runs(uuid4())


async def test_pasted_texts_are_titled_as_the_graph_view_names_them(tmp_path: Path) -> None:
    notes = tmp_path / "curie.md"
    notes.write_text("Marie Curie discovered polonium and radium with Pierre Curie in Paris.")
    await engramdb.remember([FACTS, str(notes)], dataset_name="titles", self_improvement=False)
    (dataset,) = await engramdb.list_datasets()
    items = await engramdb.datasets.list_data(dataset.id)
    pasted = next(i for i in items if i.name.startswith("text_"))
    assert pasted.title == "“Ada Lovelace wrote the first program for…”"
    assert next(i for i in items if i.name == "curie.md").title == "curie.md"
    # the names the graph view draws the document nodes with
    graph = await engramdb.get_graph(["titles"])
    labels = human_labels(graph.nodes)
    assert {i.id: i.title for i in items} == {i.id: labels[i.id] for i in items}
