"""Custom pipelines through the public surface, in cognee's example shapes: ``Task`` kinds and
batching, ``run_tasks`` events, ``run_custom_pipeline`` with ``add_data_points`` as a step,
the lightweight ``run_pipeline`` over ``task()`` steps, the deprecated ``memify`` — and the
cognee module paths under ``engramdb run-cognee``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

import engramdb
from engramdb import SearchType
from engramdb.compat.cognee.modules.pipelines.operations.run_pipeline import run_pipeline
from engramdb.compat.cognee.modules.pipelines.tasks.task import task
from engramdb.compat.cognee.modules.users.methods import get_default_user
from engramdb.compat.cognee.tasks.storage import add_data_points
from engramdb.engine import get_engine
from engramdb.models.datapoints import DataPoint
from engramdb.models.records import RunStatus
from engramdb.pipelines import PipelineContext, PipelineRunCompleted, PipelineRunErrored, Task


class Person(DataPoint):
    name: str
    knows: list[Person] = []  # noqa: RUF012 - a pydantic field
    metadata: dict = {"index_fields": ["name"]}  # noqa: RUF012 - cognee's spelling


def numbers(_: Any) -> Iterator[int]:
    yield from range(1, 6)


async def doubled(batch: list[int]) -> AsyncIterator[int]:
    for n in batch:
        if n != 3:
            yield n * 2
        else:
            yield engramdb.Drop


def people_from(data: list[dict[str, list[str]]]) -> list[Person]:
    """cognee's extract step: one list item, people and who they know."""
    (known,) = data
    found = {name: Person(name=name) for name in known}
    for name, friends in known.items():
        found[name].knows = [found[f] for f in friends]
    return list(found.values())


async def test_task_kinds_and_batch_sizes_chain_as_in_cognee() -> None:
    seen: list[Any] = []

    async def collect(batch: list[int], ctx: PipelineContext) -> None:
        seen.append((batch, ctx.dataset.name))

    tasks = [Task(numbers), Task(doubled, batch_size=2), Task(collect, batch_size=3)]
    result = await engramdb.run_custom_pipeline(tasks=tasks, data="go", dataset="counting")
    (info,) = result.values()
    assert isinstance(info, PipelineRunCompleted) and info.dataset_name == "counting"
    # numbers() in batches of 2 for doubled(), whose items come in batches of 3 for collect()
    assert seen == [([2, 4], "counting"), ([8], "counting"), ([10], "counting")]


async def test_run_custom_pipeline_stores_data_points_in_its_dataset() -> None:
    tasks = [Task(people_from), Task(add_data_points)]
    data = {"Alice": ["Mark"], "Mark": ["Bob"], "Bob": []}
    result = await engramdb.run_custom_pipeline(tasks=tasks, data=data, dataset="people_demo")
    (info,) = result.values()
    assert info.status == "PipelineRunCompleted"
    assert [d.name for d in await engramdb.list_datasets()] == ["people_demo"]
    (context,) = await engramdb.search(
        "Who does Mark know?",
        query_type=SearchType.GRAPH_COMPLETION,
        datasets=["people_demo"],
        only_context=True,
    )
    assert "Mark —knows→ Bob" in context
    runs = await get_engine().store.list_runs([info.dataset_id])
    assert {r.pipeline for r in runs} >= {"custom_pipeline"}


async def test_a_failing_task_ends_the_run_errored_without_raising() -> None:
    def broken(_: Any) -> None:
        raise RuntimeError("no such person: api_key=sk-live-0123456789abcdef")

    result = await engramdb.run_custom_pipeline(
        tasks=[Task(people_from), Task(broken)], data={"Alice": []}, dataset="broken"
    )
    (info,) = result.values()
    assert isinstance(info, PipelineRunErrored)
    assert info.error_class == "RuntimeError"
    assert info.error_message is not None and "sk-live" not in info.error_message
    (run,) = await get_engine().store.list_runs([info.dataset_id])
    assert run.status is RunStatus.ERRORED


async def test_run_tasks_yields_cognee_run_events() -> None:
    user = await get_default_user()
    dataset = (await engramdb.add("seed", dataset_name="events", user=user)).dataset_id
    events = [
        e.status
        async for e in engramdb.run_tasks(
            [Task(people_from), Task(add_data_points)],
            dataset_id=dataset,
            data=[{"Ada": []}, {"Grace": []}],
            user=user,
        )
    ]
    assert events == ["PipelineRunStarted", "PipelineRunCompleted"]
    graph = await engramdb.get_graph(["events"])
    assert sorted(n.name for n in graph.nodes_of_type("Person")) == ["Ada", "Grace"]


