"""Truth-subspace centroid slots: the directions HYBRID_COMPLETION's truth weight ranks along.

improve()'s ``build_truth_subspace`` stage writes one :data:`~engramdb.artifacts.truth.ANCHOR_TYPE`
node per statement a conversation established (:mod:`engramdb.improvement.truth`); then
:func:`refresh_slots` embeds the statements of the dataset's anchors (the
:data:`MAX_SLOT_ANCHORS` most recent) and folds them into at most :data:`SLOTS` centroid slots,
deterministically (:func:`build_slots`). The slots are stored as one improve-state value of the
dataset (:data:`SLOTS_KEY`, JSON: the embedding model, and per slot its unit centroid, its
learning count and the anchor ids it holds). This module is the one reader and writer of that
value; :mod:`engramdb.retrieval.truth_weight` ranks with it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import NAMESPACE_OID, UUID, uuid5

import numpy as np

from engramdb.artifacts.truth import ANCHOR_TYPE, OWNER
from engramdb.models.records import Dataset
from engramdb.providers.embedding.base import Embedder
from engramdb.storage.base import FloatArray, Store

__all__ = [
    "MAX_SLOT_ANCHORS",
    "SLOTS",
    "SLOTS_KEY",
    "TruthSlot",
    "TruthSlots",
    "build_slots",
    "coords",
    "learning_key",
    "live_slots",
    "refresh_slots",
]

#: Improve-state key of a dataset's slots.
SLOTS_KEY = "truth_subspace.slots"
#: At most this many slots (the reference's ``DEFAULT_K``): the per-query work is bounded by it
#: however many statements a dataset holds.
SLOTS = 8
#: The most recent anchors the slots are built from.
MAX_SLOT_ANCHORS = 256
#: Statements embedded per call while building.
_EMBED_BATCH = 64


@dataclass(frozen=True, slots=True)
class TruthSlot:
    centroid: tuple[float, ...]
    count: int
    anchor_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TruthSlots:
    """A dataset's slots and the embedding model their centroids live in."""

    model: str
    slots: tuple[TruthSlot, ...]

    def matrix(self) -> FloatArray:
        return np.array([s.centroid for s in self.slots], dtype=np.float32)

    def dumps(self) -> str:
        return json.dumps(
            {
                "model": self.model,
                "slots": [
                    {"centroid": list(s.centroid), "count": s.count, "anchors": list(s.anchor_ids)}
                    for s in self.slots
                ],
            }
        )

    @classmethod
    def loads(cls, raw: str) -> TruthSlots:
        data = json.loads(raw)
        return cls(
            model=str(data["model"]),
            slots=tuple(
                TruthSlot(
                    centroid=tuple(float(x) for x in s["centroid"]),
                    count=int(s["count"]),
                    anchor_ids=tuple(str(a) for a in s["anchors"]),
                )
                for s in data["slots"]
            ),
        )


def _unit(vector: FloatArray) -> FloatArray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def coords(vector: FloatArray, centroids: FloatArray) -> list[float]:
    """The cosine of ``vector`` with each centroid (unit rows), one coordinate per slot; all 0.0
    for a zero vector or a dimension other than the centroids'."""
    if centroids.size == 0 or vector.shape[-1] != centroids.shape[1]:
        return [0.0] * len(centroids)
    return [float(x) for x in centroids @ _unit(vector.astype(np.float32))]


def learning_key(statement: str) -> str:
    """The reference's learning id of a statement (``uuid5(NAMESPACE_OID, "TruthLearning:" +
    statement casefolded, whitespace collapsed)``): statements with one key are one learning,
    and learnings are folded into slots in key order."""
    normalized = " ".join(statement.casefold().split())
    return str(uuid5(NAMESPACE_OID, f"TruthLearning:{normalized}"))


