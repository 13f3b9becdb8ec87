"""Pipeline runs."""

from __future__ import annotations

import os
from uuid import uuid4

import pytest

from engramdb.models.improve import StageResult
from engramdb.models.records import Dataset, RunStatus
from engramdb.storage.base import Store


async def test_run_lifecycle(store: Store, dataset: Dataset) -> None:
    run = await store.start_run(dataset.id, "remember")
    assert run.status is RunStatus.STARTED
    assert run.pid == os.getpid() and run.hostname
    assert run.graph_writing is True and run.finished_at is None
    assert await store.list_runs([dataset.id]) == [run]

    await store.finish_run(run.id, RunStatus.COMPLETED, counts={"chunks": 3, "nodes": 5})
    (done,) = await store.list_runs([dataset.id])
    assert done.status is RunStatus.COMPLETED
    assert done.counts == {"chunks": 3, "nodes": 5}
    assert done.finished_at is not None and done.finished_at >= done.started_at
    assert done.finished_at.utcoffset() is not None


async def test_a_finished_run_keeps_its_stage_results(store: Store, dataset: Dataset) -> None:
    run = await store.start_run(dataset.id, "improve", graph_writing=False)
    assert run.stages == []
    stages = [
        StageResult(stage="global_context_index", status="completed", counts={"b": 2}),
        StageResult(stage="review_conflicts", status="skipped", reason="turned_off"),
    ]
    await store.finish_run(run.id, RunStatus.COMPLETED, stages=stages)
    (done,) = await store.list_runs([dataset.id])
    assert done.stages == stages


async def test_errored_run_keeps_its_error(store: Store, dataset: Dataset) -> None:
    run = await store.start_run(dataset.id, "improve", graph_writing=False)
    await store.finish_run(
        run.id, RunStatus.ERRORED, error_class="LLMProviderError", error_message="boom"
    )
    (failed,) = await store.list_runs([dataset.id])
    assert failed.status is RunStatus.ERRORED
    assert (failed.error_class, failed.error_message) == ("LLMProviderError", "boom")
    assert failed.graph_writing is False


async def test_list_runs_is_newest_first_and_filtered(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    started = [await store.start_run(dataset.id, f"p{i}") for i in range(3)]
    other = await store.start_run(other_dataset.id, "other")
    assert [r.id for r in await store.list_runs([dataset.id])] == [r.id for r in started[::-1]]
    both = await store.list_runs([dataset.id, other_dataset.id])
    assert [r.id for r in both] == [other.id, *(r.id for r in started[::-1])]
    assert await store.list_runs([]) == []
    assert await store.list_runs([uuid4()]) == []


async def test_reap_leaves_runs_of_live_processes(store: Store, dataset: Dataset) -> None:
    run = await store.start_run(dataset.id, "remember")
    assert await store.reap_dead_runs() == 0
    (still,) = await store.list_runs([dataset.id])
    assert still.id == run.id and still.status is RunStatus.STARTED


async def test_finish_run_rejects_started(store: Store, dataset: Dataset) -> None:
    run = await store.start_run(dataset.id, "remember")
    with pytest.raises(ValueError):
        await store.finish_run(run.id, RunStatus.STARTED)
