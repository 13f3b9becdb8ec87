"""Ranking arithmetic: importance, feedback and personal weights folded into scores.

Pure functions only: no I/O, no settings, no environment. Callers pass every weight and
influence explicitly. Normative sources: importance-weight.md ("How the Weight Enters Ranking",
"Which Search Types Use the Weight"), user-preferences.md ("What changes at retrieval time") and
SPEC R-RANK-1..4, R-PER-3.

Two score families exist and they point in opposite directions:

* **Graph family** (GRAPH_COMPLETION and its variants): a *distance*, lower is better.
  ``final = distance * (2 - w) * feedback_factor * personal_factor``.
* **HYBRID_COMPLETION**: a *similarity score*, higher is better.
  ``final = similarity * (0.5 + w) * (2 - feedback_factor) * (2 - personal_factor)``,
  i.e. every factor is the mirror image of its distance counterpart around 1.0.

Shared invariants (every function below states its own as well):

* Weights live on a 0.0-1.0 scale; 0.5 is the default and the neutral value. A missing
  (``None``) or non-finite weight is read as 0.5, a finite weight outside [0, 1] is clamped.
* Feedback and personal factors are **exactly** ``1.0`` (``==``, not approximately) when the
  weight is neutral (0.5, or missing) or the influence is 0, so an unweighted run is
  arithmetically identical to a run with no weighting at all.
* Feedback and personal factors are bounded by their influence: they lie in
  ``[1 - influence, 1 + influence]``, so an influence of 0.3 moves a score by at most 30 %.
* Every factor is monotone: a better weight never makes an element rank worse.
* The hybrid importance factor is exactly ``1.0`` at 0.5 and at ``use_importance_weight=False``.
  The graph importance factor ``2 - w`` is 1.5 at the default, which is the same for every
  default-weighted element and therefore does not change their relative order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TypeVar

from engramdb.errors import EngramValidationError
from engramdb.models.search_type import SearchType

__all__ = [
    "DEFAULT_FEEDBACK_INFLUENCE",
    "DEFAULT_PERSONALIZATION_INFLUENCE",
    "DEFAULT_WEIGHT",
    "GRAPH_FAMILY_TYPES",
    "IMPORTANCE_WEIGHTED_TYPES",
    "NEUTRAL_WEIGHT",
    "SIMILARITY_ONLY_TYPES",
    "ScoreBreakdown",
    "feedback_factor",
    "graph_score",
    "hybrid_importance_factor",
    "hybrid_score",
    "importance_distance",
    "personal_factor",
    "rank_by_distance",
    "rank_by_score",
    "truth_factor",
    "truth_score",
    "uses_importance_weight",
    "weight_or_default",
]

T = TypeVar("T")

DEFAULT_WEIGHT = 0.5
"""Weight assumed for data ingested without ``importance_weight`` or with a missing value."""

NEUTRAL_WEIGHT = 0.5
"""Feedback / preference weight meaning "no signal"; the factor is exactly 1.0 there."""

DEFAULT_FEEDBACK_INFLUENCE = 0.0
"""``feedback_influence`` default: feedback weights are ignored unless raised (R-RANK-4)."""

DEFAULT_PERSONALIZATION_INFLUENCE = 0.3
"""``PERSONALIZATION_INFLUENCE`` default: a personal weight moves a score by at most 30 %."""

GRAPH_FAMILY_TYPES: frozenset[SearchType] = frozenset(
    {
        SearchType.GRAPH_COMPLETION,
        SearchType.GRAPH_COMPLETION_COT,
        SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION,
        SearchType.GRAPH_COMPLETION_DECOMPOSITION,
        SearchType.GRAPH_SUMMARY_COMPLETION,
    }
)
"""Types that fold importance into a distance with :func:`importance_distance` (R-RANK-1)."""

IMPORTANCE_WEIGHTED_TYPES: frozenset[SearchType] = GRAPH_FAMILY_TYPES | {
    SearchType.HYBRID_COMPLETION
}
"""Exactly the six types importance-weight.md lists as using the weight."""

SIMILARITY_ONLY_TYPES: frozenset[SearchType] = frozenset(
    {SearchType.RAG_COMPLETION, SearchType.CHUNKS, SearchType.TRIPLET_COMPLETION}
)
"""Types the seed names as ranking by vector similarity alone (R-RANK-3)."""


def uses_importance_weight(search_type: SearchType) -> bool:
    """True iff ``search_type`` lets ``importance_weight`` shape its ranking.

    Invariant: True exactly for :data:`IMPORTANCE_WEIGHTED_TYPES` (HYBRID_COMPLETION and the five
    graph-completion types); False for everything else, in particular for
    :data:`SIMILARITY_ONLY_TYPES`.
    """
    return search_type in IMPORTANCE_WEIGHTED_TYPES


def weight_or_default(w: float | None) -> float:
    """The weight to rank with: ``w`` clamped to [0, 1]; missing or non-finite → 0.5.

    Invariants: the result is always a finite float in [0.0, 1.0];
    ``weight_or_default(None) == weight_or_default(nan) == 0.5``; values inside [0, 1] are
    returned unchanged.
    """
    if w is None:
        return DEFAULT_WEIGHT
    value = float(w)
    if not math.isfinite(value):
        return DEFAULT_WEIGHT
    return min(1.0, max(0.0, value))


def _check_influence(name: str, influence: float) -> float:
    """``influence`` as a float, or EngramValidationError (a ValueError) unless it is a finite
    number in [0, 1]."""
    try:
        value = float(influence)
    except (TypeError, ValueError):
        value = math.nan
    if not (0.0 <= value <= 1.0):  # also rejects NaN
        raise EngramValidationError(f"{name} must be a number between 0 and 1, got {influence!r}")
    return value


def _nudge(weight: float | None, influence: float, name: str) -> float:
    """Signed relative nudge in [-influence, +influence]; exactly 0.0 at neutral or influence 0.

    ``influence * 2 * (w - 0.5)``: positive for a better-than-neutral weight.
    """
    infl = _check_influence(name, influence)
    w = weight_or_default(weight)
    if infl == 0.0 or w == NEUTRAL_WEIGHT:
        return 0.0
    return infl * (2.0 * (w - NEUTRAL_WEIGHT))


def importance_distance(distance: float, importance_weight: float | None) -> float:
    """Graph-family distance with importance folded in: ``distance * (2 - w)`` (R-RANK-1).

    ``w = weight_or_default(importance_weight)``, so a missing weight multiplies by 1.5.

    Invariants (for ``distance >= 0``): w = 1.0 leaves the distance unchanged, w = 0.0 doubles
    it; the result is non-increasing in ``w`` (a heavier memory is never ranked worse) and lies
    in ``[distance, 2 * distance]``.
    """
    return distance * (2.0 - weight_or_default(importance_weight))


def hybrid_importance_factor(importance_weight: float | None) -> float:
    """Multiplier for a HIGHER-IS-BETTER hybrid score: ``0.5 + w`` (R-RANK-2).

    Why ``0.5 + w``: it is exactly 1.0 at the default weight 0.5, so data ingested without a
    weight scores exactly as if weighting did not exist; it is linear and symmetric around the
    default (0.7 boosts by exactly as much as 0.3 dampens, ±20 %), and bounded to
    [0.5, 1.5], so even an extreme weight moves a score by at most 50 % — a low weight biases
    ranking, it never hides a strong match.

    Invariants: ``hybrid_importance_factor(0.5) == 1.0`` and ``(None) == 1.0``; strictly
    increasing in ``w`` on [0, 1]; result in [0.5, 1.5].
    """
    return 0.5 + weight_or_default(importance_weight)


def truth_score(chunk_coords: Sequence[float], query_coords: Sequence[float]) -> float:
    """How well a chunk lines up with the truth-subspace directions the query points at, in
    [0, 1]: the chunk's coordinate on each direction (its cosine with that centroid slot)
    averaged with the query's coordinates as weights, negative query coordinates counting 0.

    A weighted average, not the cosine of the two coordinate vectors: every coordinate of
    related texts is positive, so that cosine would be ~1 for every chunk and rank nothing.

    Invariants: ``0.5`` (neutral) when either side is empty or the query points at no
    direction (every query coordinate <= 0); non-decreasing in each chunk coordinate where the
    query's is positive; clamped to [0, 1].
    """
    if not chunk_coords or not query_coords:
        return 0.5
    weights = [max(float(q), 0.0) for q in query_coords]
    total = sum(weights)
    if total == 0.0:
        return 0.5
    weighted = sum(float(c) * w for c, w in zip(chunk_coords, weights, strict=False))
    return min(1.0, max(0.0, weighted / total))


def truth_factor(chunk_coords: Sequence[float], query_coords: Sequence[float]) -> float:
    """Multiplier for a HIGHER-IS-BETTER hybrid score: ``0.75 + 0.5 * truth_score`` (the
    reference's truth-subspace factor, applied with ``use_truth_weight``).

    Invariants: exactly ``1.0`` when :func:`truth_score` is neutral (missing coordinates, a
    query pointing at no direction); within [0.75, 1.25], so it reorders close matches and never
    hides a strong one; non-decreasing in the chunk's alignment.
    """
    return 0.75 + 0.5 * truth_score(chunk_coords, query_coords)


def feedback_factor(feedback_weight: float | None, influence: float) -> float:
    """Multiplier for a DISTANCE (lower is better): ``1 - influence * 2 * (fw - 0.5)``.

    ``fw = weight_or_default(feedback_weight)``; ``influence`` is ``feedback_influence`` and
    must be in [0, 1] (ValueError otherwise, including NaN).

    Invariants: exactly ``1.0`` when ``influence == 0`` (the default, R-RANK-4) or the weight is
    neutral (0.5 or missing); a better-rated element (fw > 0.5) gets a factor < 1 (shorter
    distance), a worse-rated one a factor > 1; non-increasing in ``fw``; always within
    ``[1 - influence, 1 + influence]``.
    """
    return 1.0 - _nudge(feedback_weight, influence, "feedback_influence")


def personal_factor(preference_weight: float | None, influence: float) -> float:
    """Multiplier for a DISTANCE (lower is better): ``1 - influence * 2 * (pw - 0.5)``.

    Same shape as :func:`feedback_factor`. ``preference_weight`` is the user's ``prefers``
    weight for the element (None when the user never rated it); ``influence`` is
    ``PERSONALIZATION_INFLUENCE`` (default 0.3), validated to [0, 1].

    Invariants (R-PER-3): exactly ``1.0`` at a neutral or missing weight or at influence 0, so
    an empty weight map is arithmetically identical to an un-personalized run; non-increasing
    in ``pw``; within ``[1 - influence, 1 + influence]`` (at most 30 % at the default).
    """
    return 1.0 - _nudge(preference_weight, influence, "personalization_influence")


@dataclass(frozen=True, kw_only=True, slots=True)
class ScoreBreakdown:
    """How one ranked element's final score was assembled (the ``verbose=True`` breakdown).

    Exactly one of ``base_distance`` (graph family, lower is better) and ``base_similarity``
    (hybrid, higher is better) is set. Weights are the effective values used (defaults and
    clamping applied). Factors are the multipliers actually applied, so in both families
    ``final == base * importance_factor * feedback_factor * personal_factor``, evaluated left
    to right. In a hybrid breakdown a factor > 1 is a boost; in a graph breakdown a factor < 1
    is.
    """

    base_distance: float | None = None
    base_similarity: float | None = None
    importance_weight: float
    importance_factor: float
    feedback_weight: float
    feedback_factor: float
    personal_weight: float
    personal_factor: float
    final: float

    @property
    def higher_is_better(self) -> bool:
        """True for a hybrid (similarity) breakdown, False for a graph (distance) one."""
        return self.base_similarity is not None

    def as_dict(self) -> dict[str, float | bool | None]:
        """Plain dict for result metadata, with ``higher_is_better`` included."""
        data: dict[str, float | bool | None] = dict(asdict(self))
        data["higher_is_better"] = self.higher_is_better
        return data


def graph_score(
    distance: float,
    *,
    importance_weight: float | None,
    feedback_weight: float | None = None,
    feedback_influence: float = DEFAULT_FEEDBACK_INFLUENCE,
    personal_weight: float | None = None,
    personal_influence: float = 0.0,
) -> ScoreBreakdown:
    """Graph-family score (lower is better) for one triplet element.

    ``final = distance * (2 - w) * feedback_factor(fw, feedback_influence)
    * personal_factor(pw, personal_influence)``.

    ``personal_influence`` defaults to 0 here (personalization off); pass
    ``PERSONALIZATION_INFLUENCE`` when a user and exactly one dataset are in context.

    Invariants: with both influences 0 (or neutral feedback/personal weights)
    ``final == importance_distance(distance, importance_weight)`` exactly; for
    ``distance >= 0`` ``final`` is non-increasing in each weight. Raises ValueError for an
    influence outside [0, 1].
    """
    w = weight_or_default(importance_weight)
    i_factor = 2.0 - w
    f_factor = feedback_factor(feedback_weight, feedback_influence)
    p_factor = personal_factor(personal_weight, personal_influence)
    return ScoreBreakdown(
        base_distance=distance,
        importance_weight=w,
        importance_factor=i_factor,
        feedback_weight=weight_or_default(feedback_weight),
        feedback_factor=f_factor,
        personal_weight=weight_or_default(personal_weight),
        personal_factor=p_factor,
        final=distance * i_factor * f_factor * p_factor,
    )


def hybrid_score(
    similarity: float,
    *,
    importance_weight: float | None,
    use_importance_weight: bool = True,
    feedback_weight: float | None = None,
    feedback_influence: float = DEFAULT_FEEDBACK_INFLUENCE,
    personal_weight: float | None = None,
    personal_influence: float = 0.0,
) -> ScoreBreakdown:
    """HYBRID_COMPLETION score (higher is better) for one candidate.

    ``final = similarity * (0.5 + w) * (1 + nf) * (1 + np)`` where
    ``nf = feedback_influence * 2 * (fw - 0.5)`` and ``np = personal_influence * 2 * (pw - 0.5)``;
    ``1 + n`` is the mirror image (``2 - factor``) of the distance factors above, so a
    better-rated element is boosted by exactly as much as its graph distance is shortened.
    With ``use_importance_weight=False`` (``retriever_specific_config``) the importance factor is
    1.0 whatever the stored weight.

    Invariants: every factor is exactly 1.0 at weight 0.5 / influence 0, so with defaults
    everywhere ``final == similarity``; for ``similarity >= 0`` ``final`` is non-decreasing in
    each weight; feedback and personal factors stay in ``[1 - influence, 1 + influence]``.
    Raises ValueError for an influence outside [0, 1].
    """
    w = weight_or_default(importance_weight)
    i_factor = hybrid_importance_factor(w) if use_importance_weight else 1.0
    f_factor = 1.0 + _nudge(feedback_weight, feedback_influence, "feedback_influence")
    p_factor = 1.0 + _nudge(personal_weight, personal_influence, "personalization_influence")
    return ScoreBreakdown(
        base_similarity=similarity,
        importance_weight=w,
        importance_factor=i_factor,
        feedback_weight=weight_or_default(feedback_weight),
        feedback_factor=f_factor,
        personal_weight=weight_or_default(personal_weight),
        personal_factor=p_factor,
        final=similarity * i_factor * f_factor * p_factor,
    )


def _ascending_key(value: float | None) -> tuple[bool, float]:
    """Sort key: missing (None / NaN) values after every real one."""
    if value is None or math.isnan(value):
        return (True, 0.0)
    return (False, value)


def similarity_only_score(
    distance: float, *, importance_weight: float | None = None, feedback_weight: float | None = None
) -> ScoreBreakdown:
    """The breakdown of the similarity-only types (CHUNKS, SUMMARIES, RAG_COMPLETION,
    TRIPLET_COMPLETION): stored weights are reported, every factor is exactly 1.0, and the final
    score is the raw distance."""
    return ScoreBreakdown(
        base_distance=distance,
        importance_weight=weight_or_default(importance_weight),
        importance_factor=1.0,
        feedback_weight=weight_or_default(feedback_weight),
        feedback_factor=1.0,
        personal_weight=NEUTRAL_WEIGHT,
        personal_factor=1.0,
        final=distance,
    )


def rank_by_distance(items: Iterable[T], key: Callable[[T], float | None]) -> list[T]:
    """Items sorted by ``key`` ascending (lower distance first).

    Invariants: stable — equal keys keep their input order; items whose key is None or NaN go
    last, in input order; the input is not mutated and every item appears exactly once.
    """
    keyed = [(key(item), item) for item in items]
    keyed.sort(key=lambda pair: _ascending_key(pair[0]))
    return [item for _, item in keyed]


def rank_by_score(items: Iterable[T], key: Callable[[T], float | None]) -> list[T]:
    """Items sorted by ``key`` descending (higher score first).

    Invariants: stable — equal keys keep their input order (not reversed); items whose key is
    None or NaN go last, in input order; the input is not mutated.
    """
    keyed = [(key(item), item) for item in items]
    keyed.sort(key=lambda pair: _ascending_key(None if pair[0] is None else -pair[0]))
    return [item for _, item in keyed]
