"""``cognee.memify_pipelines.consolidate_entities``: merge near-duplicate entities into one."""

from __future__ import annotations

from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.improvement.entity_clusters import ClusterOptions
from engramdb.models.consolidate import MergeResult
from engramdb.models.records import User

__all__ = ["consolidate_entities_pipeline"]


async def consolidate_entities_pipeline(
    similarity_threshold: float = 0.85,
    dry_run: bool = False,
    protect_node_types: list[str] | None = None,
    name_match: bool = True,
    top_k: int = 10,
    allow_cross_type: bool = False,
    user: User | None = None,
    dataset: str | UUID = "main_dataset",
    run_in_background: bool = False,
) -> MergeResult:
    """Merge the dataset's near-duplicate entities, as cognee's pipeline does: entities whose
    name embeddings are at least ``similarity_threshold`` cosine-similar (each compared with
    its ``top_k`` nearest), or -- with ``name_match`` -- whose names are equal ignoring case and
    punctuation, of one entity type unless ``allow_cross_type``, and not of a type in
    ``protect_node_types``. The most connected member of each cluster survives; the others'
    edges move onto it and they are deleted, in one transaction, with their provenance kept so
    that forget() still deletes exactly what only a forgotten document supported. ``dry_run``
    logs the plan and changes nothing. Returns the plan and what was merged. engramdb runs
    in-process and waits for the merge (``run_in_background`` is accepted and changes
    nothing: the merge is one transaction)."""
    from engramdb.api.consolidate import consolidate_entities
    from engramdb.engine import get_engine

    threshold = similarity_threshold
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise EngramValidationError("similarity_threshold must be in the range (0, 1]")
    if not 0 < threshold <= 1:
        raise EngramValidationError("similarity_threshold must be in the range (0, 1]")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k <= 0:
        raise EngramValidationError("top_k must be a positive integer")
    if protect_node_types is not None and (
        not isinstance(protect_node_types, list)
        or not all(isinstance(t, str) and t.strip() for t in protect_node_types)
    ):
        raise EngramValidationError("protect_node_types must be a list of non-empty strings")
    options = ClusterOptions(
        similarity_threshold=float(threshold),
        name_match=bool(name_match),
        top_k=top_k,
        allow_cross_type=bool(allow_cross_type),
    )
    return await consolidate_entities(
        get_engine(),
        dataset=dataset,
        user=user,
        options=options,
        protect_node_types=protect_node_types or (),
        dry_run=bool(dry_run),
    )
