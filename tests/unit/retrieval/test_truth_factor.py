"""The truth factor's arithmetic and the centroid slots it ranks along."""

from __future__ import annotations

import uuid

import numpy as np

from engramdb.artifacts.truth_slots import TruthSlots, build_slots, coords, learning_key
from engramdb.retrieval.ranking import truth_factor


def test_truth_factor_is_neutral_without_a_direction_and_bounded() -> None:
    assert truth_factor([], [0.9]) == 1.0
    assert truth_factor([0.9], []) == 1.0
    assert truth_factor([0.9, 0.8], [-0.2, 0.0]) == 1.0  # the query points at no slot
    assert truth_factor([1.0], [0.4]) == 1.25 and truth_factor([-1.0], [0.4]) == 0.75
    # the slot the query points at decides, and more alignment never ranks lower
    assert truth_factor([0.9, 0.0], [0.8, 0.0]) > truth_factor([0.0, 0.9], [0.8, 0.0])
    assert truth_factor([0.6], [0.5]) > truth_factor([0.4], [0.5])


def test_slots_are_the_same_in_any_order_and_capped() -> None:
    rng = np.random.default_rng(3)
    items = [
        (f"id-{i:02d}", f"Lesson {i}.", rng.standard_normal(16).astype(np.float32))
        for i in range(12)
    ]
    slots = build_slots(items, k=4)
    assert build_slots(list(reversed(items)), k=4) == slots
    assert len(slots) == 4 and sum(s.count for s in slots) == 12
    # the first four learnings in the reference's learning-id order open the slots
    by_key = sorted(items, key=lambda item: learning_key(item[1]))
    assert [s.anchor_ids[0] for s in slots] == [anchor for anchor, _, _ in by_key[:4]]
    assert all(abs(np.linalg.norm(s.centroid) - 1.0) < 1e-5 for s in slots)
    stored = TruthSlots("m", tuple(slots))
    assert TruthSlots.loads(stored.dumps()) == stored
    matrix = stored.matrix()
    assert coords(np.zeros(16, dtype=np.float32), matrix) == [0.0] * 4
    assert coords(np.ones(8, dtype=np.float32), matrix) == [0.0] * 4  # another dimension
    assert abs(coords(matrix[2], matrix)[2] - 1.0) < 1e-5


def test_slots_fold_learnings_as_the_reference_does() -> None:
    # the reference's learning id: uuid5(NAMESPACE_OID, "TruthLearning:" + casefolded statement)
    assert learning_key("  The user  likes COFFEE. ") == str(
        uuid.uuid5(uuid.NAMESPACE_OID, "TruthLearning:the user likes coffee.")
    )
    a, b, c = (np.eye(4, dtype=np.float32)[i] for i in range(3))
    statements = [
        ("id-1", "Likes coffee.", a),
        ("id-2", "likes   COFFEE.", b),  # the same learning: counted once, its anchor kept
        ("id-3", "Dislikes tea.", c),
    ]
    (one,) = build_slots(statements, k=1)
    assert one.count == 2 and set(one.anchor_ids) == {"id-1", "id-2", "id-3"}
    # two learnings in one slot: the mean of the first learning's vector (id-1's) and id-3's
    expected = (a + c) / np.linalg.norm(a + c)
    assert np.allclose(one.centroid, expected, atol=1e-6)
