"""Which entities are the same thing: clusters of near-duplicate entities and their survivors.

Pure functions over entity nodes and their name embeddings (no store, no I/O), used by
:func:`engramdb.api.consolidate.consolidate_entities`. The rules are the reference's
(``consolidate_entities_pipeline``):

* two entities are duplicates when the cosine similarity of their name embeddings reaches the
  threshold (each entity compared with its ``top_k`` nearest), or -- with ``name_match`` --
  when their names are equal once lower-cased with everything but letters and digits removed;
  duplicates of duplicates are one cluster;
* only entities of one entity type are merged, unless ``allow_cross_type``; entities whose type
  is protected are never candidates;
* the survivor of a cluster is its most connected member (fewest edges to move), ties broken by
  the normalised name, then the id; it takes the distinct descriptions of every member, in
  that order, and the union of their node sets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engramdb.models.records import Node

__all__ = [
    "ClusterOptions",
    "entity_kind",
    "find_clusters",
    "match_key",
    "merged_properties",
    "order_cluster",
]

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True, slots=True)
class ClusterOptions:
    similarity_threshold: float = 0.85
    name_match: bool = True
    top_k: int = 10
    allow_cross_type: bool = False


def match_key(name: str) -> str:
    """The name compared by ``name_match``: lower-case letters and digits only ("U.S.A." and
    "usa" match)."""
    return _NOT_ALNUM.sub("", name.lower())


def entity_kind(node: Node) -> str:
    """The entity's type, compared case-insensitively ("" when it has none)."""
    return str(node.properties.get("entity_type") or "").lower()


def find_clusters(
    entities: Sequence[Node], vectors: npt.NDArray[np.float32], options: ClusterOptions
) -> list[list[Node]]:
    """Clusters of two or more duplicates, each in the order of ``entities``; ``vectors`` has
    one row (the name embedding) per entity."""
    count = len(entities)
    if count < 2:
        return []
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(a: int, b: int) -> None:
        if not options.allow_cross_type and entity_kind(entities[a]) != entity_kind(entities[b]):
            return
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for a, b in _similar_pairs(vectors, options.similarity_threshold, options.top_k):
        join(a, b)
    if options.name_match:
        first: dict[str, int] = {}
        for i, node in enumerate(entities):
            key = match_key(node.name)
            if key:
                join(first.setdefault(key, i), i)
    groups: dict[int, list[Node]] = {}
    for i, node in enumerate(entities):
        groups.setdefault(root(i), []).append(node)
    return [group for group in groups.values() if len(group) > 1]


def _similar_pairs(
    vectors: npt.NDArray[np.float32], threshold: float, top_k: int
) -> list[tuple[int, int]]:
    """Index pairs whose cosine similarity is at least ``threshold``, each row compared with its
    ``top_k`` most similar others (computed in blocks of rows: memory stays ~512 x N)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    count = matrix.shape[0]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0, 1.0, norms)
    keep = min(top_k, count - 1)
    pairs: list[tuple[int, int]] = []
    for start in range(0, count, 512):
        block = unit[start : start + 512] @ unit.T
        for offset, row in enumerate(block):
            i = start + offset
            row[i] = -np.inf
            nearest = np.argpartition(-row, keep - 1)[:keep] if keep < count - 1 else range(count)
            pairs += [(i, int(j)) for j in nearest if j != i and row[j] >= threshold]
    return pairs


def order_cluster(cluster: Sequence[Node], degree: Mapping[object, int]) -> list[Node]:
    """The cluster with its survivor first: most edges, then normalised name, then id."""
    return sorted(cluster, key=lambda n: (-degree.get(n.id, 0), match_key(n.name), str(n.id)))


def merged_properties(
    survivor: Node, absorbed: Sequence[Node]
) -> tuple[str | None, dict[str, object]]:
    """The survivor's description (the members' distinct descriptions joined, or None when
    none has one) and properties: its own, with that description, every member's node sets
    and the absorbed names as ``aliases``."""
    members = [survivor, *absorbed]
    descriptions: list[str] = []
    for node in members:
        text = str(node.properties.get("description") or "").strip()
        if text and text not in descriptions:
            descriptions.append(text)
    node_set: list[str] = []
    for node in members:
        node_set += [str(t) for t in node.properties.get("node_set") or [] if t not in node_set]
    aliases = [str(a) for a in survivor.properties.get("aliases") or []]
    for node in absorbed:
        for name in [node.name, *(node.properties.get("aliases") or [])]:
            if name and name != survivor.name and name not in aliases:
                aliases.append(str(name))
    properties: dict[str, object] = {**survivor.properties, "node_set": node_set}
    if aliases:
        properties["aliases"] = aliases
    description = " ".join(descriptions) if descriptions else None
    if description is not None:
        properties["description"] = description
    return description, properties
