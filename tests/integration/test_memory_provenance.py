"""cognee's get_memory_provenance_graph in the shape its guide reads it, and without leaks."""

from __future__ import annotations

from collections import defaultdict

import engramdb

FLEET = "Carlos drives for Echo Global Logistics and files a dispatch log each morning."
DRIVERS = "Mika is a driver at Landstar. Priya reviews driver records every quarter."


async def test_users_own_datasets_contain_files_that_mention_memories() -> None:
    await engramdb.remember(FLEET, dataset_name="fleet_ops", self_improvement=False)
    await engramdb.remember(DRIVERS, dataset_name="driver_records", self_improvement=False)
    nodes, edges = await engramdb.get_memory_provenance_graph(include_memory=True)
    name = {node_id: props["name"] for node_id, props in nodes}
    kind = {node_id: props["type"] for node_id, props in nodes}
    targets = defaultdict(list)
    for source, target, relation, _ in edges:
        targets[(relation, source)].append(target)
    (user,) = [n for n, t in kind.items() if t == "User"]
    owned = sorted(name[d] for d in targets[("owns", user)])
    assert owned == ["driver_records", "fleet_ops"]
    fleet = next(d for d in targets[("owns", user)] if name[d] == "fleet_ops")
    (document,) = targets[("contains", fleet)]
    assert kind[document] == "TextDocument"
    mentioned = {name[m] for m in targets[("mentions", document)]}
    assert "Carlos" in mentioned and "Mika" not in mentioned

    bare, bare_edges = await engramdb.get_memory_provenance_graph()
    assert not any(relation == "mentions" for _, _, relation, _ in bare_edges)
    assert {props["type"] for _, props in bare} == {"User", "Dataset", "TextDocument"}


async def test_another_users_datasets_never_appear() -> None:
    other = await engramdb.create_user("other@example.com")
    await engramdb.remember(FLEET, dataset_name="secret_fleet", user=other, self_improvement=False)
    await engramdb.remember(DRIVERS, dataset_name="mine", self_improvement=False)
    nodes, _ = await engramdb.get_memory_provenance_graph(include_memory=True)
    names = {props["name"] for _, props in nodes}
    assert "secret_fleet" not in names and "Carlos" not in names
    assert "other@example.com" not in names
    mine, _ = await engramdb.get_memory_provenance_graph(user=other)
    assert {props["name"] for _, props in mine if props["type"] == "Dataset"} == {"secret_fleet"}
