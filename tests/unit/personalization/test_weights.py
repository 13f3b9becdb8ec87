"""The preference-weight formulas, pinned to the numbers of user-preferences.md / issue 5."""

from __future__ import annotations

import pytest

from engramdb.personalization.lookup import PreferenceView, personal_terms
from engramdb.personalization.weights import (
    decayed,
    fold_stated,
    is_prunable,
    moved,
    target_for,
)
from engramdb.retrieval.ranking import personal_factor


def test_targets_and_the_neutral_rating() -> None:
    assert [target_for(s) for s in (1, 2, 4, 5)] == [0.0, 0.25, 0.75, 1.0]
    assert target_for(3) is None  # neutral: a no-op
    assert target_for(0) is None and target_for(6) is None


def test_three_five_star_ratings_from_neutral() -> None:
    weights = [0.5]
    for _ in range(3):
        weights.append(moved(weights[-1], 1.0, alpha=0.3))
    assert weights == pytest.approx([0.5, 0.65, 0.755, 0.8285])


@pytest.mark.parametrize("idle", [0, 1, 5, 40])
def test_decay_toward_neutral_per_idle_turn(idle: int) -> None:
    assert decayed(0.8285, idle, beta=0.02) == pytest.approx(0.5 + 0.3285 * 0.98**idle)
    assert decayed(0.2, idle, beta=0.02) == pytest.approx(0.5 - 0.3 * 0.98**idle)


def test_prune_within_a_hundredth_of_neutral() -> None:
    assert is_prunable(0.5) and is_prunable(0.509) and is_prunable(0.491)
    assert not is_prunable(0.511) and not is_prunable(0.489)


def test_stated_text_newest_first_deduplicated_and_cut_at_line_ends() -> None:
    text = fold_stated("", ["use metric units", "answer in bullet points"])
    assert text == "answer in bullet points\nuse metric units"
    text = fold_stated(text, ["Use  metric units"])  # repeated: moves to the top once
    assert text == "Use metric units\nanswer in bullet points"
    lines = [f"preference number {i:04d} " + "x" * 80 for i in range(40)]
    capped = fold_stated("", lines)
    assert len(capped) <= 2000
    kept = capped.split("\n")
    assert all(line in lines for line in kept)  # never cut mid-line
    assert kept[0] == lines[-1]  # newest first; the oldest fell off
    assert lines[0] not in kept


def test_personal_factor_is_exactly_one_when_neutral_or_off() -> None:
    assert personal_factor(0.5, 0.3) == 1.0
    assert personal_factor(0.8285, 0.0) == 1.0
    assert personal_factor(None, 0.3) == 1.0
    assert personal_factor(0.8285, 0.3) == pytest.approx(1 - 0.3 * 2 * 0.3285)
    view = PreferenceView(weights={}, influence=0.3)
    assert personal_terms(view) == (None, 0.0)
