"""remember() links the mentions of one person to one entity node, within a document (titles,
surname, first name) and across documents (the same name with a title or another spelling)."""

from __future__ import annotations

import engramdb
from engramdb.models.records import Node, NodeType

TEXT = (
    "Dr. Jane Smith joined the Mayo Clinic in 2010. Smith studied medicine in Boston. "
    "Colleagues say Jane likes tennis."
)


async def _people(dataset: str) -> list[Node]:
    graph = await engramdb.get_graph([dataset])
    return [
        n
        for n in graph.nodes_of_type(NodeType.ENTITY)
        if n.properties.get("entity_type") == "PERSON"
    ]


async def test_title_surname_and_first_name_are_one_entity_with_aliases() -> None:
    await engramdb.remember(TEXT, dataset_name="people", self_improvement=False)
    people = await _people("people")
    assert [p.name for p in people] == ["Jane Smith"]
    assert set(people[0].properties["aliases"]) >= {"Smith", "Jane"}
    graph = await engramdb.get_graph(["people"])
    names = {n.id: n.name for n in graph.nodes}
    relations = {(names[e.source_id], names[e.target_id]) for e in graph.edges}
    # What the text says of "Smith" is said of Jane Smith.
    assert ("Jane Smith", "Boston") in relations


async def test_people_sharing_a_surname_stay_apart() -> None:
    await engramdb.remember(
        "John Smith and Mary Smith live in Leeds. Smith is a doctor.",
        dataset_name="family",
        self_improvement=False,
    )
    names = sorted(p.name for p in await _people("family"))
    assert "John Smith" in names and "Mary Smith" in names
    for person in await _people("family"):
        assert "Smith" not in person.properties.get("aliases", [])


async def test_a_later_document_reaches_the_same_node_and_adds_its_spellings() -> None:
    await engramdb.remember(TEXT, dataset_name="clinic", self_improvement=False)
    await engramdb.remember(
        "JANE SMITH gave a lecture in Chicago.", dataset_name="clinic", self_improvement=False
    )
    people = await _people("clinic")
    assert [p.name for p in people] == ["Jane Smith"]
    assert "JANE SMITH" in people[0].properties["aliases"]
    graph = await engramdb.get_graph(["clinic"])
    contains = [e for e in graph.edges if e.relation == "contains" and e.target_id == people[0].id]
    assert len(contains) == 2  # both documents' chunks point at the one node
