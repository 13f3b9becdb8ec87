"""The ``update_user_preferences`` improve stage: fold ratings and stated preferences from the
given sessions into the calling user's preference node for the dataset.

One internal node per (user, dataset) (type ``UserPreference``, node set ``user_preferences``)
holds the turn counter and the stated-preference text; weighted ``prefers`` edges point at the
graph nodes used by the answers the user rated. Per run, in one transaction with the marks
that make it exactly-once:

1. every pending rating (oldest first) moves each used node's weight — first decayed to the
   current turn — toward ``(rating - 1) / 4`` by ``PREFERENCE_ALPHA`` (3 is neutral: spent, no
   effect);
2. the turn counter advances by the number of Q&A turns not counted before; weights touched now
   are stamped with the new turn, the others keep theirs (decay is computed on read);
3. weights that have decayed to within 0.01 of neutral are pruned;
4. new stated preferences (session guidance in the ``preferences`` section) are folded into the
   text, newest first, capped at 2,000 characters at line ends.
"""

from __future__ import annotations

from uuid import UUID

from engramdb.improvement.context import ImproveContext, StageOutcome, consumer_name, for_dataset
from engramdb.models.records import Edge, Node, stable_id
from engramdb.models.sessions import EntryMark
from engramdb.personalization.weights import decayed, fold_stated, is_prunable, moved, target_for
from engramdb.storage.base import DerivedWrite

__all__ = ["PREFERENCE_TYPE", "PREFERS", "preference_node_id", "preference_owner"]

PREFERENCE_TYPE = "UserPreference"
PREFERS = "prefers"


def preference_owner(user_id: UUID) -> str:
    return f"preferences:{user_id}"


def preference_node_id(user_id: UUID, dataset_id: UUID) -> UUID:
    return stable_id("preferences", user_id, dataset_id)


async def update_user_preferences(ctx: ImproveContext) -> StageOutcome:
    store, user, dataset = ctx.store, ctx.user, ctx.dataset
    sessions = list(ctx.session_ids)
    ratings_consumer = consumer_name("update_user_preferences", dataset)
    turns_consumer = consumer_name("preference_turns", dataset)
    text_consumer = consumer_name("preference_text", dataset)
    pending = for_dataset(
        await store.list_pending_ratings(user.id, ratings_consumer, session_ids=sessions), dataset
    )
    turns = for_dataset(
        await store.list_qa_entries(user.id, session_ids=sessions, unmarked_by=turns_consumer),
        dataset,
    )
    stated = [
        entry
        for sid in sessions
        for entry in await store.list_context_entries(
            user.id, sid, context_profile="qa", unmarked_by=text_consumer
        )
        if entry.section == "preferences"
    ]
    if not (pending or turns or stated):
        return StageOutcome("already_completed", "no_new_entries")

    owner, node_id = preference_owner(user.id), preference_node_id(user.id, dataset.id)
    graph = await store.list_derived(dataset.id, owner)
    node = next((n for n in graph.nodes if n.id == node_id), None)
    current = int(node.properties.get("turn", 0)) if node else 0
    text = str(node.properties.get("stated", "")) if node else ""
    weights: dict[UUID, tuple[float, int]] = {
        e.target_id: (float(e.properties.get("weight", 0.5)), int(e.properties.get("turn", 0)))
        for e in graph.edges
        if e.relation == PREFERS and e.source_id == node_id
    }
    beta, alpha = ctx.settings.preference_beta, ctx.settings.preference_alpha

    used = sorted({n for qa in pending for n in qa.used_node_ids}, key=str)
    alive = {
        n.id
        for n in await store.get_nodes(used)
        if n.dataset_id == dataset.id and not n.properties.get("internal")
    }
    touched: dict[UUID, float] = {}
    applied = 0
    for qa in pending:
        target = target_for(qa.feedback_score or 3)
        if target is None:
            continue
        applied += 1
        for target_id in qa.used_node_ids:
            if target_id not in alive:
                continue
            if target_id in touched:
                weight = touched[target_id]
            else:
                old, stamp = weights.get(target_id, (0.5, current))
                weight = decayed(old, current - stamp, beta)
            touched[target_id] = moved(weight, target, alpha)

    new_turn = current + sum(1 for qa in turns if qa.question.strip())
    for target_id, weight in touched.items():
        weights[target_id] = (weight, new_turn)
    kept = {
        t: (w, s)
        for t, (w, s) in weights.items()
        if not is_prunable(decayed(w, new_turn - s, beta))
    }
    text = fold_stated(text, [e.content for e in sorted(stated, key=lambda e: e.seq)])

    pref = Node(
        id=node_id,
        dataset_id=dataset.id,
        type=PREFERENCE_TYPE,
        name=f"preferences of user {user.id}",
        text=text,
        properties={
            "internal": True,
            "user_id": str(user.id),
            "turn": new_turn,
            "stated": text,
            "node_set": ["user_preferences"],
        },
    )
    edges = [
        Edge(
            id=stable_id(PREFERS, node_id, target_id),
            dataset_id=dataset.id,
            source_id=node_id,
            target_id=target_id,
            relation=PREFERS,
            properties={"weight": weight, "turn": stamp},
        )
        for target_id, (weight, stamp) in sorted(kept.items(), key=lambda kv: str(kv[0]))
    ]
    report = await store.write_derived(
        DerivedWrite(
            dataset_id=dataset.id,
            owner=owner,
            nodes=[pref],
            edges=edges,
            replace=True,
            marks={
                ratings_consumer: [EntryMark("qa", qa.id, qa.rating_rev) for qa in pending],
                turns_consumer: [EntryMark("qa", qa.id) for qa in turns],
                text_consumer: [EntryMark("context", e.id) for e in stated],
            },
        )
    )
    return StageOutcome(
        counts={
            "ratings": applied,
            "turns": new_turn - current,
            "weights": len(kept),
            "pruned": len(weights) - len(kept),
            "stated": len(stated),
            "marks": report.marks,
        }
    )
