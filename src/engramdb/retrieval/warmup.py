"""The warming-up marker: how far the target datasets got through ingestion.

One relational probe over the pipeline runs of the datasets (never a graph or vector search)
classifies them:

========================  ==============================================  ==================
state                     meaning                                         marker
========================  ==============================================  ==================
warm                      a graph-writing run completed, or one is still  none
                          in flight
never built               no pipeline run was ever recorded               memory_warming_up
build failed              no graph-writing run completed and the last     build_failed
                          graph-writing attempt errored
========================  ==============================================  ==================

A dataset whose inputs were only staged (``add()`` without ``cognify()``) reads as warm: staging
says nothing about the graph.

Datasets that already hold at least ``RECALL_WARMUP_THRESHOLD`` documents read as warm whatever
their runs say (engramdb writes each document atomically, so an errored run can leave complete,
searchable documents behind). Only warm verdicts are cached (per process), so the first recall
after a successful rebuild sees the truth. The check fails open: any probe error means "search
normally".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from uuid import UUID

from engramdb.errors import scrub_secrets
from engramdb.models.records import NodeType, RunStatus
from engramdb.models.results import ResponseMarkerEntry
from engramdb.storage.base import Store

__all__ = ["WarmupCache", "check_warmup"]

logger = logging.getLogger(__name__)

WARMING_UP_TEXT = (
    "Memory is still warming up: no knowledge graph data exists yet for the requested datasets."
)


class WarmupCache:
    """Dataset-set keys whose verdict was warm. Thread-safe; never caches a cold verdict."""

    def __init__(self) -> None:
        self._warm: set[frozenset[UUID]] = set()
        self._lock = threading.Lock()

    def is_warm(self, key: frozenset[UUID]) -> bool:
        with self._lock:
            return key in self._warm

    def mark_warm(self, key: frozenset[UUID]) -> None:
        with self._lock:
            self._warm.add(key)

    def forget(self) -> None:
        with self._lock:
            self._warm.clear()


async def check_warmup(
    store: Store,
    dataset_ids: Sequence[UUID],
    *,
    threshold: int,
    cache: WarmupCache,
) -> ResponseMarkerEntry | None:
    """A marker for cold datasets, or None to search normally (warm, or the probe failed)."""
    key = frozenset(dataset_ids)
    if not key or cache.is_warm(key):
        return None
    try:
        runs = [r for r in await store.list_runs(list(key)) if r.graph_writing]
        count = await store.count_nodes(list(key), type=NodeType.DOCUMENT)
    except Exception:  # fail-open by contract: the marker must never block a real answer
        logger.warning("warm-up probe failed; searching normally", exc_info=True)
        return None
    building = any(r.status in (RunStatus.COMPLETED, RunStatus.STARTED) for r in runs)
    if not runs and not building:
        try:  # added but not built yet (cognee's add() before cognify()): fail safe to warm
            building = await store.count_staged(list(key)) > 0
        except Exception:  # fail-open by contract
            logger.warning("warm-up probe failed; searching normally", exc_info=True)
            return None
    if building or (count >= threshold and count > 0):
        cache.mark_warm(key)
        return None
    if not runs:
        return ResponseMarkerEntry(
            status="memory_warming_up",
            text=WARMING_UP_TEXT,
            datapoint_count=count,
            threshold=threshold,
        )
    last = runs[0]  # newest first; every run here errored
    error_class = last.error_class or "Error"
    message = scrub_secrets(last.error_message or "")
    return ResponseMarkerEntry(
        status="build_failed",
        text=(
            "Memory build failed: the last ingestion for the requested datasets ended in an "
            f"error ({error_class}: {message}). Fix the cause and re-run remember() or cognify()."
        ),
        datapoint_count=count,
        threshold=threshold,
        error_class=error_class,
        error_message=message,
    )
