"""Truth anchors as stored: the ``Established in conversation:`` block graph completion shows.

improve()'s ``build_truth_subspace`` stage (:mod:`engramdb.improvement.truth`) writes one
internal :data:`ANCHOR_TYPE` node per statement a conversation established, derived data of
owner :data:`OWNER`, with an :data:`ANCHORS` edge to every entity the statement names, and sets
the improve-state key :data:`STATE_KEY` in a dataset once it anchored anything there. This
module is the one reader of that layout (:func:`anchor_block`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from engramdb.models.records import Node
from engramdb.storage.base import Store

__all__ = ["ANCHORS", "ANCHOR_TYPE", "BLOCK_HEADING", "OWNER", "STATE_KEY", "anchor_block"]

logger = logging.getLogger(__name__)

#: Derived-data owner of every anchor and ``anchors`` edge.
OWNER = "truth_subspace"
ANCHOR_TYPE = "TruthAnchor"
ANCHORS = "anchors"
#: Improve-state key set once a build wrote anchors in the dataset: retrieval reads no graph
#: for a dataset without it.
STATE_KEY = "truth_subspace.anchored"
#: The retrieval block: at most this many statements, from at most this many entities, reading
#: at most this many anchors per entity.
BLOCK_STATEMENTS = 5
BLOCK_ENTITIES = 20
ANCHORS_PER_ENTITY = 3
BLOCK_HEADING = "Established in conversation:"


async def anchor_block(store: Store, entities: Sequence[Node]) -> str:
    """The ``Established in conversation:`` block of the anchors of these entities (in their
    order; at most :data:`BLOCK_STATEMENTS` statements, each once), or "" when they have none.

    A dataset no build ever anchored anything in costs one improve-state lookup and nothing
    else; otherwise two bounded reads: the entities' incoming ``anchors`` edges (at most
    :data:`ANCHORS_PER_ENTITY` each, of :data:`BLOCK_ENTITIES` entities), then the anchors.
    Fails open: any error gives ""."""
    chosen = list({n.id: n for n in entities}.values())[:BLOCK_ENTITIES]
    if not chosen:
        return ""
    try:
        anchored = {
            d
            for d in dict.fromkeys(n.dataset_id for n in chosen)
            if await store.get_improve_state(d, STATE_KEY)
        }
        wanted = [n.id for n in chosen if n.dataset_id in anchored]
        if not wanted:
            return ""
        edges = await store.incident_edges(
            wanted,
            direction="in",
            relations=[ANCHORS],
            limit_per_node=ANCHORS_PER_ENTITY,
            provenance=False,
        )
        if not edges:
            return ""
        anchor_ids = list(dict.fromkeys(e.source_id for e in edges))
        found = await store.get_nodes(anchor_ids, provenance=False)
    except Exception as exc:  # fail open: the context is complete without the block
        logger.warning("reading truth anchors failed: %s", exc)
        return ""
    statements: dict[str, str] = {}
    for node in found:
        text = " ".join(node.text.split())
        if node.type == ANCHOR_TYPE and text:
            statements.setdefault(text.casefold(), text)
    lines = [f"- {s}" for s in list(statements.values())[:BLOCK_STATEMENTS]]
    return f"{BLOCK_HEADING}\n" + "\n".join(lines) if lines else ""
