"""``cognee.memify_pipelines.consolidate_entity_descriptions``: rewrite entity descriptions."""

from __future__ import annotations

from uuid import UUID

from engramdb.models.consolidate import DescriptionsResult
from engramdb.models.records import User

__all__ = ["consolidate_entity_descriptions_pipeline"]


async def consolidate_entity_descriptions_pipeline(
    user: User | None = None,
    dataset: str | UUID = "main_dataset",
    run_in_background: bool = False,
) -> DescriptionsResult:
    """Rewrite the description of every entity of ``dataset`` from its neighbourhood (its
    description, the entities and type it is connected to, the passages that mention it): with
    the configured LLM, a brief rewording, as cognee does; without one, the description
    followed by the entity's relations. The rewritten entities are re-embedded and written in
    one transaction. cognee's pipeline takes no arguments and works on the default dataset;
    ``user`` and ``dataset`` choose another (``run_in_background`` is accepted and changes
    nothing: engramdb waits for the rewrite)."""
    from engramdb.api.consolidate import consolidate_entity_descriptions
    from engramdb.engine import get_engine

    return await consolidate_entity_descriptions(get_engine(), dataset=dataset, user=user)
