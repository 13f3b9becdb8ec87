"""Reading a user's preferences at retrieval time (fail-open).

Personalization applies only when it is enabled, a user is in context and exactly one dataset
resolves. A missing, empty or unreadable preference node costs the personalization, never the
search: every failure is logged and gives :data:`EMPTY`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from uuid import UUID

from engramdb.personalization.update import PREFERS, preference_node_id, preference_owner
from engramdb.personalization.weights import decayed
from engramdb.settings import Settings
from engramdb.storage.base import Store

__all__ = ["EMPTY", "PreferenceView", "load_preferences", "personal_terms"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PreferenceView:
    """Decayed ``prefers`` weights by node id, and the stated-preference text (newest first)."""

    weights: dict[UUID, float] = field(default_factory=dict)
    text: str = ""
    influence: float = 0.0

    def weight(self, node_id: UUID) -> float | None:
        return self.weights.get(node_id)

    @property
    def empty(self) -> bool:
        return not self.weights and not self.text


EMPTY = PreferenceView()


async def load_preferences(
    store: Store, settings: Settings, user_id: UUID | None, dataset_ids: Sequence[UUID]
) -> PreferenceView:
    """The user's preferences for the one dataset searched, or :data:`EMPTY`."""
    if not settings.personalization_enabled or user_id is None or len(set(dataset_ids)) != 1:
        return EMPTY
    dataset_id = dataset_ids[0]
    try:
        graph = await store.list_derived(dataset_id, preference_owner(user_id))
        node_id = preference_node_id(user_id, dataset_id)
        node = next((n for n in graph.nodes if n.id == node_id), None)
        if node is None:
            return EMPTY
        turn = int(node.properties.get("turn", 0))
        beta = settings.preference_beta
        weights = {
            e.target_id: decayed(
                float(e.properties["weight"]), turn - int(e.properties.get("turn", turn)), beta
            )
            for e in graph.edges
            if e.relation == PREFERS and e.source_id == node_id
        }
        text = str(node.properties.get("stated", ""))
    except Exception as exc:  # fail-open by contract (user-preferences.md): logged, not raised
        logger.warning("could not read preferences; searching without them: %s", exc)
        return EMPTY
    return PreferenceView(weights=weights, text=text, influence=settings.personalization_influence)


def personal_terms(view: PreferenceView | None, *node_ids: UUID) -> tuple[float | None, float]:
    """``(personal_weight, personal_influence)`` for the ranking functions, for an element made
    of ``node_ids`` (a triplet's source and target): the mean of the weights the user has for
    them, or ``(None, 0.0)`` — a factor of exactly 1.0 — when there are none."""
    if view is None or not view.weights:
        return None, 0.0
    found = [view.weights[n] for n in node_ids if n in view.weights]
    if not found:
        return None, 0.0
    return sum(found) / len(found), view.influence
