"""The truth factor's arithmetic and the centroid slots it ranks along."""

from __future__ import annotations

import numpy as np

from engramdb.artifacts.truth_slots import TruthSlots, build_slots, coords
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
    items = [(f"id-{i:02d}", rng.standard_normal(16).astype(np.float32)) for i in range(12)]
    slots = build_slots(items, k=4)
    assert build_slots(list(reversed(items)), k=4) == slots
    assert len(slots) == 4 and sum(s.count for s in slots) == 12
    assert [s.anchor_ids[0] for s in slots] == ["id-00", "id-01", "id-02", "id-03"]
    assert all(abs(np.linalg.norm(s.centroid) - 1.0) < 1e-5 for s in slots)
    stored = TruthSlots("m", tuple(slots))
    assert TruthSlots.loads(stored.dumps()) == stored
    matrix = stored.matrix()
    assert coords(np.zeros(16, dtype=np.float32), matrix) == [0.0] * 4
    assert coords(np.ones(8, dtype=np.float32), matrix) == [0.0] * 4  # another dimension
    assert abs(coords(matrix[2], matrix)[2] - 1.0) < 1e-5
