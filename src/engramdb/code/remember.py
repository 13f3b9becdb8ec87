"""``remember()`` of source code: index each repository and report it as remember does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from engramdb.code.discover import CODE_SUFFIXES, CodeRoot
from engramdb.code.index import CodeIndexReport, index_code
from engramdb.models.records import Dataset, RunStatus
from engramdb.models.results import RememberItem, RememberResult, SkippedFile
from engramdb.storage.base import Store

__all__ = ["merge_results", "remember_code", "without_code_skips"]


async def remember_code(
    store: Store,
    dataset: Dataset,
    roots: Sequence[CodeRoot],
    *,
    weight: float,
    metadata: dict[str, Any],
    node_set: list[str],
    lock_timeout: float | None,
    record_run: bool = False,
    run_id: UUID | None = None,
) -> RememberResult:
    """Index every root into ``dataset``; one RememberItem per file (``skipped`` with reason
    ``already_present`` for a file whose content is already indexed). ``record_run``: record a
    "remember" pipeline run (with the id ``run_id`` when given) and report it as
    ``RememberResult.run_id``, as a remember() of documents does."""
    if not record_run:
        return await _index_roots(store, dataset, roots, weight, metadata, node_set, lock_timeout)
    record = await store.start_run(dataset.id, "remember", run_id=run_id)
    try:
        result = await _index_roots(store, dataset, roots, weight, metadata, node_set, lock_timeout)
    except BaseException as exc:
        await store.fail_run(record.id, exc)
        raise
    await store.finish_run(record.id, RunStatus.COMPLETED, counts=result.counts)
    return result.model_copy(update={"run_id": record.id})


async def _index_roots(
    store: Store,
    dataset: Dataset,
    roots: Sequence[CodeRoot],
    weight: float,
    metadata: dict[str, Any],
    node_set: list[str],
    lock_timeout: float | None,
) -> RememberResult:
    reports: list[CodeIndexReport] = []
    for root in roots:
        if root.files:
            reports.append(
                await index_code(
                    store,
                    dataset,
                    root,
                    weight=weight,
                    metadata=metadata,
                    node_set=node_set,
                    lock_timeout=lock_timeout,
                )
            )
    seconds = round(sum(r.seconds for r in reports), 4)
    items = [
        RememberItem(
            data_id=data_id,
            name=name,
            status="ingested" if status == "ingested" else "skipped",
            reason=None if status == "ingested" else "already_present",
        )
        for report in reports
        for data_id, name, status in report.data_ids
    ]
    counts = {
        "documents": sum(len(r.files_parsed) for r in reports),
        "skipped": sum(r.files_unchanged for r in reports),
        "nodes": sum(r.nodes_written for r in reports),
        "edges": sum(r.edges_written for r in reports),
        "code_files_parsed": sum(len(r.files_parsed) for r in reports),
        "code_files_removed": sum(len(r.files_removed) for r in reports),
        "code_symbols_added": sum(len(r.added) for r in reports),
        "code_symbols_updated": sum(len(r.updated) for r in reports),
        "code_symbols_removed": sum(len(r.removed) for r in reports),
    }
    return RememberResult(
        status="completed",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        data_ids=[i.data_id for i in items],
        items=items,
        skipped=[
            *(s for root in roots for s in root.skipped),
            *(s for report in reports for s in report.skipped),
        ],
        counts=counts,
        timings={"code": seconds, "total": seconds},
    )


def without_code_skips(skipped: Sequence[SkippedFile]) -> list[SkippedFile]:
    """The normal loader's skips, less the source files the code graph took."""
    return [s for s in skipped if not s.path.lower().endswith(tuple(CODE_SUFFIXES))]


def merge_results(text: RememberResult | None, code: RememberResult) -> RememberResult:
    """One result for a remember() that ingested documents and indexed code."""
    if text is None:
        return code
    counts = dict(text.counts)
    for key, value in code.counts.items():
        counts[key] = counts.get(key, 0) + value
    return text.model_copy(
        update={
            "data_ids": [*text.data_ids, *code.data_ids],
            "items": [*text.items, *code.items],
            "skipped": [*without_code_skips(text.skipped), *code.skipped],
            "counts": counts,
            "timings": {
                **text.timings,
                "code": code.timings.get("code", 0.0),
                "total": round(text.timings.get("total", 0.0) + code.timings.get("total", 0.0), 4),
            },
        }
    )
