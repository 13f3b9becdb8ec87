"""``cognee.memify_pipelines.consolidate_entity_descriptions``: refused, naming what to use."""

from __future__ import annotations

from typing import Any

from engramdb.errors import FeatureNotAvailableError

__all__ = ["consolidate_entity_descriptions_pipeline"]


async def consolidate_entity_descriptions_pipeline(
    user: Any = None, dataset: str = "main_dataset", run_in_background: bool = False, **_: Any
) -> Any:
    """Not available: engramdb keeps each entity's descriptions as extracted, with the
    evidence of every fact, and does not rewrite them with an LLM."""
    raise FeatureNotAvailableError(
        "consolidate_entity_descriptions_pipeline() is not available on engramdb: an entity "
        "keeps the descriptions extracted from each document, with their evidence; recall "
        "with SearchType.GRAPH_SUMMARY_COMPLETION for a summarised view "
        "(see docs/migrating-from-cognee.md)"
    )
