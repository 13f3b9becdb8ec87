"""Consolidating a dataset's entities after ingestion (cognee's consolidation memify pipelines).

* :func:`consolidate_entities` merges near-duplicate entities ("NYC", "New York City") into
  one: the clusters are found from name embeddings and names
  (:mod:`engramdb.improvement.entity_clusters`), and each merge is
  :meth:`engramdb.storage.base.Store.merge_entities` -- edges re-pointed, provenance handed over
  (so forget still deletes exactly what only a forgotten document supported), the duplicate's
  vectors and full-text rows deleted, all in one transaction.
* :func:`consolidate_entity_descriptions` rewrites every entity's description from its
  neighbourhood (:mod:`engramdb.improvement.descriptions`): with the configured LLM, as cognee
  does; offline, the description followed by the entity's relations. The entities' vectors are
  re-embedded and every rewrite is written in one transaction.

Both work on an existing dataset the user may write, hold the dataset's lock (as remember,
improve and forget do) and record a pipeline run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Literal
from uuid import UUID

from engramdb.access.permissions import check
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.graph_schema import ENTITY_COLLECTION
from engramdb.improvement import descriptions as desc
from engramdb.improvement.entity_clusters import (
    ClusterOptions,
    entity_kind,
    find_clusters,
    merged_properties,
    order_cluster,
)
from engramdb.ingest.graph_builder import entity_text
from engramdb.models.consolidate import DescriptionsResult, EntityRef, MergeCluster, MergeResult
from engramdb.models.records import Dataset, Edge, Node, NodeType, RunStatus, User
from engramdb.storage.base import EntityMerge, NodeRewrite, Store, VectorRow
from engramdb.storage.lending import dataset_lock

__all__ = ["consolidate_entities", "consolidate_entity_descriptions"]

logger = logging.getLogger(__name__)

#: Edges read per entity (each direction) to count its degree and describe its neighbourhood.
_EDGES_PER_ENTITY = 1000
#: LLM calls in flight at once while rewriting descriptions.
_CONCURRENCY = 4


async def _dataset(store: Store, user: User, ref: str | UUID) -> Dataset:
    """An existing dataset the user may write (a name is the user's own dataset)."""
    if isinstance(ref, UUID):
        return await check(user, ref, "write", store=store)
    found = await store.find_dataset(user.id, ref)
    if found is None:
        raise EngramValidationError(
            f"User (id: {user.id}) has no write access to dataset: {ref} (no dataset of that "
            "name; remember() some data into it first)"
        )
    return found


@asynccontextmanager
async def _locked_run(engine: Engine, dataset: Dataset, pipeline: str) -> AsyncIterator[None]:
    store = engine.store
    timeout = engine.settings.engramdb_lock_timeout
    async with store.lock(dataset_lock(dataset.id), timeout=timeout):
        run = await store.start_run(dataset.id, pipeline)
        try:
            yield
        except BaseException as exc:
            await store.fail_run(run.id, exc)
            raise
        await store.finish_run(run.id, RunStatus.COMPLETED)


async def _entities(store: Store, dataset: Dataset) -> list[Node]:
    total = await store.count_nodes([dataset.id], type=NodeType.ENTITY.value)
    if total == 0:
        return []
    nodes = await store.list_nodes([dataset.id], type=NodeType.ENTITY.value, limit=total)
    return [n for n in nodes if n.name and not n.properties.get("internal")]


async def _edges(store: Store, node_ids: Sequence[UUID]) -> list[Edge]:
    edges: list[Edge] = []
    directions: tuple[Literal["out", "in"], ...] = ("out", "in")
    for direction in directions:
        edges += await store.incident_edges(
            node_ids, direction=direction, limit_per_node=_EDGES_PER_ENTITY, provenance=False
        )
    return edges


async def consolidate_entities(
    engine: Engine,
    *,
    dataset: str | UUID,
    user: User | None,
    options: ClusterOptions,
    protect_node_types: Sequence[str] = (),
    dry_run: bool = False,
) -> MergeResult:
    """Merge the dataset's near-duplicate entities (see the module docstring); with
    ``dry_run`` the plan is computed and logged and nothing is written."""
    who = await engine.resolve_user(user)
    store = engine.store
    target = await _dataset(store, who, dataset)
    protected = {t.lower() for t in protect_node_types}
    async with _locked_run(engine, target, "consolidate_entities"):
        entities = [
            n
            for n in await _entities(store, target)
            if entity_kind(n) not in protected and NodeType.ENTITY.value.lower() not in protected
        ]
        clusters: list[list[Node]] = []
        if len(entities) > 1:
            await engine.bind_embedding(target)
            vectors = await engine.embedder.embed([n.name for n in entities])
            clusters = find_clusters(entities, vectors, options)
        degree: dict[object, int] = {}
        if clusters:
            for edge in await _edges(store, [n.id for c in clusters for n in c]):
                for end in (edge.source_id, edge.target_id):
                    degree[end] = degree.get(end, 0) + 1
        plans = [order_cluster(c, degree) for c in clusters]
        report = [
            MergeCluster(
                survivor=EntityRef(id=p[0].id, name=p[0].name),
                merged_from=[EntityRef(id=n.id, name=n.name) for n in p[1:]],
            )
            for p in plans
        ]
        logger.info(
            "consolidate_entities on dataset %s: %d cluster(s) among %d entities (dry_run=%s)",
            target.id,
            len(plans),
            len(entities),
            dry_run,
        )
        for cluster in report:
            logger.info(
                "merge plan: %s <- %s",
                cluster.survivor.name,
                ", ".join(m.name for m in cluster.merged_from),
            )
        result = MergeResult(
            dataset_id=target.id,
            dry_run=dry_run,
            entities_considered=len(entities),
            clusters=report,
        )
        if dry_run or not plans:
            return result
        merges = []
        for survivor, *absorbed in plans:
            description, properties = merged_properties(survivor, absorbed)
            text = entity_text(survivor.name, description)
            rewrite = NodeRewrite(survivor.id, text, properties)
            merges.append(EntityMerge(rewrite, [n.id for n in absorbed]))
        done = await store.merge_entities(target.id, merges)
    return result.model_copy(
        update={
            "entities_merged": done.entities_merged,
            "edges_moved": done.edges_moved,
            "edges_dropped": done.edges_dropped,
        }
    )


async def consolidate_entity_descriptions(
    engine: Engine, *, dataset: str | UUID, user: User | None
) -> DescriptionsResult:
    """Rewrite every entity's description of the dataset from its neighbourhood (see the
    module docstring); returns how many were rewritten."""
    who = await engine.resolve_user(user)
    store = engine.store
    target = await _dataset(store, who, dataset)
    llm = engine.llm
    async with _locked_run(engine, target, "consolidate_entity_descriptions"):
        entities = await _entities(store, target)
        edges = await _edges(store, [n.id for n in entities]) if entities else []
        ends = {e.source_id for e in edges} | {e.target_id for e in edges}
        nodes = {n.id: n for n in await store.get_nodes(sorted(ends, key=str), provenance=False)}
        by_entity: dict[UUID, list[Edge]] = {n.id: [] for n in entities}
        for edge in edges:
            for end in (edge.source_id, edge.target_id):
                if end in by_entity:
                    by_entity[end].append(edge)
        gate = asyncio.Semaphore(_CONCURRENCY)

        async def rewrite(entity: Node) -> str | None:
            around = by_entity[entity.id]
            if llm is None:
                return desc.offline_description(entity, around, nodes)
            async with gate:
                answer, _ = await llm.structured(
                    [
                        {"role": "system", "content": desc.SYSTEM_PROMPT},
                        {"role": "user", "content": desc.neighbourhood_text(entity, around, nodes)},
                    ],
                    desc.ConsolidatedDescription,
                    cache=False,
                )
            return answer.description.strip() or None

        found = await asyncio.gather(*(rewrite(n) for n in entities))
        changed = [(n, d) for n, d in zip(entities, found, strict=True) if d is not None]
        if changed:
            await engine.bind_embedding(target)
            vectors = await engine.embedder.embed([n.name for n, _ in changed])
            rewrites = [
                NodeRewrite(
                    n.id,
                    entity_text(n.name, d),
                    {**n.properties, "description": d},
                    [VectorRow(n.id, ENTITY_COLLECTION, vectors[i])],
                )
                for i, (n, d) in enumerate(changed)
            ]
            await store.rewrite_nodes(target.id, rewrites)
    return DescriptionsResult(
        dataset_id=target.id,
        entities=len(entities),
        rewritten=len(changed),
        method="offline" if llm is None else "llm",
    )
