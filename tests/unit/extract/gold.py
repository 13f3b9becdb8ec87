"""The extraction gold set (tests/data/extraction_gold.jsonl) and how it is scored.

Each line: ``text``, required ``entities`` ([name, TYPE]), ``optional`` names (neither
rewarded nor penalised: debatable mentions such as "kids" or "Last Friday"), ``relations``
([source, relation, target]) and ``split`` ("dev" was used while writing the heuristics,
"heldout" never was).

Matching: names compare case-insensitively after stripping a leading article, a trailing
possessive and edge punctuation. Entities are scored *strict* (name and type) and *lenient*
(name only). Relations are scored by *pair* (directed endpoints; relation names are a
convention that differs between extractors) and *labelled* (endpoints plus a shared content
word stem in the relation name: "settle_in" ~ "settled_in", "capital_of" ~
"serve_as_capital_of"). A predicted relation touching an optional name is ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GOLD_PATH = Path(__file__).resolve().parents[2] / "data" / "extraction_gold.jsonl"


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_POSSESSIVE = re.compile(r"(?:'s|s')$")
_PREPS = _word_set(
    "in on at to from into with for of by about near through as is a an the be after "
    "before since until during over under between across along around"
)


@dataclass(frozen=True)
class GoldItem:
    id: str
    split: str
    kind: str
    text: str
    entities: tuple[tuple[str, str], ...]
    optional: tuple[str, ...]
    relations: tuple[tuple[str, str, str], ...]


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: Counts) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class Scores:
    strict: Counts = field(default_factory=Counts)
    lenient: Counts = field(default_factory=Counts)
    pairs: Counts = field(default_factory=Counts)
    labelled: Counts = field(default_factory=Counts)

    def add(self, other: Scores) -> None:
        self.strict.add(other.strict)
        self.lenient.add(other.lenient)
        self.pairs.add(other.pairs)
        self.labelled.add(other.labelled)


def load_gold(path: Path = GOLD_PATH) -> list[GoldItem]:
    items: list[GoldItem] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw: dict[str, Any] = json.loads(line)
        items.append(
            GoldItem(
                id=raw["id"],
                split=raw["split"],
                kind=raw["kind"],
                text=raw["text"],
                entities=tuple((e[0], e[1]) for e in raw["entities"]),
                optional=tuple(raw.get("optional", [])),
                relations=tuple((r[0], r[1], r[2]) for r in raw["relations"]),
            )
        )
    return items


def norm(name: str) -> str:
    text = " ".join(name.replace("’", "'").split()).casefold()
    text = _POSSESSIVE.sub("", _ARTICLE.sub("", text))
    return text.strip(" .,:;!?\"'()[]{}“”")


def _stems(relation: str) -> set[str]:
    out: set[str] = set()
    for word in relation.lower().split("_"):
        if not word or word in _PREPS:
            continue
        stem = re.sub(r"(?:ing|ed|es|s|e)$", "", word) if len(word) > 4 else word
        out.add(stem[:5])
    return out


def _compatible(gold: str, predicted: str) -> bool:
    g, p = _stems(gold), _stems(predicted)
    if g or p:
        return bool(g & p)
    return set(gold.split("_")) == set(predicted.split("_"))


def score_item(
    item: GoldItem,
    entities: Iterable[tuple[str, str]],
    relations: Iterable[tuple[str, str, str]],
) -> Scores:
    """Scores of one prediction (entities as (name, type), relations as triples)."""
    optional = {norm(o) for o in item.optional}
    gold_typed = {(norm(n), t) for n, t in item.entities}
    gold_names = {n for n, _ in gold_typed}
    optional -= gold_names
    pred_typed = {(norm(n), t.upper()) for n, t in entities if norm(n)}
    pred_typed = {(n, t) for n, t in pred_typed if n not in optional}
    pred_names = {n for n, _ in pred_typed}
    s = Scores()
    s.strict = Counts(
        len(pred_typed & gold_typed), len(pred_typed - gold_typed), len(gold_typed - pred_typed)
    )
    s.lenient = Counts(
        len(pred_names & gold_names), len(pred_names - gold_names), len(gold_names - pred_names)
    )
    gold_rel = [(norm(a), r, norm(b)) for a, r, b in item.relations]
    pred_rel = [
        (norm(a), r, norm(b))
        for a, r, b in relations
        if norm(a) not in optional and norm(b) not in optional
    ]
    gold_pairs = {(a, b) for a, _, b in gold_rel}
    pred_pairs = {(a, b) for a, _, b in pred_rel}
    s.pairs = Counts(
        len(gold_pairs & pred_pairs), len(pred_pairs - gold_pairs), len(gold_pairs - pred_pairs)
    )
    matched_gold = sum(
        1
        for a, r, b in set(gold_rel)
        if any(pa == a and pb == b and _compatible(r, pr) for pa, pr, pb in pred_rel)
    )
    good_pred = sum(
        1
        for pa, pr, pb in set(pred_rel)
        if any(pa == a and pb == b and _compatible(r, pr) for a, r, b in gold_rel)
    )
    s.labelled = Counts(
        matched_gold, len(set(pred_rel)) - good_pred, len(set(gold_rel)) - matched_gold
    )
    return s


def score_all(
    items: Sequence[GoldItem],
    predictions: Sequence[tuple[Iterable[tuple[str, str]], Iterable[tuple[str, str, str]]]],
) -> Scores:
    total = Scores()
    for item, (entities, relations) in zip(items, predictions, strict=True):
        total.add(score_item(item, entities, relations))
    return total
