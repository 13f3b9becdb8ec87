"""Ontologies through the public surface, in cognee's shapes: ``cognify(ontology_file_path=...)``
and ``remember(config={"ontology_config": {"ontology_resolver": RDFLibOntologyResolver(...)}})``
ground extraction in a local OWL file. Runs on PostgreSQL too (tests/postgres/test_api.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engramdb
from engramdb.compat.cognee.modules.ontology.ontology_config import Config
from engramdb.compat.cognee.modules.ontology.rdf_xml.RDFLibOntologyResolver import (
    RDFLibOntologyResolver,
)
from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
from engramdb.ontology.grounding import ground

OWL = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"
         xmlns:owl="http://www.w3.org/2002/07/owl#"
         xmlns:ex="http://example.org/cars#">
  <owl:Class rdf:about="http://example.org/cars#CarManufacturer"/>
  <owl:Class rdf:about="http://example.org/cars#Car"/>
  <owl:ObjectProperty rdf:about="http://example.org/cars#produces"/>
  <ex:CarManufacturer rdf:about="http://example.org/cars#Audi">
    <ex:produces rdf:resource="http://example.org/cars#Audi_R8"/>
  </ex:CarManufacturer>
  <ex:Car rdf:about="http://example.org/cars#Audi_R8"/>
  <ex:Car rdf:about="http://example.org/cars#e-tron">
    <rdfs:label>e-tron</rdfs:label>
  </ex:Car>
</rdf:RDF>
"""
TEXT = "The Audi R8 and the e-tron were shown in Berlin by Audi."


def _owl(tmp_path: Path) -> Path:
    """The ontology file (a helper, not a fixture: tests/postgres re-runs these tests)."""
    path = tmp_path / "cars.owl"
    path.write_text(OWL)
    return path


async def _entities() -> dict[str, str]:
    graph = await engramdb.get_graph()
    types = {n.id: n.name for n in graph.nodes if n.type == "EntityType"}
    by_id = {n.id: n.name for n in graph.nodes if n.type == "Entity"}
    found = {name: "" for name in by_id.values()}
    for edge in graph.edges:
        if edge.relation == "is_a" and edge.source_id in by_id:
            found[by_id[edge.source_id]] = types.get(edge.target_id, "")
    return found


async def _relations() -> set[tuple[str, str, str]]:
    graph = await engramdb.get_graph()
    names = {n.id: n.name for n in graph.nodes}
    return {(names[e.source_id], e.relation, names[e.target_id]) for e in graph.edges}


async def test_cognify_with_an_ontology_file_grounds_the_offline_extraction(tmp_path: Path) -> None:
    owl = _owl(tmp_path)
    await engramdb.add(TEXT)
    await engramdb.cognify(ontology_file_path=str(owl))
    entities = await _entities()
    assert entities["Audi"] == "car_manufacturer"
    assert entities["Audi R8"] == "car" and entities["e-tron"] == "car"
    assert ("Audi", "produces", "Audi R8") in await _relations()
    assert "Berlin" in entities  # what the ontology does not know is still extracted


async def test_remember_with_cognees_config_and_strict_mode(tmp_path: Path) -> None:
    owl = _owl(tmp_path)
    config: Config = {"ontology_config": {"ontology_resolver": RDFLibOntologyResolver(str(owl))}}
    await engramdb.remember(TEXT, "annotated", config=config, self_improvement=False)
    strict: Config = {
        "ontology_config": {
            "ontology_resolver": RDFLibOntologyResolver(ontology_file=[str(owl)]),
            "ontology_mode": "strict",
        }
    }
    await engramdb.remember(TEXT, "strict", config=strict, self_improvement=False)
    (hit,) = await engramdb.search(
        "Audi R8", query_type=engramdb.SearchType.CHUNKS, datasets=["strict"], top_k=1
    )
    graph = await engramdb.get_graph(["strict"])
    names = {n.name for n in graph.nodes if n.type == "Entity"}
    assert names == {"Audi", "Audi R8", "e-tron"}  # Berlin is not in the ontology
    assert hit["text"] == TEXT


def test_grounding_gives_an_llms_entities_the_ontologys_names_and_types(tmp_path: Path) -> None:
    owl = _owl(tmp_path)
    resolver = RDFLibOntologyResolver(ontology_file=str(owl))
    assert resolver.find_closest_match("audi r8", "individuals") == "audi_r8"
    llm_said = ChunkExtraction(
        entities=[ExtractedEntity("audi r8", "VEHICLE"), ExtractedEntity("Audi AG", "COMPANY")],
        relations=[ExtractedRelation("Audi AG", "makes", "audi r8")],
    )
    grounded = ground(resolver, "audi r8 by Audi AG", llm_said)
    kinds = {e.name: e.type for e in grounded.entities}
    assert kinds["Audi R8"] == "CAR"
    assert ExtractedRelation("Audi AG", "makes", "Audi R8") in grounded.relations


async def test_what_cannot_be_used_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    owl = _owl(tmp_path)
    bad = owl.with_name("bad.owl")
    bad.write_text("<rdf:RDF not xml")
    with pytest.raises(engramdb.EngramValidationError, match=r"bad\.owl"):
        RDFLibOntologyResolver(ontology_file=str(bad))
    with pytest.warns(UserWarning, match="not found"):
        empty = RDFLibOntologyResolver(ontology_file=str(owl.with_name("missing.owl")))
    assert empty.is_empty()
    with pytest.raises(engramdb.FeatureNotAvailableError, match="config keys"):
        await engramdb.remember(TEXT, config={"graph_config": {}}, self_improvement=False)
    monkeypatch.setitem(sys.modules, "rdflib", None)
    with pytest.raises(engramdb.FeatureNotAvailableError, match=r"engramdb\[ontology\]"):
        RDFLibOntologyResolver(ontology_file=str(owl))


async def test_the_ontology_file_path_setting_grounds_every_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    owl = _owl(tmp_path)
    monkeypatch.setenv("ONTOLOGY_FILE_PATH", str(owl))
    monkeypatch.setenv("ONTOLOGY_MODE", "strict")
    engramdb.config.reset()
    await engramdb.remember(TEXT, self_improvement=False)
    assert set(await _entities()) == {"Audi", "Audi R8", "e-tron"}
