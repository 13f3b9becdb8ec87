"""The preference-weight formulas (pure; user-preferences.md).

A weight is a number in [0, 1]; 0.5 is neutral ("no signal"). A rating moves a weight toward its
target by ``alpha``; a weight nobody touched for ``n`` turns decays toward neutral by ``beta``
per turn, computed on read: ``0.5 + (w - 0.5) * (1 - beta) ** n``. A weight within ``0.01`` of
neutral is pruned.
"""

from __future__ import annotations

__all__ = [
    "NEUTRAL",
    "PRUNE_EPSILON",
    "STATED_TEXT_LIMIT",
    "decayed",
    "fold_stated",
    "is_prunable",
    "moved",
    "target_for",
]

NEUTRAL = 0.5
PRUNE_EPSILON = 0.01
#: Characters of stated-preference text kept per (user, dataset).
STATED_TEXT_LIMIT = 2000


def target_for(score: int) -> float | None:
    """The weight a 1..5 rating pulls toward, ``(score - 1) / 4``; None for the neutral 3 (a
    no-op) and for anything outside 1..5."""
    if score not in (1, 2, 4, 5):
        return None
    return (score - 1) / 4


def decayed(weight: float, idle_turns: int, beta: float) -> float:
    """``weight`` after ``idle_turns`` turns without a rating: ``0.5 + (w - 0.5)(1 - beta)^n``."""
    if idle_turns <= 0:
        return weight
    return NEUTRAL + (weight - NEUTRAL) * (1.0 - beta) ** idle_turns


def moved(weight: float, target: float, alpha: float) -> float:
    """One rating: ``w + alpha * (target - w)``."""
    return weight + alpha * (target - weight)


def is_prunable(weight: float) -> bool:
    return abs(weight - NEUTRAL) < PRUNE_EPSILON


def fold_stated(existing: str, new_lines: list[str], limit: int = STATED_TEXT_LIMIT) -> str:
    """Stated preferences, newest first: ``new_lines`` (given oldest first) go on top of
    ``existing``; a line already present moves to the top instead of repeating; the text is cut
    to ``limit`` characters at line ends only, so the oldest lines fall off whole."""
    lines = [line.strip() for line in existing.splitlines() if line.strip()]
    for line in new_lines:
        clean = " ".join(line.split())
        if not clean:
            continue
        lines = [clean, *(other for other in lines if other.lower() != clean.lower())]
    kept: list[str] = []
    size = 0
    for line in lines:
        extra = len(line) + (1 if kept else 0)
        if size + extra > limit:
            break
        kept.append(line)
        size += extra
    return "\n".join(kept)
