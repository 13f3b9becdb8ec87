"""Rules on which the backends once diverged, pinned on every backend.

Each of these behaved differently on SQLite and PostgreSQL before the rules moved into the one
backend-agnostic layer (:mod:`engramdb.storage.rules`, :class:`engramdb.storage.core.StoreCore`):

* a NaN / infinite query vector returned hits scored ``nan`` on SQLite and raised on PostgreSQL;
* an empty (or two-dimensional) query raised EmbeddingMismatchError on SQLite and
  EngramValidationError on PostgreSQL, and a query of another dimension named it on one only;
* two marks of one entry in one call were both reported new on SQLite (one at each revision)
  and collapsed to the first one given on PostgreSQL;
* an unknown run status surfaced as a bare ValueError.

Argument checks that already agreed (limits of zero or less, empty inputs) are pinned here too,
now that one layer makes them for both. Against commit 4b5cf70 the vector, mark and run tests
fail on at least one backend.
"""

from __future__ import annotations

from uuid import UUID

import numpy as np
import pytest

from engramdb.errors import EmbeddingMismatchError, EngramError, EngramValidationError
from engramdb.models.records import Dataset, RunStatus, User
from engramdb.models.sessions import EntryMark
from engramdb.storage.base import Store
from engramdb.storage.capabilities import Capability, StatementTimeoutError

from ._helpers import DIM, make_doc, unit_rows
from .test_sessions import qa


async def _chunks(store: Store, dataset: Dataset, n: int = 4) -> list[UUID]:
    doc = make_doc(dataset.id, [f"chunk {i}" for i in range(n)], rng=np.random.default_rng(1))
    await store.write_document(doc.write)
    return [c.id for c in doc.chunks]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
async def test_a_nan_or_infinite_query_vector_is_refused(
    store: Store, dataset: Dataset, bad: float
) -> None:
    await _chunks(store, dataset)
    query = unit_rows(np.random.default_rng(2), 1)[0].copy()
    query[3] = bad
    for datasets in ([dataset.id], []):  # checked before anything else, even with no datasets
        with pytest.raises(EngramValidationError, match="NaN or infinite") as info:
            await store.vector_search("chunks", query, datasets, 5)
        assert not isinstance(info.value, EmbeddingMismatchError)
        assert "embed the query again" in str(info.value)  # the message names the fix


@pytest.mark.parametrize("shape", [(0,), (2, DIM)])
async def test_an_empty_or_multi_row_query_vector_is_refused(
    store: Store, dataset: Dataset, shape: tuple[int, ...]
) -> None:
    await _chunks(store, dataset)
    query = np.ones(shape, dtype=np.float32)
    with pytest.raises(EngramValidationError, match="one non-empty row") as info:
        await store.vector_search("chunks", query, [dataset.id], 5)
    assert not isinstance(info.value, EmbeddingMismatchError)


async def test_a_query_of_another_dimension_is_an_embedding_mismatch(
    store: Store, dataset: Dataset
) -> None:
    await _chunks(store, dataset)
    query = unit_rows(np.random.default_rng(3), 1, dim=DIM + 3)[0]
    with pytest.raises(EmbeddingMismatchError, match=f"{DIM + 3}-dimensional"):
        await store.vector_search("chunks", query, [dataset.id], 5)


async def test_limits_of_zero_or_less_return_nothing(store: Store, dataset: Dataset) -> None:
    ids = await _chunks(store, dataset)
    assert len(await store.list_nodes([dataset.id], limit=100)) == len(ids)
    for limit in (0, -1):
        assert await store.list_nodes([dataset.id], limit=limit) == []
        assert await store.list_edges([dataset.id], limit=limit) == []
        empty = await store.neighbourhood(ids[:1], limit=limit)
        assert (empty.nodes, empty.edges) == ([], [])
        assert await store.incident_edges(ids, direction="out", limit_per_node=limit) == []
    assert await store.incident_edges(ids, direction="out", relations=[]) == []
    assert await store.count_nodes([]) == 0 and await store.list_runs([]) == []


async def test_two_marks_of_one_entry_in_one_call_are_one_mark_at_the_higher_revision(
    store: Store, user: User
) -> None:
    entry = await store.add_qa_entry(qa(user))
    first, later = EntryMark("qa", entry.id, rating_rev=1), EntryMark("qa", entry.id, 2)
    other = await store.add_qa_entry(qa(user))
    plain = EntryMark("qa", other.id)
    new = await store.mark_session_entries("c", [first, plain, later])
    assert new == [EntryMark("qa", entry.id, rating_rev=2), plain]  # first place, highest rev
    assert await store.mark_session_entries("c", [first]) == []  # revision 2 is recorded
    assert await store.mark_session_entries("c", [EntryMark("qa", entry.id, 3)]) != []


async def test_marks_of_an_unknown_kind_are_refused_before_anything_is_recorded(
    store: Store, user: User
) -> None:
    entry = await store.add_qa_entry(qa(user))
    good = EntryMark("qa", entry.id)
    with pytest.raises(EngramValidationError, match="unknown session entry kind"):
        await store.mark_session_entries("c", [good, EntryMark("note", entry.id)])  # type: ignore[arg-type]
    assert await store.mark_session_entries("c", [good]) == [good]


async def test_run_status_and_feedback_alpha_are_checked(store: Store, dataset: Dataset) -> None:
    run = await store.start_run(dataset.id, "remember")
    for status in ("started", "finished-ish"):
        with pytest.raises(EngramValidationError, match="'completed' or 'errored'"):
            await store.finish_run(run.id, status)  # type: ignore[arg-type]
    await store.finish_run(run.id, RunStatus.COMPLETED, counts={"chunks": 2})
    (stored,) = await store.list_runs([dataset.id, dataset.id])  # duplicates asked once
    assert stored.status is RunStatus.COMPLETED and stored.counts == {"chunks": 2}
    with pytest.raises(EngramValidationError, match="alpha"):
        from engramdb.storage.base import FeedbackUpdate

        await store.apply_feedback_weights(
            dataset.id, "c", [FeedbackUpdate(EntryMark("qa", run.id), 1.0)], alpha=0.0
        )


def test_every_backend_declares_cypher(store: Store) -> None:
    assert store.supports(Capability.CYPHER)
    assert store.dialect.name in ("sqlite", "postgres")
    assert not store.supports(Capability("approximate_vectors")) or store.dialect.name != "sqlite"


async def test_read_only_sql_reads_one_snapshot_and_cannot_write(
    store: Store, dataset: Dataset
) -> None:
    ids = await _chunks(store, dataset)
    p = store.dialect.param
    rows = await store.query_sql(
        f"SELECT count(*) FROM nodes WHERE type = {p}", ["Chunk"], timeout=5.0
    )
    assert rows == [(len(ids),)]
    for statement in ("DELETE FROM nodes", "UPDATE nodes SET name = 'x'"):
        with pytest.raises(EngramError):
            await store.query_sql(statement, [], timeout=5.0)
    assert await store.count_nodes([dataset.id]) == len(ids)
    # a statement past its budget is stopped, and the store keeps working
    slow = (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000000) "
        "SELECT count(*) FROM r"
    )
    with pytest.raises(StatementTimeoutError, match="longer than"):
        await store.query_sql(slow, [], timeout=0.05)
    assert await store.query_sql("SELECT 1", [], timeout=5.0) == [(1,)]
