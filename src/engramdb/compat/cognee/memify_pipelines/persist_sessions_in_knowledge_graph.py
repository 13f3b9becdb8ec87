"""``cognee.memify_pipelines.persist_sessions_in_knowledge_graph``: sessions into the graph."""

from __future__ import annotations

from engramdb.compat.cognee.memify_pipelines._stage import run_stage
from engramdb.models.improve import ImproveResult
from engramdb.models.records import User

__all__ = ["persist_sessions_in_knowledge_graph_pipeline"]


async def persist_sessions_in_knowledge_graph_pipeline(
    user: User,
    session_ids: list[str] | None = None,
    dataset: str = "main_dataset",
    run_in_background: bool = False,
) -> ImproveResult:
    """The ``persist_session_qa`` stage of improve() alone: the Q&A of ``session_ids`` become
    documents of ``dataset`` (node set ``session_qa``), searchable like any other. As in
    cognee, ``session_ids=None`` persists nothing."""
    return await run_stage(
        "persist_session_qa",
        user=user,
        session_ids=session_ids,
        dataset=dataset,
        run_in_background=run_in_background,
    )
