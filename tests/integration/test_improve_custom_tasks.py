"""improve()'s deprecated custom tasks through the public API: the ``custom_tasks`` stage, its
lock, ``memify_run`` and the deprecation warnings (improve.md). Also run on PostgreSQL
(tests/postgres/test_api.py)."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

import engramdb
from engramdb.models.datapoints import DataPoint
from engramdb.pipelines import PipelineRunCompleted, PipelineRunErrored, Task
from engramdb.settings import IMPROVE_STAGES


class Person(DataPoint):
    name: str
    metadata: dict = {"index_fields": ["name"]}  # noqa: RUF012 - cognee's spelling


def _seen(graphs: list[engramdb.GraphSnapshot]) -> list[Person]:
    """An extraction task: one ``<name> (seen)`` person per person of the graph it gets."""
    (graph,) = graphs
    return [Person(name=f"{n.name} (seen)") for n in graph.nodes_of_type("Person")]


async def _people(dataset: str) -> set[str]:
    return {n.name for n in (await engramdb.get_graph([dataset])).nodes_of_type("Person")}


async def test_custom_tasks_run_as_an_extra_stage_after_the_registry_stages() -> None:
    """improve.md: "extraction_tasks ... Custom extraction tasks: `Task` objects, registry task
    names, or a mix. They run after the registry stages as an extra `custom_tasks` stage, on the
    first pass only." — and "When you pass the deprecated extraction_tasks/enrichment_tasks,
    one more stage, custom_tasks, is appended after these and runs them."

    The enrichment task is add_data_points, which takes the dataset's ingest lock while the
    improve holds that lock: the stage must not wait on itself."""
    await engramdb.add_data_points([Person(name="Alice")], dataset_name="crew")
    with pytest.warns(FutureWarning, match="run_custom_pipeline"):
        result = await asyncio.wait_for(
            engramdb.improve(
                "crew",
                extraction_tasks=[Task(_seen)],
                enrichment_tasks=["add_data_points"],
                build_global_context_index=False,
                review_conflicts=False,
            ),
            timeout=60,
        )
    assert [s.stage for s in result.stages] == [*IMPROVE_STAGES, "custom_tasks"]
    custom = result.stage("custom_tasks")
    assert custom is not None and custom.status == "completed", custom
    assert custom.counts == {"tasks": 2, "data_items": 1}
    assert result.status == "completed"
    assert await _people("crew") == {"Alice", "Alice (seen)"}


async def test_memify_run_holds_the_custom_stages_raw_return() -> None:
    """improve.md: "result.memify_run is deprecated: reading it raises a FutureWarning, and it
    holds the raw return of the custom_tasks stage's first pass, or {} when no custom tasks
    ran." """
    await engramdb.add_data_points([Person(name="Bob")], dataset_name="crew")
    plain = await engramdb.improve("crew", build_global_context_index=False)
    with pytest.warns(FutureWarning, match="memify_run"):
        assert plain.memify_run == {}
    assert plain.stage("custom_tasks") is None

    with pytest.warns(FutureWarning):
        result = await engramdb.improve(
            "crew", extraction_tasks=[Task(_seen), "add_data_points"], run_in_background=True
        )
    await result.wait()
    with pytest.warns(FutureWarning, match="memify_run"):
        raw = result.memify_run
    assert list(raw) == [result.dataset_id]
    (event,) = raw.values()
    assert isinstance(event, PipelineRunCompleted) and event.dataset_name == "crew"


async def test_explicit_data_and_node_name_scope_the_custom_tasks() -> None:
    """improve.md: "`data` ... Explicit input for the custom tasks, instead of the projected
    graph fragment." and node_name "Restricts the graph fragment passed to the deprecated
    custom extraction_tasks/enrichment_tasks to specific named entities or node sets." """
    await engramdb.add_data_points([Person(name="Cy"), Person(name="Di")], dataset_name="crew")
    with pytest.warns(FutureWarning):
        await engramdb.improve(
            "crew", extraction_tasks=[Task(_seen), "add_data_points"], node_name=["Cy"]
        )
    assert await _people("crew") == {"Cy", "Di", "Cy (seen)"}

    def named(texts: list[str]) -> list[Person]:
        return [Person(name=t) for t in texts]

    with pytest.warns(FutureWarning):
        await engramdb.improve(
            "crew", extraction_tasks=[Task(named)], enrichment_tasks=["add_data_points"], data="Ed"
        )
    assert "Ed" in await _people("crew")


