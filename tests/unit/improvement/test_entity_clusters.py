"""Which entities consolidate_entities_pipeline merges, and which one survives (pure rules)."""

from __future__ import annotations

from uuid import uuid4

import numpy as np

from engramdb.improvement.entity_clusters import (
    ClusterOptions,
    find_clusters,
    match_key,
    merged_properties,
    order_cluster,
)
from engramdb.models.records import Node


def _entity(name: str, kind: str = "PLACE", **properties: object) -> Node:
    props = {"entity_type": kind, **properties}
    return Node(id=uuid4(), dataset_id=uuid4(), type="Entity", name=name, properties=props)


def _names(clusters: list[list[Node]]) -> list[set[str]]:
    return [{n.name for n in c} for c in clusters]


def test_names_equal_but_for_case_and_punctuation_match() -> None:
    assert match_key("U.S.A.") == match_key("usa") == "usa"
    a, b, c = _entity("U.S.A"), _entity("USA"), _entity("Canada")
    vectors = np.eye(3, dtype=np.float32)  # nothing similar by embedding
    assert _names(find_clusters([a, b, c], vectors, ClusterOptions())) == [{"U.S.A", "USA"}]
    assert find_clusters([a, b, c], vectors, ClusterOptions(name_match=False)) == []


def test_similar_name_embeddings_cluster_transitively_within_one_type() -> None:
    nyc, city, big, person = (
        _entity("NYC"),
        _entity("New York City"),
        _entity("Big Apple"),
        _entity("Nyc", kind="PERSON"),
    )
    vectors = np.array([[1, 0.0], [0.9, 0.44], [0.62, 0.78], [1, 0.0]], dtype=np.float32)
    # NYC~city (0.90), city~apple (0.90), NYC~apple (0.62): one cluster through the middle
    found = find_clusters([nyc, city, big, person], vectors, ClusterOptions(0.85, False))
    assert _names(found) == [{"NYC", "New York City", "Big Apple"}]  # the PERSON is left out
    crossing = ClusterOptions(0.85, name_match=False, allow_cross_type=True)
    assert _names(find_clusters([nyc, city, big, person], vectors, crossing)) == [
        {"NYC", "New York City", "Big Apple", "Nyc"}
    ]


def test_top_k_bounds_the_neighbours_compared() -> None:
    """Each entity is compared with its top_k most similar others only: at 0°, 1°, 3° and 4°
    with a threshold of cos 2.56°, the 1°-3° pair links the two tight pairs only when more
    than the nearest neighbour is compared."""
    entities = [_entity(f"E{i}") for i in range(4)]
    angles = np.radians([0.0, 1.0, 3.0, 4.0])
    vectors = np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)
    every = find_clusters(entities, vectors, ClusterOptions(0.999, False, top_k=10))
    assert _names(every) == [{"E0", "E1", "E2", "E3"}]
    nearest = find_clusters(entities, vectors, ClusterOptions(0.999, False, top_k=1))
    assert _names(nearest) == [{"E0", "E1"}, {"E2", "E3"}]


def test_the_most_connected_survives_and_takes_the_others_descriptions() -> None:
    a = _entity("USA", description="A country.", node_set=["geo"])
    b = _entity("U.S.A", description="A federal republic.", node_set=["news"])
    survivor, absorbed = order_cluster([a, b], {b.id: 3, a.id: 1})
    assert (survivor, absorbed) == (b, a)
    description, properties = merged_properties(survivor, [absorbed])
    assert description == "A federal republic. A country."
    assert properties["aliases"] == ["USA"] and properties["node_set"] == ["news", "geo"]
    # equal degrees and match keys: the smaller id survives, whatever the order given
    first = min(a, b, key=lambda n: str(n.id))
    assert order_cluster([a, b], {})[0] is first and order_cluster([b, a], {})[0] is first
