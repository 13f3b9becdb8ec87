"""``cognee.memify_pipelines.consolidate_entities``: refused, naming what engramdb does instead."""

from __future__ import annotations

from typing import Any

from engramdb.errors import FeatureNotAvailableError

__all__ = ["consolidate_entities_pipeline"]


async def consolidate_entities_pipeline(
    similarity_threshold: float = 0.85,
    dry_run: bool = False,
    protect_node_types: list[str] | None = None,
    name_match: bool = True,
    top_k: int = 10,
    allow_cross_type: bool = False,
    user: Any = None,
    dataset: str = "main_dataset",
    run_in_background: bool = False,
) -> Any:
    """Not available: engramdb resolves entities when it ingests (one node per normalised name
    and alias across a dataset's documents), and has no similarity-based merge of the nodes
    that remain distinct."""
    raise FeatureNotAvailableError(
        "consolidate_entities_pipeline() is not available on engramdb: entities are merged by "
        "normalised name when documents are ingested (one node per name across the dataset); "
        "read the graph with get_graph() to see them (see docs/migrating-from-cognee.md)"
    )