async def test_a_failing_custom_task_errors_the_stage_only() -> None:
    """improve.md: "errored: the stage failed. error holds the message and the remaining
    stages still run" — the custom_tasks stage reports like the others."""
    await engramdb.add_data_points([Person(name="Fay")], dataset_name="crew")

    def broken(_: Any) -> None:
        raise RuntimeError("custom task broke")

    with pytest.warns(FutureWarning):
        result = await engramdb.improve("crew", extraction_tasks=[Task(broken)])
    custom = result.stage("custom_tasks")
    assert custom is not None and custom.status == "errored"
    assert "custom task broke" in (custom.error or "")
    assert result.status == "errored"
    assert result.stage("global_context_index").status == "completed"  # type: ignore[union-attr]
    with pytest.warns(FutureWarning):
        (event,) = result.memify_run.values()
    assert isinstance(event, PipelineRunErrored)


async def test_scoping_options_without_tasks_warn_and_are_ignored() -> None:
    """improve.md: "data, node_type, vector_db_config, graph_db_config and node_name only scope
    those custom tasks. Without custom tasks they are ignored, also with a FutureWarning. None
    or an empty task list counts as not given." """
    await engramdb.add_data_points([Person(name="Gus")], dataset_name="crew")
    with pytest.warns(FutureWarning, match="without those tasks"):
        result = await engramdb.improve("crew", extraction_tasks=[], data=["x"], node_name=["Gus"])
    assert result.stage("custom_tasks") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = await engramdb.improve("crew", extraction_tasks=None)
    assert result.stage("custom_tasks") is None


async def test_bad_custom_tasks_fail_before_any_stage_runs() -> None:
    """The helper rules' bad-input rule: an unknown task name or a non-Task fails the call
    before any stage runs, writing nothing."""
    await engramdb.add_data_points([Person(name="Hal")], dataset_name="crew")
    before = await engramdb.get_graph(["crew"])
    with pytest.warns(FutureWarning), pytest.raises(engramdb.EngramValidationError):
        await engramdb.improve("crew", extraction_tasks=[42])
    with pytest.warns(FutureWarning), pytest.raises(engramdb.EngramValidationError):
        await engramdb.improve("crew", extraction_tasks=Task(_seen))  # not a list
    after = await engramdb.get_graph(["crew"])
    assert len(after.nodes) == len(before.nodes)


class Note(DataPoint):
    text: str
    metadata: dict = {"index_fields": ["text"]}  # noqa: RUF012 - cognee's spelling


def _notes(texts: list[str]) -> list[Note]:
    return [Note(text=f"note: {t}") for t in texts]


async def test_registry_task_names_run_mixed_with_task_objects() -> None:
    """improve.md: "Custom extraction tasks: `Task` objects, registry task names, or a mix." —
    cognee's extract_subgraph_chunks (the graph's chunk texts), index_data_points and
    add_data_points run by name between Task objects."""
    await engramdb.remember(
        "Ada Lovelace wrote the first program.", dataset_name="notes", self_improvement=False
    )
    with pytest.warns(FutureWarning):
        result = await engramdb.improve(
            "notes",
            extraction_tasks=["extract_subgraph_chunks", Task(_notes)],
            enrichment_tasks=["index_data_points", "add_data_points"],
            build_global_context_index=False,
        )
    assert result.stage("custom_tasks").status == "completed"  # type: ignore[union-attr]
    graph = await engramdb.get_graph(["notes"])
    assert [n.text for n in graph.nodes_of_type("Note")] == [
        "note: Ada Lovelace wrote the first program."
    ]

    edges: list[int] = []

    def count(batch: list[Any]) -> None:
        edges.append(len(batch))

    with pytest.warns(FutureWarning):
        await engramdb.improve(
            "notes", extraction_tasks=["extract_subgraph", Task(count, batch_size=1000)]
        )
    assert edges == [len(graph.edges)] and edges[0] > 0
