"""``cognee.memify_pipelines`` over engramdb, on the default engine, in-process only: the
session pipelines are each one stage of ``improve()`` run alone (see docs/improve.md); the
consolidation pipelines are :mod:`engramdb.api.consolidate`."""

from __future__ import annotations

from engramdb.compat.cognee.memify_pipelines.apply_feedback_weights import (
    apply_feedback_weights_pipeline,
)
from engramdb.compat.cognee.memify_pipelines.consolidate_entities import (
    consolidate_entities_pipeline,
)
from engramdb.compat.cognee.memify_pipelines.consolidate_entity_descriptions import (
    consolidate_entity_descriptions_pipeline,
)
from engramdb.compat.cognee.memify_pipelines.persist_sessions_in_knowledge_graph import (
    persist_sessions_in_knowledge_graph_pipeline,
)

__all__ = [
    "apply_feedback_weights_pipeline",
    "consolidate_entities_pipeline",
    "consolidate_entity_descriptions_pipeline",
    "persist_sessions_in_knowledge_graph_pipeline",
]