async def test_run_in_background_returns_at_once() -> None:
    gate = asyncio.Event()

    async def wait(data: Any) -> Any:
        await gate.wait()
        return data

    tasks = [Task(wait), Task(people_from), Task(add_data_points)]
    started = await engramdb.run_custom_pipeline(
        tasks=tasks, data={"Lin": []}, dataset="later", run_in_background=True
    )
    assert [i.status for i in started.values()] == ["PipelineRunStarted"]
    gate.set()
    for _ in range(100):
        if (await engramdb.get_graph(["later"])).nodes_of_type("Person"):
            break
        await asyncio.sleep(0.05)
    assert [n.name for n in (await engramdb.get_graph(["later"])).nodes_of_type("Person")] == [
        "Lin"
    ]


async def test_lightweight_run_pipeline_over_task_steps() -> None:
    @task
    async def extract(text: str, suffix: str = "") -> list[Person]:
        return [Person(name=word + suffix) for word in text.split()]

    @task
    async def store(people: list[Person]) -> str:
        await add_data_points(people)
        return ", ".join(p.name for p in people)

    results = await run_pipeline([extract(suffix="!"), store()], data="Ann Ben")
    assert results == ["Ann!, Ben!"]
    assert len((await engramdb.get_graph()).nodes_of_type("Person")) == 2
    with pytest.raises(TypeError, match="BoundTask"):
        await run_pipeline([extract], data="x")
    assert [p.name for p in await extract.direct("Cy")] == ["Cy"]


async def test_memify_warns_runs_given_tasks_over_the_graph_and_nothing_by_default() -> None:
    await engramdb.add_data_points([Person(name="Alice")], dataset_name="memo")
    with pytest.warns(FutureWarning, match="improve"):
        assert await engramdb.memify(dataset="memo") == {}

    def enrich(graphs: list[engramdb.GraphSnapshot]) -> list[Person]:
        (graph,) = graphs
        return [Person(name=f"{n.name} (seen)") for n in graph.nodes_of_type("Person")]

    with pytest.warns(FutureWarning):
        result = await engramdb.memify(
            extraction_tasks=[Task(enrich)], enrichment_tasks=["add_data_points"], dataset="memo"
        )
    assert [i.status for i in result.values()] == ["PipelineRunCompleted"]
    names = {n.name for n in (await engramdb.get_graph(["memo"])).nodes_of_type("Person")}
    assert names == {"Alice", "Alice (seen)"}
    with (
        pytest.warns(FutureWarning),
        pytest.raises(engramdb.FeatureNotAvailableError, match="extract_subgraph_chunks"),
    ):  # a cognee task name engramdb does not run: the error lists the ones it does
        await engramdb.memify(extraction_tasks=["detect_entity_duplicates"], dataset="memo")


PROGRAM = """
import asyncio
from typing import Any
from pydantic import SkipValidation
import cognee
from cognee.infrastructure.engine import DataPoint
from cognee.infrastructure.engine.models.Edge import Edge
from cognee.low_level import setup
from cognee.modules.data.methods import load_or_create_datasets
from cognee.modules.users.methods import get_default_user
from cognee.pipelines import Task, run_tasks
from cognee.tasks.storage import add_data_points
from cognee.tasks.storage.index_graph_edges import index_graph_edges


class Person(DataPoint):
    name: str
    knows: SkipValidation[Any] = None
    metadata: dict = {"index_fields": ["name"]}


def build(data):
    (names,) = data
    people = [Person(name=n) for n in names]
    people[0].knows = (Edge(relationship_type="mentors"), people[1])
    return people


async def main():
    await cognee.prune.prune_system(metadata=True)
    await setup()
    user = await get_default_user()
    (dataset,) = await load_or_create_datasets(["team"], [], user)
    async for info in run_tasks([Task(build), Task(add_data_points)], dataset.id, [["Ann", "Ben"]]):
        print(info.status)
    await index_graph_edges()
    print(await cognee.search("Ann", query_type=cognee.SearchType.GRAPH_COMPLETION,
                              datasets=["team"], only_context=True))

asyncio.run(main())
"""


def test_a_cognee_pipeline_program_runs_unchanged(tmp_path: Path) -> None:
    script = tmp_path / "pipeline_program.py"
    script.write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "LLM_"))}
    env.update(ENGRAMDB_DATA_DIR=str(tmp_path / "data"), EMBEDDING_PROVIDER="fake")
    done = subprocess.run(
        [sys.executable, "-m", "engramdb.compat.cognee", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["PipelineRunStarted", "PipelineRunCompleted"]
    assert "Ann —mentors→ Ben" in lines[2]
