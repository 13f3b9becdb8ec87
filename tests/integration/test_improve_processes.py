"""improve() in real processes: two at once on one dataset and session, and SIGKILL mid-run.

Whatever happens, no rating is spent twice, no turn is counted twice, no Q&A is lost, the
integrity invariants hold and the next improve completes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from uuid import UUID

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.personalization.lookup import load_preferences
from engramdb.settings import config

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

N_QA = 400
#: Only the first three turns are rated (5 stars): a rating spent twice would show.
RATED = 3
FACTS = "Ada Lovelace wrote the first program. Charles Babbage designed the Analytical Engine."


def _spawn(data_dir: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.improve_worker", str(data_dir), "main", "chat"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


async def _prepare() -> str:
    """A dataset and a session of N_QA turns that all used one chunk, the first RATED rated."""
    config.set("chunk_max_tokens", 64)
    config.set("personalization_enabled", True)
    await engramdb.remember(FACTS, dataset_name="main", self_improvement=False)
    store = get_engine().store
    owner = await get_engine().resolve_user(None)
    dataset = await store.find_dataset(owner.id, "main")
    assert dataset is not None
    (chunk,) = await store.list_nodes([dataset.id], type="Chunk")
    for i in range(N_QA):
        await engramdb.session.add_qa(
            "chat",
            f"Question number {i} about the engine?",
            f"Answer {i}: Babbage designed it, Lovelace programmed it, in step {i}.",
            feedback_score=5 if i < RATED else None,
            used_graph_element_ids={"node_ids": [str(chunk.id)]},
        )
    return str(chunk.id)


async def _check_exactly_once(chunk_id: str) -> None:
    store = get_engine().store
    owner = await get_engine().resolve_user(None)
    dataset = await store.find_dataset(owner.id, "main")
    assert dataset is not None
    assert (await store.check_integrity()).ok
    # no lost Q&A, none stored twice: every turn became exactly one document
    names = [d.name for d in await store.list_data(dataset.id)]
    assert len(names) == N_QA + 1
    # each rating spent exactly once by feedback weights: 0.5 -> 0.55 -> 0.595 -> 0.6355
    chunks = await store.list_nodes([dataset.id], type="Chunk")
    (chunk,) = [n for n in chunks if str(n.id) == chunk_id]
    assert chunk.feedback_weight == pytest.approx(0.6355)
    # ... and by preferences, with each turn counted once (no decay: all touched each run)
    view = await load_preferences(store, config.settings, owner.id, [dataset.id])
    assert view.weights[UUID(chunk_id)] == pytest.approx(0.8285)  # 0.5 -> 0.65 -> 0.755
    graph = await store.list_derived(dataset.id, f"preferences:{owner.id}")
    (pref,) = graph.nodes
    assert pref.properties["turn"] == N_QA


async def test_two_processes_improve_one_dataset_and_session(isolated_config: Path) -> None:
    chunk_id = await _prepare()
    a, b = _spawn(isolated_config), _spawn(isolated_config)
    out_a, err_a = a.communicate(timeout=300)
    out_b, err_b = b.communicate(timeout=300)
    assert a.returncode == 0, err_a
    assert b.returncode == 0, err_b
    summaries = [line for line in (out_a + out_b).splitlines() if line.startswith("DONE")]
    assert len(summaries) == 2
    # one of them bridged everything, the other queued behind it and found nothing new
    assert sum("persist_session_qa=completed" in s for s in summaries) == 1
    assert sum("persist_session_qa=already_completed" in s for s in summaries) == 1
    await _check_exactly_once(chunk_id)


@pytest.mark.parametrize("delay", [0.2, 0.6, 1.0, 1.6, 2.4])
async def test_sigkill_mid_improve_then_the_next_improve_completes(
    isolated_config: Path, delay: float
) -> None:
    chunk_id = await _prepare()
    proc = _spawn(isolated_config)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    store = get_engine().store
    assert (await store.check_integrity()).ok
    owner = await get_engine().resolve_user(None)
    dataset = await store.find_dataset(owner.id, "main")
    assert dataset is not None
    print(f"delay {delay}: {len(await store.list_data(dataset.id)) - 1} of {N_QA} Q&A bridged")

    result = await engramdb.improve("main", session_ids=["chat"])
    assert result.status == "completed", result.stage_summary()
    await _check_exactly_once(chunk_id)
