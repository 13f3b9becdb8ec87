"""``cognee.memify_pipelines.persist_sessions_in_knowledge_graph``."""

from __future__ import annotations

from engramdb.models.improve import ImproveResult
from engramdb.models.records import User

__all__ = ["persist_sessions_in_knowledge_graph_pipeline"]


async def persist_sessions_in_knowledge_graph_pipeline(
    user: User,
    session_ids: list[str] | None = None,
    dataset: str = "main_dataset",
    run_in_background: bool = False,
) -> ImproveResult:
    """Bridge the named sessions into ``dataset``'s graph: ``improve(dataset,
    session_ids=session_ids, user=user)``, whose ``persist_session_qa`` stage writes each new
    Q&A turn as a document (tagged ``session_qa``) and whose other session stages spend the
    sessions' ratings and guidance. ``session_ids=None`` persists nothing, as cognee's
    (improve then runs its dataset stages only). Returns the ImproveResult."""
    import engramdb

    result: ImproveResult = await engramdb.improve(
        dataset, session_ids=session_ids, user=user, run_in_background=run_in_background
    )
    return result
