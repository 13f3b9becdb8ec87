"""dlt resources and sources, and CSV files by primary key, through remember() and add(), as in
cognee's dlt_ingestion_example: each row becomes a document, the write disposition decides what
a later load does to the rows already there, and recall finds the rows. Runs on PostgreSQL too
(tests/postgres/test_api.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import dlt
import pytest

import engramdb
from engramdb import SearchType
from engramdb.engine import get_engine
from engramdb.models.records import DataRecord

PETS = [
    {
        "id": 1,
        "name": "Alice",
        "pets": [
            {"id": 1, "name": "Fluffy", "type": "cat"},
            {"id": 2, "name": "Spot", "type": "dog"},
        ],
    },
    {"id": 2, "name": "Bob", "pets": [{"id": 3, "name": "Fido", "type": "dog"}]},
]
#: The options cognee's example passes with every dlt call.
KW: dict[str, Any] = {"primary_key": "id", "self_improvement": False}


def _resource(rows: list[dict[str, Any]], name: str = "inventory", **hints: Any) -> Any:
    @dlt.resource(name=name, **hints)
    def rows_of() -> Any:
        yield rows

    return rows_of


def _stock(*rows: tuple[int, str, int]) -> list[dict[str, Any]]:
    return [{"id": i, "product": p, "stock": s} for i, p, s in rows]


async def _records(dataset: str) -> list[DataRecord]:
    owner = await get_engine().resolve_user(None)
    found = await get_engine().store.find_dataset(owner.id, dataset)
    assert found is not None, f"no dataset {dataset}"
    return sorted(await get_engine().store.list_data(found.id), key=lambda r: r.name)


async def _texts(query: str, dataset: str, top_k: int = 10) -> list[str]:
    """The chunks full-text search finds for ``query`` that hold it (the tests' embedder is
    not semantic)."""
    found = await engramdb.recall(query, SearchType.CHUNKS_LEXICAL, datasets=[dataset], top_k=top_k)
    return [str(r.text) for r in found if query in str(r.text)]


async def _facts(dataset: str) -> set[tuple[str, str, str]]:
    graph = await engramdb.get_graph([dataset])
    names = {n.id: n.name for n in graph.nodes}
    return {(names[e.source_id], e.relation, names[e.target_id]) for e in graph.edges}


async def test_each_row_of_a_resource_is_a_document_with_its_nested_rows() -> None:
    result = await engramdb.remember(_resource(PETS, "users_and_pets"), "pets", **KW)
    assert result.status == "completed"
    records = await _records("pets")
    assert [r.name for r in records] == [
        "dlt:users_and_pets:users_and_pets:1",
        "dlt:users_and_pets:users_and_pets:2",
    ]
    assert records[0].external_metadata == {
        "dlt_source": "users_and_pets",
        "dlt_table": "users_and_pets",
        "dlt_primary_key": "1",
    }
    (alice,) = await _texts("Fluffy", "pets")
    assert "name: Alice" in alice and "name: Spot, type: dog" in alice
    facts = await _facts("pets")
    assert {("Alice", "pets", "Fluffy"), ("Alice", "pets", "Spot")} <= facts
    assert ("Bob", "pets", "Fido") in facts
    question = "Which pet does Alice have?"
    answer = await engramdb.recall(question, datasets=["pets"], only_context=True)
    assert "Fluffy" in str(answer[0].text)


async def test_merge_upserts_by_primary_key_and_keeps_the_other_rows() -> None:
    first = _stock((1, "Widget A", 100), (2, "Widget B", 50))
    await engramdb.remember(_resource(first), "shop", write_disposition="merge", **KW)
    again = await engramdb.remember(_resource(first), "shop", write_disposition="merge", **KW)
    assert [i.status for i in again.items] == ["skipped", "skipped"]
    second = _stock((1, "Widget A", 200), (3, "Widget C", 75))
    await engramdb.remember(_resource(second), "shop", write_disposition="merge", **KW)
    records = await _records("shop")
    assert [r.external_metadata["dlt_primary_key"] for r in records] == ["1", "2", "3"]
    assert await _texts("200", "shop") and not await _texts("100", "shop")
    assert await _texts("Widget B", "shop")  # not in the second load: kept


async def test_replace_forgets_the_rows_the_new_load_no_longer_holds() -> None:
    first = _stock((1, "Widget A", 100), (2, "Widget B", 50))
    await engramdb.remember(_resource(first), "shop", write_disposition="replace", **KW)
    second = _stock((1, "Widget A", 200), (3, "Widget C", 75))
    await engramdb.remember(_resource(second), "shop", **KW)  # replace is cognee's default
    records = await _records("shop")
    assert [r.external_metadata["dlt_primary_key"] for r in records] == ["1", "3"]
    assert not await _texts("Widget B", "shop") and not await _texts("100", "shop")
    # another source of the dataset is its own table: loading it leaves these rows alone
    await engramdb.remember(_resource(_stock((9, "Gadget", 1)), "gadgets"), "shop", **KW)
    assert len(await _records("shop")) == 3


async def test_append_keeps_every_version_but_never_the_same_row_twice() -> None:
    events = [{"id": 1, "event": "login", "user": "Alice"}]
    append = {**KW, "write_disposition": "append"}
    for _ in range(2):
        await engramdb.remember(_resource(events, "events"), "log", **append)
    changed = [{"id": 1, "event": "logout", "user": "Alice"}]
    await engramdb.remember(_resource(changed, "events"), "log", **append)
    assert len(await _records("log")) == 2
    assert await _texts("login", "log") and await _texts("logout", "log")


async def test_rows_sharing_a_key_are_all_kept_except_under_merge() -> None:
    rows = _stock((1, "Widget A", 1), (1, "Widget B", 2))
    await engramdb.remember(_resource(rows), "kept", **KW)
    assert len(await _records("kept")) == 2
    await engramdb.remember(_resource(rows), "merged", write_disposition="merge", **KW)
    assert len(await _records("merged")) == 1
    assert await _texts("Widget B", "merged") and not await _texts("Widget A", "merged")


async def test_an_incremental_resource_loaded_again_adds_only_its_new_rows() -> None:
    rows = _stock((1, "Widget A", 100), (2, "Widget B", 50))

    # dlt declares a cursor as the default of an argument
    @dlt.resource(name="stock", primary_key="id", write_disposition="merge")
    def stock(updated: Any = dlt.sources.incremental("id", initial_value=0)) -> Any:  # noqa: B008
        yield from rows

    await engramdb.remember(stock, "shop", self_improvement=False)
    rows.append({"id": 3, "product": "Widget C", "stock": 75})
    result = await engramdb.remember(stock, "shop", self_improvement=False)
    assert sorted(i.status for i in result.items) == ["ingested", "skipped", "skipped"]
    assert [r.external_metadata["dlt_primary_key"] for r in await _records("shop")] == [
        "1",
        "2",
        "3",
    ]


async def test_a_dlt_source_loads_each_of_its_resources(tmp_path: Path) -> None:
    @dlt.source(name="crm")
    def crm() -> Any:
        return _resource(PETS, "users"), _resource(_stock((1, "Widget A", 5)), "products")

    await engramdb.remember(crm(), "crm", **KW)
    tables = {r.external_metadata["dlt_table"] for r in await _records("crm")}
    assert tables == {"users", "products"}
    await engramdb.remember(crm, "crm", **KW)  # the source function itself, not called
    assert len(await _records("crm")) == 3


async def test_a_csv_file_with_a_primary_key_loads_one_document_per_row(tmp_path: Path) -> None:
    csv = tmp_path / "employees.csv"
    csv.write_text("id,name,department\n1,Alice,Engineering\n2,Bob,Sales\n")
    await engramdb.remember(str(csv), "staff", **KW)
    assert [r.name for r in await _records("staff")] == [
        "dlt:employees:employees:1",
        "dlt:employees:employees:2",
    ]
    (row,) = await _texts("Engineering", "staff")
    assert "name: Alice" in row and "Bob" not in row
    await engramdb.remember(str(csv), "plain", self_improvement=False)  # no table options
    assert [r.name for r in await _records("plain")] == ["employees.csv"]


async def test_cognees_remember_and_add_take_the_examples_options() -> None:
    from engramdb.compat import cognee

    example = {"primary_key": "id", "incremental_loading": False, "self_improvement": False}
    await cognee.remember(["Diana joined with her cat Luna.", _resource(PETS, "users")], **example)
    await cognee.add(_resource(_stock((1, "Widget A", 5))), "shop", write_disposition="append")
    await cognee.cognify(["shop"])
    names = [r.name for r in await _records("main_dataset")]
    assert sum(n.startswith("dlt:users:users:") for n in names) == 2 and len(names) == 3
    assert await _texts("Widget A", "shop")


async def test_incremental_loading_false_builds_present_content_again() -> None:
    text = "Ada Lovelace wrote the first program."
    await engramdb.remember(text, "notes", self_improvement=False)
    before = await _records("notes")
    result = await engramdb.remember(
        text, "notes", incremental_loading=False, self_improvement=False
    )
    assert [i.status for i in result.items] == ["ingested"]
    after = await _records("notes")
    assert len(after) == 1 and after[0].created_at >= before[0].created_at


async def test_add_stages_rows_and_a_later_merge_replaces_the_staged_version() -> None:
    first = _stock((1, "Widget A", 100))
    await engramdb.add(_resource(first), "shop", primary_key="id", write_disposition="merge")
    second = _stock((1, "Widget A", 200))
    await engramdb.add(_resource(second), "shop", primary_key="id", write_disposition="merge")
    await engramdb.cognify(["shop"])
    (record,) = await _records("shop")
    assert record.external_metadata["dlt_primary_key"] == "1"
    assert await _texts("200", "shop") and not await _texts("100", "shop")


async def test_table_options_without_a_table_and_bad_rows_are_refused() -> None:
    with pytest.raises(engramdb.EngramValidationError, match="dlt resources"):
        await engramdb.remember("just a note", primary_key="id", self_improvement=False)
    with pytest.raises(engramdb.EngramValidationError, match="write_disposition"):
        await engramdb.remember(_resource(PETS), write_disposition="upsert", **KW)  # type: ignore[arg-type]
    with pytest.raises(engramdb.EngramValidationError, match="not a row"):
        await engramdb.remember(_resource([1, 2]), "shop", **KW)  # type: ignore[list-item]
    assert await engramdb.datasets.list_datasets() == []  # nothing was written


async def test_without_the_dlt_extra_a_csv_table_names_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    csv = tmp_path / "employees.csv"
    csv.write_text("id,name\n1,Alice\n")
    monkeypatch.setitem(sys.modules, "dlt", None)  # an import of dlt now raises ImportError
    with pytest.raises(engramdb.FeatureNotAvailableError, match=r"pip install 'engramdb\[dlt\]'"):
        await engramdb.remember(str(csv), "staff", **KW)


ORG_OWL = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:owl="http://www.w3.org/2002/07/owl#"
         xmlns:org="http://example.org/org#">
  <owl:Class rdf:about="http://example.org/org#Employee"/>
  <owl:Class rdf:about="http://example.org/org#NodeSet"/>
  <owl:ObjectProperty rdf:about="http://example.org/org#inNodeSet"/>
  <owl:NamedIndividual rdf:about="http://example.org/org#Female">
    <rdf:type rdf:resource="http://example.org/org#NodeSet"/>
  </owl:NamedIndividual>
  <owl:NamedIndividual rdf:about="http://example.org/org#Alice">
    <rdf:type rdf:resource="http://example.org/org#Employee"/>
    <org:inNodeSet rdf:resource="http://example.org/org#Female"/>
  </owl:NamedIndividual>
</rdf:RDF>
"""


async def test_rows_gain_what_the_ontology_says_of_the_individuals_they_name(
    tmp_path: Path,
) -> None:
    from engramdb.compat.cognee.modules.ontology.rdf_xml.RDFLibOntologyResolver import (
        RDFLibOntologyResolver,
    )

    csv = tmp_path / "employees.csv"
    csv.write_text("id,name,department\n1,Alice,Engineering\n2,Bob,Sales\n")
    owl = tmp_path / "org.owl"
    owl.write_text(ORG_OWL)
    config = {"ontology_config": {"ontology_resolver": RDFLibOntologyResolver(str(owl))}}
    await engramdb.remember(str(csv), "staff", config=config, **KW)
    facts = await _facts("staff")
    assert ("Alice", "in_node_set", "Female") in facts
    assert not any(f[0] == "Bob" and f[2] == "Female" for f in facts)
