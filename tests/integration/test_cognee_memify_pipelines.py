"""cognee's memify pipelines (``cognee.memify_pipelines.*``) as cognee's example programs call
them: each runs one improve stage alone."""

from __future__ import annotations

import pytest

import engramdb
from engramdb import SearchType
from engramdb.compat.cognee.memify_pipelines import (
    apply_feedback_weights_pipeline,
    consolidate_entities_pipeline,
    consolidate_entity_descriptions_pipeline,
    persist_sessions_in_knowledge_graph_pipeline,
)
from engramdb.compat.cognee.modules.users.methods import get_default_user
from engramdb.engine import get_engine
from engramdb.errors import FeatureNotAvailableError
from engramdb.settings import IMPROVE_STAGES

FACTS = "Ada Lovelace wrote the first program for the Analytical Engine."


async def _rated_turn(session: str, score: int) -> None:
    await engramdb.recall("Who wrote the first program?", session_id=session)
    (qa,) = await engramdb.session.get_session(session)
    await engramdb.session.add_feedback(session, qa.qa_id, feedback_score=score)


async def test_apply_feedback_weights_runs_that_stage_alone() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await _rated_turn("chat", 5)
    user = await get_default_user()
    (record,) = await get_engine().store.list_qa_entries(user.id, session_ids=["chat"])

    result = await apply_feedback_weights_pipeline(user=user, session_ids=["chat"], alpha=0.9)

    reasons = {s.stage: (s.status, s.reason) for s in result.stages}
    assert reasons["feedback_weights"] == ("completed", None)
    for name in IMPROVE_STAGES:
        if name != "feedback_weights":
            assert reasons[name] == ("skipped", "not_requested")
    nodes = await get_engine().store.get_nodes(record.used_node_ids)
    assert nodes and all(n.feedback_weight == pytest.approx(0.95) for n in nodes)  # 0.5+0.9*0.5
    # the session was not turned into a document
    found = await engramdb.search("first program", query_type=SearchType.CHUNKS, top_k=10)
    assert [hit["text"] for hit in found] == [FACTS]


async def test_persist_sessions_makes_the_session_searchable() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.recall("Who wrote the first program?", session_id="talk")
    user = await get_default_user()

    nothing = await persist_sessions_in_knowledge_graph_pipeline(user=user)  # cognee: None = none
    assert nothing.stage("persist_session_qa").reason == "no_session_ids"  # type: ignore[union-attr]

    result = await persist_sessions_in_knowledge_graph_pipeline(user=user, session_ids=["talk"])
    assert result.stage("persist_session_qa").status == "completed"  # type: ignore[union-attr]
    assert result.stage("feedback_weights").reason == "not_requested"  # type: ignore[union-attr]
    found = await engramdb.search(
        "Who wrote the first program?", query_type=SearchType.CHUNKS, top_k=10
    )
    assert any("Who wrote the first program?" in hit["text"] for hit in found)


async def test_consolidation_pipelines_are_refused_by_name() -> None:
    with pytest.raises(FeatureNotAvailableError, match="consolidate_entities_pipeline"):
        await consolidate_entities_pipeline(similarity_threshold=0.6, dry_run=True)
    with pytest.raises(FeatureNotAvailableError, match="consolidate_entity_descriptions"):
        await consolidate_entity_descriptions_pipeline()
