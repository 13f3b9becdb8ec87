"""What a bounded drawing keeps, and the names a person reads on it.

A drawing of a large graph is capped. Cutting the node list and the edge list independently (the
first N of each) leaves a ring of orphans: nodes whose edges were cut. :func:`select_graph`
instead ranks nodes by importance (stored ``importance_weight`` times a degree term), keeps the
most important ones and then the edges among them, the heaviest first.

Internal nodes (``properties.internal``: the "context of X" buckets the global index stores)
are left out unless asked for. :func:`human_labels` gives documents stored as ``text_<hash>``
the first words of their text instead.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from uuid import UUID

from engramdb.models.records import Edge, Node, NodeType

__all__ = ["LABEL_WORDS", "Selection", "human_labels", "is_internal", "select_graph"]

#: Words of a document's first chunk used as its name when it has none of its own.
LABEL_WORDS = 7

_HASH_NAME = re.compile(r"text_[0-9a-f]{6,}(?![0-9a-f])")


@dataclass(frozen=True)
class Selection:
    """The nodes and edges to draw, and how many of each were left out (and why)."""

    nodes: list[Node]
    edges: list[Edge]
    dropped_nodes: int
    dropped_edges: int
    internal_hidden: int


def is_internal(node: Node) -> bool:
    """Whether ``node`` is bookkeeping of engramdb (not knowledge a person stored)."""
    return bool(node.properties.get("internal"))


def _score(node: Node, degree: int) -> float:
    weight = node.importance_weight
    w = weight if isinstance(weight, int | float) and math.isfinite(weight) else 0.5
    return max(0.05, float(w)) * math.log2(2 + degree)


def select_graph(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    *,
    max_nodes: int,
    max_edges: int,
    include_internal: bool = False,
) -> Selection:
    """The ``max_nodes`` most important nodes (internal ones only with ``include_internal``)
    and up to ``max_edges`` of the edges among them, heaviest ends first."""
    shown = [n for n in nodes if include_internal or not is_internal(n)]
    internal_hidden = len(nodes) - len(shown)
    present = {n.id for n in shown}
    inner = [e for e in edges if e.source_id in present and e.target_id in present]
    degree: Counter[UUID] = Counter()
    for e in inner:
        degree[e.source_id] += 1
        degree[e.target_id] += 1
    score = {n.id: _score(n, degree[n.id]) for n in shown}
    ranked = sorted(shown, key=lambda n: (-score[n.id], str(n.id)))
    kept = ranked[:max_nodes]
    kept_ids = {n.id for n in kept}
    among = [e for e in inner if e.source_id in kept_ids and e.target_id in kept_ids]
    if len(among) > max_edges:
        among.sort(key=lambda e: (-(score[e.source_id] + score[e.target_id]), str(e.id)))
        among = among[:max_edges]
    return Selection(
        nodes=kept,
        edges=among,
        dropped_nodes=len(shown) - len(kept),
        dropped_edges=len(edges) - len(among),
        internal_hidden=internal_hidden,
    )


def _first_words(text: str) -> str:
    words = text.split()
    head = " ".join(words[:LABEL_WORDS])
    return f"“{head}…”" if len(words) > LABEL_WORDS else f"“{head}”"


def human_labels(nodes: Sequence[Node]) -> dict[UUID, str]:
    """A readable name per node: its own name, except that pasted text's ``text_<hash>`` names
    are replaced. A document gets its source file name or the first words of its first chunk; a
    chunk named after it (``text_<hash>#0``) the first words of its own text; any other name
    that mentions it ("summary of ...", "context of ...") the document's label instead."""
    first_chunk: dict[UUID, tuple[int, str]] = {}
    for n in nodes:
        if n.type != NodeType.CHUNK.value or not n.text.strip():
            continue
        index = n.properties.get("chunk_index")
        order = index if isinstance(index, int) else 1 << 30
        for data_id in n.data_ids:
            if data_id not in first_chunk or order < first_chunk[data_id][0]:
                first_chunk[data_id] = (order, n.text)
    doc_label: dict[str, str] = {}
    for n in nodes:
        if n.type == NodeType.DOCUMENT.value and _HASH_NAME.fullmatch(n.name):
            source = n.properties.get("source_path")
            if (
                isinstance(source, str)
                and source
                and not _HASH_NAME.fullmatch(PurePath(source).stem)
            ):
                doc_label[n.name] = PurePath(source).name
            elif n.id in first_chunk:
                doc_label[n.name] = _first_words(first_chunk[n.id][1])
    names: dict[UUID, str] = {}
    for n in nodes:
        label = n.name
        if n.type == NodeType.CHUNK.value and _HASH_NAME.search(n.name) and n.text.strip():
            label = _first_words(n.text)
        elif n.name in doc_label:
            label = doc_label[n.name]
        else:
            label = _HASH_NAME.sub(lambda m: doc_label.get(m.group(0), m.group(0)), n.name)
        names[n.id] = label
    return names
