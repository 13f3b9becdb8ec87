"""Ranking arithmetic: importance, feedback and personal factors (R-RANK-*, R-PER-3)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import FrozenInstanceError, dataclass
from itertools import pairwise

import pytest

from engramdb.models.search_type import SearchType
from engramdb.retrieval.ranking import (
    DEFAULT_PERSONALIZATION_INFLUENCE,
    DEFAULT_WEIGHT,
    GRAPH_FAMILY_TYPES,
    IMPORTANCE_WEIGHTED_TYPES,
    SIMILARITY_ONLY_TYPES,
    ScoreBreakdown,
    feedback_factor,
    graph_score,
    hybrid_importance_factor,
    hybrid_score,
    importance_distance,
    personal_factor,
    rank_by_distance,
    rank_by_score,
    uses_importance_weight,
    weight_or_default,
)

GRID = [i / 20 for i in range(21)]  # 0.0, 0.05, ..., 1.0
INFLUENCES = [0.0, 0.1, 0.3, 0.5, 1.0]


@dataclass(frozen=True)
class Fact:
    name: str
    distance: float
    weight: float | None


# --- the seed's example -----------------------------------------------------------------------


def test_seed_example_graph_ranking_prefers_the_heavier_fact() -> None:
    # Two facts at the same distance; the dampened one comes first in the input.
    facts = [Fact("andreas", 0.4, 0.3), Fact("alice", 0.4, 0.7)]
    ranked = rank_by_distance(facts, key=lambda f: importance_distance(f.distance, f.weight))
    assert [f.name for f in ranked] == ["alice", "andreas"]


@pytest.mark.parametrize("search_type", sorted(SIMILARITY_ONLY_TYPES))
def test_seed_example_similarity_alone_keeps_the_order(search_type: SearchType) -> None:
    assert not uses_importance_weight(search_type)
    facts = [Fact("andreas", 0.4, 0.3), Fact("alice", 0.4, 0.7)]
    ranked = rank_by_distance(facts, key=lambda f: f.distance)
    assert [f.name for f in ranked] == ["andreas", "alice"]  # tie kept in input order


def test_seed_example_hybrid_prefers_the_heavier_fact_unless_disabled() -> None:
    facts = [Fact("andreas", 0.8, 0.3), Fact("alice", 0.8, 0.7)]

    def on(f: Fact) -> float:
        return hybrid_score(f.distance, importance_weight=f.weight).final

    def off(f: Fact) -> float:
        return hybrid_score(
            f.distance, importance_weight=f.weight, use_importance_weight=False
        ).final

    assert [f.name for f in rank_by_score(facts, key=on)] == ["alice", "andreas"]
    assert [f.name for f in rank_by_score(facts, key=off)] == ["andreas", "alice"]


def test_search_type_families_match_the_seed() -> None:
    assert {
        SearchType.HYBRID_COMPLETION,
        SearchType.GRAPH_COMPLETION,
        SearchType.GRAPH_COMPLETION_COT,
        SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION,
        SearchType.GRAPH_COMPLETION_DECOMPOSITION,
        SearchType.GRAPH_SUMMARY_COMPLETION,
    } == IMPORTANCE_WEIGHTED_TYPES
    assert SearchType.HYBRID_COMPLETION not in GRAPH_FAMILY_TYPES
    assert not (SIMILARITY_ONLY_TYPES & IMPORTANCE_WEIGHTED_TYPES)


#: Whether each search type lets importance_weight shape its ranking, written out from the seed
#: (importance-weight.md) rather than read from the constants under test. A new SearchType
#: needs an entry here: the decision is made on purpose, not inherited as "False".
USES_IMPORTANCE_WEIGHT = {
    "CHUNKS": False,
    "CHUNKS_LEXICAL": False,
    "SUMMARIES": False,
    "RAG_COMPLETION": False,
    "TRIPLET_COMPLETION": False,
    "GRAPH_COMPLETION": True,
    "GRAPH_COMPLETION_COT": True,
    "GRAPH_COMPLETION_CONTEXT_EXTENSION": True,
    "GRAPH_COMPLETION_DECOMPOSITION": True,
    "GRAPH_SUMMARY_COMPLETION": True,
    "HYBRID_COMPLETION": True,
    "TEMPORAL": False,
    "CYPHER": False,
    "CODING_RULES": False,
    "SKILLS": False,
    "AGENTIC_COMPLETION": False,
    # the type it picks decides; the others rank no weighted candidates
    "FEELING_LUCKY": False,
    "NATURAL_LANGUAGE": False,
    "GRAPH_REPORT": False,
    "CODE": False,
    "BROAD": False,
}


def test_every_search_type_has_an_importance_decision() -> None:
    assert {t.value for t in SearchType} == set(USES_IMPORTANCE_WEIGHT)


@pytest.mark.parametrize(("name", "expected"), sorted(USES_IMPORTANCE_WEIGHT.items()))
def test_uses_importance_weight_per_type(name: str, expected: bool) -> None:
    assert uses_importance_weight(SearchType(name)) is expected


# --- weights ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, 0.5),
        (math.nan, 0.5),
        (math.inf, 0.5),
        (-math.inf, 0.5),
        (0.0, 0.0),
        (0.3, 0.3),
        (0.7, 0.7),
        (1.0, 1.0),
        (1.7, 1.0),
        (-0.2, 0.0),
    ],
)
def test_weight_or_default(raw: float | None, expected: float) -> None:
    assert DEFAULT_WEIGHT == 0.5
    assert weight_or_default(raw) == expected


# --- importance -------------------------------------------------------------------------------


def test_importance_distance_pinned_numbers() -> None:
    assert importance_distance(0.4, 0.7) == 0.4 * 1.3
    assert importance_distance(0.4, 0.3) == 0.4 * 1.7
    assert importance_distance(0.4, None) == 0.4 * 1.5
    assert importance_distance(0.4, math.nan) == 0.4 * 1.5
    assert importance_distance(0.4, 1.0) == 0.4
    assert importance_distance(0.4, 0.0) == 0.8


def test_importance_distance_monotone_and_bounded() -> None:
    for d in [0.0, 0.1, 0.4, 1.0, 2.0]:
        values = [importance_distance(d, w) for w in GRID]
        assert all(a >= b for a, b in pairwise(values))
        assert all(d <= v <= 2 * d for v in values)


def test_hybrid_importance_factor() -> None:
    assert hybrid_importance_factor(0.5) == 1.0
    assert hybrid_importance_factor(None) == 1.0
    assert hybrid_importance_factor(math.nan) == 1.0
    assert hybrid_importance_factor(0.0) == 0.5
    assert hybrid_importance_factor(1.0) == 1.5
    values = [hybrid_importance_factor(w) for w in GRID]
    assert all(a < b for a, b in pairwise(values))
    assert all(0.5 <= v <= 1.5 for v in values)


# --- feedback and personal factors ------------------------------------------------------------

Factor = Callable[[float | None, float], float]
FACTORS: list[Factor] = [feedback_factor, personal_factor]


@pytest.mark.parametrize("factor", FACTORS)
def test_factor_exactly_one_at_influence_zero(factor: Factor) -> None:
    for w in [*GRID, None, math.nan]:
        assert factor(w, 0.0) == 1.0


@pytest.mark.parametrize("factor", FACTORS)
def test_factor_exactly_one_at_neutral_weight(factor: Factor) -> None:
    for influence in INFLUENCES:
        assert factor(0.5, influence) == 1.0
        assert factor(None, influence) == 1.0


@pytest.mark.parametrize("factor", FACTORS)
def test_factor_direction_monotone_and_bounded(factor: Factor) -> None:
    for influence in INFLUENCES[1:]:
        values = [factor(w, influence) for w in GRID]
        assert all(a >= b for a, b in pairwise(values))
        assert all(1.0 - influence <= v <= 1.0 + influence for v in values)
        assert factor(0.8, influence) < 1.0 < factor(0.2, influence)
        assert factor(1.0, influence) == 1.0 - influence
        assert factor(0.0, influence) == 1.0 + influence


def test_personal_factor_capped_at_default_influence() -> None:
    assert DEFAULT_PERSONALIZATION_INFLUENCE == 0.3
    assert personal_factor(1.0, DEFAULT_PERSONALIZATION_INFLUENCE) == pytest.approx(0.7)
    assert personal_factor(0.0, DEFAULT_PERSONALIZATION_INFLUENCE) == pytest.approx(1.3)


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("influence", [-0.1, 1.1, math.nan, math.inf])
def test_factor_rejects_influence_outside_unit_interval(factor: Factor, influence: float) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        factor(0.7, influence)


# --- graph_score --------------------------------------------------------------------------------


def test_graph_score_defaults_equal_importance_distance() -> None:
    for w in [*GRID, None]:
        b = graph_score(0.4, importance_weight=w)
        assert b.final == importance_distance(0.4, w)
        assert b.feedback_factor == 1.0
        assert b.personal_factor == 1.0
        assert b.base_distance == 0.4
        assert b.base_similarity is None
        assert not b.higher_is_better


def test_graph_score_feedback_ignored_at_default_influence() -> None:
    b = graph_score(0.4, importance_weight=0.7, feedback_weight=1.0)
    assert b.feedback_factor == 1.0
    assert b.final == 0.4 * 1.3


def test_graph_score_combines_all_factors() -> None:
    b = graph_score(
        0.4,
        importance_weight=0.7,
        feedback_weight=0.9,
        feedback_influence=0.5,
        personal_weight=0.2,
        personal_influence=0.3,
    )
    assert b.importance_factor == 2 - 0.7
    assert b.feedback_factor == pytest.approx(1 - 0.5 * 0.8)
    assert b.personal_factor == pytest.approx(1 + 0.3 * 0.6)
    assert b.final == 0.4 * b.importance_factor * b.feedback_factor * b.personal_factor
    assert (b.importance_weight, b.feedback_weight, b.personal_weight) == (0.7, 0.9, 0.2)


def test_graph_score_better_weights_never_rank_worse() -> None:
    def final(iw: float, fw: float, pw: float) -> float:
        return graph_score(
            0.4,
            importance_weight=iw,
            feedback_weight=fw,
            feedback_influence=0.4,
            personal_weight=pw,
            personal_influence=0.3,
        ).final

    for a, b in pairwise(GRID):
        for other in GRID:
            assert final(b, other, other) <= final(a, other, other)
            assert final(other, b, other) <= final(other, a, other)
            assert final(other, other, b) <= final(other, other, a)


def test_graph_score_rejects_bad_influence() -> None:
    with pytest.raises(ValueError):
        graph_score(0.4, importance_weight=0.5, feedback_influence=2.0)
    with pytest.raises(ValueError):
        graph_score(0.4, importance_weight=0.5, personal_influence=-0.5)


# --- hybrid_score -------------------------------------------------------------------------------


def test_hybrid_score_neutral_everywhere_is_identity() -> None:
    b = hybrid_score(0.8, importance_weight=None)
    assert b.final == 0.8
    assert (b.importance_factor, b.feedback_factor, b.personal_factor) == (1.0, 1.0, 1.0)
    assert b.base_similarity == 0.8
    assert b.base_distance is None
    assert b.higher_is_better
    b = hybrid_score(
        0.8,
        importance_weight=0.5,
        feedback_weight=0.5,
        feedback_influence=1.0,
        personal_weight=0.5,
        personal_influence=0.3,
    )
    assert b.final == 0.8


def test_hybrid_score_use_importance_weight_false_ignores_weight() -> None:
    for w in [*GRID, None]:
        b = hybrid_score(0.8, importance_weight=w, use_importance_weight=False)
        assert b.importance_factor == 1.0
        assert b.final == 0.8


def test_hybrid_score_factors_mirror_the_distance_factors() -> None:
    for w in GRID:
        for influence in INFLUENCES:
            b = hybrid_score(
                1.0,
                importance_weight=0.5,
                feedback_weight=w,
                feedback_influence=influence,
                personal_weight=w,
                personal_influence=influence,
            )
            assert b.feedback_factor == pytest.approx(2 - feedback_factor(w, influence))
            assert b.personal_factor == pytest.approx(2 - personal_factor(w, influence))
            assert 1 - influence <= b.feedback_factor <= 1 + influence


def test_hybrid_score_monotone_in_every_weight() -> None:
    def final(iw: float, fw: float, pw: float) -> float:
        return hybrid_score(
            0.8,
            importance_weight=iw,
            feedback_weight=fw,
            feedback_influence=0.5,
            personal_weight=pw,
            personal_influence=0.3,
        ).final

    for a, b in pairwise(GRID):
        assert final(a, 0.5, 0.5) < final(b, 0.5, 0.5)
        assert final(0.5, a, 0.5) < final(0.5, b, 0.5)
        assert final(0.5, 0.5, a) < final(0.5, 0.5, b)


def test_hybrid_final_is_product_of_reported_factors() -> None:
    b = hybrid_score(
        0.6,
        importance_weight=0.9,
        feedback_weight=0.1,
        feedback_influence=0.2,
        personal_weight=0.8,
        personal_influence=0.3,
    )
    assert b.final == 0.6 * b.importance_factor * b.feedback_factor * b.personal_factor
    assert b.importance_factor == 0.5 + 0.9


def test_score_breakdown_is_frozen_and_serialisable() -> None:
    b = graph_score(0.4, importance_weight=0.7)
    with pytest.raises(FrozenInstanceError):
        b.final = 0.0  # type: ignore[misc]
    data = b.as_dict()
    assert data["base_distance"] == 0.4
    assert data["higher_is_better"] is False
    assert set(data) >= {
        "base_distance",
        "importance_weight",
        "importance_factor",
        "feedback_weight",
        "feedback_factor",
        "personal_weight",
        "personal_factor",
        "final",
    }
    assert isinstance(b, ScoreBreakdown)


# --- rank helpers ---------------------------------------------------------------------------------


def test_rank_by_distance_ascending_stable_missing_last() -> None:
    items = [("a", 0.3), ("b", None), ("c", 0.1), ("d", 0.3), ("e", math.nan), ("f", 0.1)]
    ranked = rank_by_distance(items, key=lambda x: x[1])
    assert [x[0] for x in ranked] == ["c", "f", "a", "d", "b", "e"]
    assert items[0] == ("a", 0.3)  # input untouched


def test_rank_by_score_descending_stable_missing_last() -> None:
    items = [("a", 0.3), ("b", None), ("c", 0.9), ("d", 0.3), ("e", math.nan), ("f", 0.9)]
    ranked = rank_by_score(items, key=lambda x: x[1])
    assert [x[0] for x in ranked] == ["c", "f", "a", "d", "b", "e"]


def test_rank_helpers_accept_iterables_and_empty() -> None:
    assert rank_by_distance(iter([]), key=lambda x: x) == []
    assert rank_by_score((x for x in [1.0, 2.0]), key=lambda x: x) == [2.0, 1.0]
