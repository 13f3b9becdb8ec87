"""importance-weight.md: "improve() never changes the importance_weight you stored", and a
later document that mentions an entity does not silently re-weight it either; the shared
EntityType nodes are the documented exception ("each ingest rewrites the one it uses")."""

from __future__ import annotations

import pytest

import engramdb
from engramdb.models.records import NodeType


async def _weights() -> dict[tuple[str, str], float]:
    graph = await engramdb.get_graph()
    return {(n.type, n.name): n.importance_weight for n in graph.nodes}


async def test_a_later_document_does_not_reweight_an_existing_entity() -> None:
    await engramdb.remember(
        "Ada Lovelace lived in London.", importance_weight=0.3, self_improvement=False
    )
    before = await _weights()
    assert before[(NodeType.ENTITY.value, "Ada Lovelace")] == pytest.approx(0.3)
    await engramdb.remember(
        "Ada Lovelace wrote notes on the Analytical Engine.",
        importance_weight=0.9,
        self_improvement=False,
    )
    after = await _weights()
    assert after[(NodeType.ENTITY.value, "Ada Lovelace")] == pytest.approx(0.3)
    # entities first seen in the second document carry its weight
    assert after[(NodeType.ENTITY.value, "Analytical Engine")] == pytest.approx(0.9)
    # the type nodes are rewritten by the last ingest that uses them
    assert after[(NodeType.ENTITY_TYPE.value, "person")] == pytest.approx(0.9)


async def test_bridging_a_session_keeps_the_stored_entity_weights() -> None:
    await engramdb.remember(
        "Ada Lovelace lived in London.", importance_weight=0.3, self_improvement=False
    )
    await engramdb.recall("Where did Ada Lovelace live?", session_id="chat")
    before = await _weights()
    await engramdb.improve(session_ids=["chat"])
    after = await _weights()
    for key, weight in before.items():
        if key[0] == NodeType.ENTITY.value:
            assert after[key] == pytest.approx(weight), key