def build_slots(
    statements: Sequence[tuple[str, str, FloatArray]], k: int = SLOTS
) -> list[TruthSlot]:
    """Fold ``(anchor id, statement, vector)`` triples into at most ``k`` slots, as the
    reference folds its learnings, the same for the same input in any order: statements with
    one :func:`learning_key` are one learning (the vector of the lowest anchor id; every anchor
    id is kept in its slot); learnings are taken in key order, the first ``k`` each open a
    slot, and every later one joins the slot whose centroid is nearest (cosine; the lower slot
    on a tie), whose centroid moves to the running mean of its learnings, normalised."""
    learnings: dict[str, tuple[list[str], FloatArray]] = {}
    for anchor_id, statement, vector in sorted(statements, key=lambda item: item[0]):
        ids, _ = learnings.setdefault(learning_key(statement), ([], vector))
        ids.append(anchor_id)
    slots: list[tuple[FloatArray, int, list[str]]] = []
    for key in sorted(learnings):
        ids, vector = learnings[key]
        unit = _unit(np.asarray(vector, dtype=np.float32))
        if len(slots) < k:
            slots.append((unit, 1, list(ids)))
            continue
        nearest = max(range(len(slots)), key=lambda i: (float(slots[i][0] @ unit), -i))
        centroid, n, members = slots[nearest]
        merged = ((centroid * n + unit) / (n + 1)).astype(np.float32)
        slots[nearest] = (_unit(merged), n + 1, [*members, *ids])
    return [TruthSlot(tuple(float(x) for x in c), n, tuple(members)) for c, n, members in slots]


async def refresh_slots(store: Store, embedder: Embedder, dataset: Dataset) -> int | None:
    """Rebuild the dataset's slots from its anchors when they changed since the last build.

    Returns the number of slots written, or None when the stored slots already hold exactly
    the current anchors (none stored holds no anchor: nothing written) or the dataset has no
    vectors to rank (no embedding model bound yet). Raises EmbeddingMismatchError when
    ``embedder`` is not the dataset's."""
    if dataset.embedding_model is None:
        return None
    from engramdb.engine import check_embedding

    check_embedding(dataset, embedder)
    graph = await store.list_derived(dataset.id, OWNER, node_type=ANCHOR_TYPE)
    anchors = [n for n in graph.nodes if n.text.strip()][-MAX_SLOT_ANCHORS:]
    wanted = sorted(str(n.id) for n in anchors)
    raw = await store.get_improve_state(dataset.id, SLOTS_KEY)
    stored = TruthSlots(embedder.model_name, ()) if raw is None else TruthSlots.loads(raw)
    held = sorted(a for s in stored.slots for a in s.anchor_ids)
    if stored.model == embedder.model_name and held == wanted:
        return None
    vectors: list[FloatArray] = []
    texts = [" ".join(n.text.split()) for n in anchors]
    for start in range(0, len(texts), _EMBED_BATCH):
        vectors.extend(await embedder.embed(texts[start : start + _EMBED_BATCH]))
    slots = build_slots(
        [(str(n.id), t, v) for n, t, v in zip(anchors, texts, vectors, strict=True)]
    )
    await store.set_improve_state(
        dataset.id, SLOTS_KEY, TruthSlots(embedder.model_name, tuple(slots)).dumps()
    )
    return len(slots)


async def live_slots(store: Store, dataset_id: UUID) -> TruthSlots | None:
    """The dataset's slots as retrieval uses them, or None when it has none: a slot none of
    whose anchors exists any more (its learnings documents were forgotten) is left out; one that
    lost only some keeps its centroid until the next build."""
    raw = await store.get_improve_state(dataset_id, SLOTS_KEY)
    if raw is None:
        return None
    stored = TruthSlots.loads(raw)
    ids = [UUID(a) for s in stored.slots for a in s.anchor_ids]
    alive = {str(n.id) for n in await store.get_nodes(ids, provenance=False)} if ids else set()
    kept = tuple(s for s in stored.slots if alive.intersection(s.anchor_ids))
    return TruthSlots(stored.model, kept) if kept else None
