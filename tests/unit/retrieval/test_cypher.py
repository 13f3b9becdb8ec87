"""CYPHER: the read-only Cypher subset (parser, planner, executor, retriever).

The graph is built through ``engramdb.remember`` with the offline extractor and the fake
embedder, exactly as a user would build it; every test that queries it runs on both stores
(``backend``: the embedded SQLite file and a fresh schema of the PostgreSQL test server).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import pytest

import engramdb
from engramdb.engine import get_engine, set_engine
from engramdb.errors import EngramValidationError
from engramdb.models.records import Dataset
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.retrieval.cypher import (
    MAX_LIMIT,
    CypherSyntaxError,
    CypherTimeoutError,
    CypherUnsupportedError,
    SqliteDialect,
    backend_for,
    compile_query,
    parse,
    run_cypher,
)
from engramdb.retrieval.cypher.backend import PostgresDialect
from engramdb.retrieval.retrievers.cypher import CypherRetriever
from engramdb.settings import config as settings_config
from engramdb.storage.capabilities import Capability
from tests.postgres import server
from tests.postgres.server import PostgresServer

postgres_server = server.postgres_server  # the session fixture, visible to this module

PEOPLE = [
    "Alice moved to Paris in 2010, while Bob has always lived in New York.",
    "Andreas was born in Venice, but later settled in Lisbon.",
]
OTHER = ["Zelda was born in Oslo and later settled in Bergen."]


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
async def backend(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[str]:
    """The engine's store: the default SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "postgres":
        pg: PostgresServer = request.getfixturevalue("postgres_server")
        monkeypatch.setenv("ENGRAMDB_STORAGE_URL", pg.fresh_url())
        settings_config.reset()
        set_engine(None)
    yield request.param
    if request.param == "postgres":
        await get_engine().close()


@pytest.fixture
async def graph(backend: str) -> dict[str, Dataset]:
    """Two datasets: "people" (the queries' target) and "other" (must never leak in)."""
    await engramdb.remember(PEOPLE, dataset_name="people", node_set=["hr"])
    await engramdb.remember(OTHER, dataset_name="other")
    store = get_engine().store
    assert store.supports(Capability.CYPHER) and store.dialect.name == backend
    owner = await store.get_or_create_default_user()
    found = {}
    for name in ("people", "other"):
        dataset = await store.find_dataset(owner.id, name)
        assert dataset is not None
        found[name] = dataset
    return found


async def _rows(
    query: str, datasets: list[Dataset], params: dict[str, Any] | None = None, **limits: int
) -> list[dict[str, Any]]:
    backend = backend_for(get_engine().store)
    result = await run_cypher(backend, query, [d.id for d in datasets], params, **limits)
    return result.rows


def _ctx(datasets: list[Dataset]) -> RetrievalContext:
    engine = get_engine()
    owner_id = datasets[0].owner_id
    from engramdb.models.records import User, utcnow

    user = User(id=owner_id, email="default@engramdb.local", created_at=utcnow())
    return RetrievalContext(
        store=engine.store,
        embedder=engine.embedder,
        llm=None,
        settings=engine.settings,
        datasets=datasets,
        user=user,
    )


# --- supported queries return the right rows ---------------------------------------------------

TABLE: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    (
        "MATCH (n:Entity) WHERE n.entity_type = 'PERSON' RETURN n.name ORDER BY n.name",
        {},
        [{"n.name": "Alice"}, {"n.name": "Andreas"}, {"n.name": "Bob"}],
    ),
    (
        "MATCH (a:Entity {name: 'Andreas'})-[r]->(b:Entity) "
        "RETURN type(r) AS rel, b.name AS place ORDER BY place",
        {},
        [{"rel": "settle_in", "place": "Lisbon"}, {"rel": "born_in", "place": "Venice"}],
    ),
    (  # incoming direction
        "MATCH (p:Entity)<-[:born_in]-(a) RETURN a.name, p.name",
        {},
        [{"a.name": "Andreas", "p.name": "Venice"}],
    ),
    (  # undirected, parameter in the property map
        "MATCH (a:Entity {name: $who})-[r:live_in]-(b) RETURN b.name AS other",
        {"who": "New York"},
        [{"other": "Bob"}],
    ),
    (  # two hops, aggregation with implicit grouping, ORDER BY an alias DESC
        "MATCH (c:Chunk)-[:contains]->(e:Entity)-[:is_a]->(t:EntityType) "
        "RETURN t.name AS type, count(*) AS n ORDER BY n DESC, type",
        {},
        [{"type": "place", "n": 4}, {"type": "person", "n": 3}, {"type": "date", "n": 1}],
    ),
    (  # IN list, STARTS WITH, AND / OR / NOT, parentheses
        "MATCH (e:Entity) WHERE e.entity_type IN ['PLACE', 'DATE'] "
        "AND (e.name STARTS WITH 'L' OR e.name ENDS WITH 'ice' OR e.name = '2010') "
        "AND NOT e.name CONTAINS 'x' RETURN e.name ORDER BY e.name DESC",
        {},
        [{"e.name": "Venice"}, {"e.name": "Lisbon"}, {"e.name": "2010"}],
    ),
    (  # comparisons on columns, <> and >=, SKIP + LIMIT
        "MATCH (e:Entity) WHERE e.importance_weight >= 0.5 AND e.name <> 'Bob' "
        "RETURN e.name ORDER BY e.name SKIP 1 LIMIT 2",
        {},
        [{"e.name": "Alice"}, {"e.name": "Andreas"}],
    ),
    (  # list-valued property keeps its type; IN over a property list; DISTINCT
        "MATCH (c:Chunk) WHERE $tag IN c.node_set RETURN DISTINCT c.node_set AS tags",
        {"tag": "hr"},
        [{"tags": ["hr"]}],
    ),
    (  # IN $list, count(DISTINCT x), labels()
        "MATCH (d:Document)<-[:is_part_of]-(c) WHERE 'Chunk' IN labels(c) AND d.type IN $types "
        "RETURN count(DISTINCT d) AS docs, count(c) AS chunks",
        {"types": ["Document"]},
        [{"docs": 2, "chunks": 2}],
    ),
    (  # IS NULL / IS NOT NULL on a JSON property, toUpper
        "MATCH (e:Entity) WHERE e.description IS NOT NULL AND e.missing IS NULL "
        "AND e.name = 'Bob' RETURN toUpper(e.name) AS up, e.name = 'Bob' AS is_bob",
        {},
        [{"up": "BOB", "is_bob": True}],
    ),
    (  # min / max over a JSON number
        "MATCH (c:Chunk) RETURN min(c.chunk_index) AS lo, max(c.token_count) > 0 AS some",
        {},
        [{"lo": 0, "some": True}],
    ),
]


@pytest.mark.parametrize(("query", "params", "expected"), TABLE, ids=[q for q, _, _ in TABLE])
async def test_supported_queries(
    graph: dict[str, Dataset], query: str, params: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    assert await _rows(query, [graph["people"]], params) == expected


async def test_whole_nodes_and_relationships_are_json_dicts(graph: dict[str, Dataset]) -> None:
    rows = await _rows(
        "MATCH (a:Entity {name: 'Alice'})-[r:move_to]->(b) RETURN a, r, b.name", [graph["people"]]
    )
    assert len(rows) == 1
    alice, rel = rows[0]["a"], rows[0]["r"]
    assert alice["type"] == "Entity" and alice["name"] == "Alice"
    assert alice["properties"]["entity_type"] == "PERSON"
    assert alice["dataset_id"] == str(graph["people"].id)
    assert rel["relation"] == "move_to" and rel["source_id"] == alice["id"]
    assert set(alice) == {
        "id",
        "type",
        "name",
        "text",
        "properties",
        "importance_weight",
        "feedback_weight",
        "dataset_id",
    }


async def test_return_star_and_repeated_variable(graph: dict[str, Dataset]) -> None:
    rows = await _rows("MATCH (a:Entity {name: 'Bob'})-[r]->(b:Entity) RETURN *", [graph["people"]])
    assert [list(r) for r in rows] == [["a", "b", "r"]]  # alphabetical, as in Neo4j
    # (a)-[]->(x)<-[]-(a) needs two distinct relationships from a to x: none in this graph
    rows = await _rows("MATCH (a)-[r1]->(x)<-[r2]-(a) RETURN count(*) AS n", [graph["people"]])
    assert rows == [{"n": 0}]


# --- dataset isolation ---------------------------------------------------------------------------


async def test_every_node_and_edge_stays_in_the_recall_datasets(graph: dict[str, Dataset]) -> None:
    people, other = graph["people"], graph["other"]
    ids = await _rows("MATCH (n) RETURN DISTINCT n.dataset_id AS d", [people])
    assert ids == [{"d": str(people.id)}]
    edges = await _rows("MATCH ()-[r]-() RETURN DISTINCT r.dataset_id AS d", [people])
    assert edges == [{"d": str(people.id)}]
    zelda = await _rows("MATCH (n:Entity {name: 'Zelda'}) RETURN n.id AS id", [other])
    assert len(zelda) == 1
    # attempts to reach the other dataset from a recall on "people"
    attempts = [
        ("MATCH (n) WHERE n.dataset_id = $other RETURN n", {"other": str(other.id)}),
        ("MATCH (n {dataset_id: $other}) RETURN n.name", {"other": str(other.id)}),
        ("MATCH (n) WHERE n.id = $id RETURN n", {"id": zelda[0]["id"]}),
        ("MATCH (n {id: $id})-[r]-(m) RETURN m", {"id": zelda[0]["id"]}),
        ("MATCH (n:Entity) WHERE n.name = 'Zelda' OR n.name = 'Oslo' RETURN n", {}),
        ("MATCH (n) WHERE n.dataset_id <> $mine RETURN n", {"mine": str(people.id)}),
        ("MATCH ()-[r]->() WHERE r.dataset_id = $other RETURN r", {"other": str(other.id)}),
    ]
    for query, params in attempts:
        assert await _rows(query, [people], params) == [], query
    # both datasets when both are targeted
    both = await _rows("MATCH (n:Entity {name: 'Zelda'}) RETURN n.name", [people, other])
    assert both == [{"n.name": "Zelda"}]
    assert await _rows("MATCH (n) RETURN count(*) AS n", []) == []


async def test_values_are_bound_never_spliced(graph: dict[str, Dataset]) -> None:
    people = [graph["people"]]
    hostile = "x'); DROP TABLE nodes; --"
    escaped = hostile.replace("'", "\\'")
    assert await _rows(f"MATCH (n) WHERE n.name = '{escaped}' RETURN n", people) == []
    assert await _rows("MATCH (n) WHERE n.name = $v RETURN n", people, {"v": hostile}) == []
    with pytest.raises(CypherSyntaxError, match="cannot be used"):
        await _rows('MATCH (n) WHERE n.`a"b` = 1 RETURN n', people)
    count = await _rows("MATCH (n) RETURN count(*) AS n", people)
    assert count[0]["n"] > 0  # the table is still there


# --- writes and unsupported clauses are rejected ------------------------------------------------

WRITES = [
    ("CREATE (n:Entity {name: 'Eve'}) RETURN n", "CREATE"),
    ("MERGE (n:Entity {name: 'Eve'})", "MERGE"),
    ("MATCH (n:Entity) SET n.name = 'Eve' RETURN n", "SET"),
    ("MATCH (n) DELETE n", "DELETE"),
    ("MATCH (n) DETACH DELETE n", "DETACH"),
    ("MATCH (n) REMOVE n.name RETURN n", "REMOVE"),
    ("CALL db.labels()", "CALL"),
    ("LOAD CSV FROM 'file:///x.csv' AS row RETURN row", "LOAD CSV"),
    ("MATCH (n) FOREACH (x IN [1] | SET n.a = x)", "FOREACH"),
    ("MATCH (n) WHERE n.name = 'a' DELETE n", "DELETE"),
    ("MATCH (n) RETURN n; CREATE (m)", "CREATE"),
    ("match (n) detach delete n", "DETACH"),
]


@pytest.mark.parametrize(("query", "clause"), WRITES)
async def test_writes_are_rejected_by_name(
    graph: dict[str, Dataset], query: str, clause: str
) -> None:
    store = get_engine().store
    before = await store.count_nodes([graph["people"].id])
    with pytest.raises(CypherUnsupportedError) as info:
        await _rows(query, [graph["people"]])
    assert isinstance(info.value, EngramValidationError)
    assert info.value.clause == clause
    assert "read-only" in str(info.value) and clause in str(info.value)
    assert "docs/cypher.md" in str(info.value)
    assert await store.count_nodes([graph["people"].id]) == before


UNSUPPORTED = [
    ("OPTIONAL MATCH (n) RETURN n", "OPTIONAL MATCH"),
    ("MATCH (n) WITH n RETURN n", "WITH"),
    ("MATCH (n) RETURN n UNION MATCH (m) RETURN m", "UNION"),
    ("UNWIND [1, 2] AS x RETURN x", "UNWIND"),
    ("MATCH (a)-[*1..3]->(b) RETURN b", "variable-length"),
    ("MATCH (a)-[r:x*]->(b) RETURN b", "variable-length"),
    ("MATCH (a)-->(b)-->(c)-->(d) RETURN d", "more than 2 hops"),
    ("MATCH (a), (b) RETURN a", "more than one pattern"),
    ("MATCH (n) RETURN n.importance_weight + 1", "arithmetic"),
    ("MATCH (n) RETURN reverse(n.name)", "reverse()"),
    ("MATCH (n) WHERE n.a XOR n.b RETURN n", "XOR"),
    ("MATCH (n:A:B) RETURN n", "more than one label"),
    ("MATCH (n) MATCH (m) RETURN n", "a second MATCH clause"),
    ("MATCH (n) RETURN {a: 1}", "map literal"),
]


@pytest.mark.parametrize(("query", "fragment"), UNSUPPORTED)
def test_unsupported_features_are_named(query: str, fragment: str) -> None:
    with pytest.raises(CypherUnsupportedError) as info:
        parse(query)
    assert fragment in str(info.value)
    assert "docs/cypher.md" in str(info.value)
    assert "read-only" not in str(info.value)


# --- syntax errors carry their position ----------------------------------------------------------

SYNTAX = [
    ("MATCH (n RETURN n", 1, 10, "expected ')'"),
    ("MATCH (n)\nWHERE n.name =\nRETURN n", 3, 1, "expected an expression"),
    ("MATCH (n) WHERE n.name = 'abc RETURN n", 1, 26, "unterminated string"),
    ("MATCH (n) RETURN n ORDER n.name", 1, 26, "expected BY"),
    ("MATCH (n)\n  RETURN n LIMIT 'x'", 2, 18, "LIMIT must be a non-negative integer"),
    ("MATCH (n) RETURN n SKIP n.x", 1, 25, "SKIP takes an integer"),
    ("MATCH (n) RETURN m", 1, 18, "unknown variable 'm'"),
    ("MATCH (n) RETURN n.name, n.name", 1, 26, "two result columns"),
    ("MATCH (n) WHERE count(*) > 1 RETURN n", 1, 17, "not allowed in WHERE"),
    ("MATCH (n) RETURN n #", 1, 20, "unexpected character"),
    ("", 1, 1, "empty"),
]


@pytest.mark.parametrize(("query", "line", "column", "message"), SYNTAX)
async def test_syntax_errors_report_line_and_column(
    graph: dict[str, Dataset], query: str, line: int, column: int, message: str
) -> None:
    with pytest.raises(CypherSyntaxError) as info:
        await _rows(query, [graph["people"]])
    assert (info.value.line, info.value.column) == (line, column), str(info.value)
    assert message in str(info.value)
    assert f"line {line}, column {column}" in str(info.value)


async def test_missing_and_bad_parameters(graph: dict[str, Dataset]) -> None:
    with pytest.raises(CypherSyntaxError, match=r"parameter \$who was not given"):
        await _rows("MATCH (n {name: $who}) RETURN n", [graph["people"]])
    with pytest.raises(CypherSyntaxError, match="must be a string, number"):
        await _rows("MATCH (n {name: $who}) RETURN n", [graph["people"]], {"who": {"a": 1}})
    with pytest.raises(CypherSyntaxError, match="must be a list for IN"):
        await _rows("MATCH (n) WHERE n.name IN $who RETURN n", [graph["people"]], {"who": "x"})
    with pytest.raises(CypherSyntaxError, match="non-negative integer"):
        await _rows("MATCH (n) RETURN n LIMIT $k", [graph["people"]], {"k": -1})
    with pytest.raises(CypherSyntaxError, match="64-bit"):  # not an OverflowError (500)
        await _rows("MATCH (n {age: $a}) RETURN n", [graph["people"]], {"a": 2**70})


# --- bounded execution ---------------------------------------------------------------------------


async def test_limit_default_and_cap(graph: dict[str, Dataset]) -> None:
    people = [graph["people"]]
    backend = backend_for(get_engine().store)
    query = "MATCH (n) RETURN n.id ORDER BY n.id"
    capped = await run_cypher(backend, query, [people[0].id], default_limit=3, max_limit=5)
    assert len(capped.rows) == 3 and capped.truncated and capped.limit == 3
    over = await run_cypher(
        backend, query + " LIMIT 50", [people[0].id], default_limit=3, max_limit=5
    )
    assert len(over.rows) == 5 and over.truncated and over.limit == 5
    asked = await run_cypher(backend, query + " LIMIT 2", [people[0].id], default_limit=3)
    assert len(asked.rows) == 2 and not asked.truncated
    everything = await run_cypher(backend, query, [people[0].id])
    assert not everything.truncated and everything.limit == MAX_LIMIT
    compiled = compile_query(parse(query + " LIMIT 5000"), [people[0].id], {}, SqliteDialect())
    assert compiled.limit == MAX_LIMIT == 1000


async def test_time_budget_stops_a_runaway_query(graph: dict[str, Dataset]) -> None:
    backend = backend_for(get_engine().store)
    query = "MATCH (a)-[r1]-(b)-[r2]-(c) WHERE a.text <> c.text RETURN count(*)"
    with pytest.raises(CypherTimeoutError, match="longer than"):
        await run_cypher(backend, query, [graph["people"].id, graph["other"].id], timeout=0.0)
    # the connection is usable afterwards
    assert await _rows("MATCH (n:Document) RETURN count(*) AS n", [graph["people"]]) == [{"n": 2}]


def test_compiled_sql_filters_every_alias_by_dataset() -> None:
    query = parse("MATCH (a)-[r]->(b)<-[s]-(c) WHERE a.name CONTAINS 'x' RETURN a, c")
    compiled = compile_query(query, ["d1"], {}, SqliteDialect())
    for alias in ("n0", "n1", "n2", "e0", "e1"):
        assert f"{alias}.dataset_id IN (SELECT value FROM json_each(?))" in compiled.sql
    assert compiled.sql.startswith("SELECT ") and ";" not in compiled.sql
    assert "'x'" not in compiled.sql and "x" in compiled.params
    assert sqlite3.complete_statement(compiled.sql + ";")
    assert " CROSS JOIN " not in compiled.sql  # nothing pins a node: the planner chooses
    pinned = compile_query(
        parse("MATCH (a)-[r]->(b)<-[s]-(c) WHERE c.id = $id RETURN a"),
        ["d1"],
        {"id": "x"},
        SqliteDialect(),
    )
    # the join starts at the pinned node and walks the path back from it
    assert (
        "FROM nodes AS n2 CROSS JOIN edges AS e1 CROSS JOIN nodes AS n1 CROSS JOIN edges AS e0"
        in (pinned.sql)
    )


# --- the retriever ------------------------------------------------------------------------------


async def test_retriever_rows_and_only_context(graph: dict[str, Dataset]) -> None:
    ctx = _ctx([graph["people"]])
    query = "MATCH (a:Entity)-[r:born_in]->(b) RETURN a.name AS who, b AS place"
    opts = RecallOptions(query=query, search_type=SearchType.CYPHER, top_k=1)
    results = await CypherRetriever().retrieve(ctx, opts)
    assert len(results) == 1
    entry = results[0]
    assert entry.source == "graph" and entry.kind == "cypher_row"
    assert entry.search_type == "CYPHER" and entry.score is None
    assert entry.raw["who"] == "Andreas" and entry.raw["place"]["name"] == "Venice"
    assert entry.text == "who: Andreas | place: (:Entity Venice)"
    assert entry.dataset_id == graph["people"].id and entry.dataset_name == "people"
    assert entry.metadata["columns"] == ["who", "place"]
    assert entry.system_prompt is None

    many = RecallOptions(
        query="MATCH (e:Entity) RETURN e.name", search_type=SearchType.CYPHER, top_k=1
    )
    assert len(await CypherRetriever().retrieve(ctx, many)) == 8  # LIMIT decides, not top_k

    only = RecallOptions(query=query, search_type=SearchType.CYPHER, only_context=True)
    same = await CypherRetriever().retrieve(ctx, only)
    assert [r.model_dump() for r in same] == [r.model_dump() for r in results]

    with_params = RecallOptions(
        query="MATCH (n:Entity {name: $n}) RETURN n.entity_type AS t",
        search_type=SearchType.CYPHER,
        retriever_specific_config={"parameters": {"n": "Lisbon"}},
    )
    assert [r.raw for r in await CypherRetriever().retrieve(ctx, with_params)] == [{"t": "PLACE"}]
    empty = RecallOptions(query="MATCH (n:Nope) RETURN n", search_type=SearchType.CYPHER)
    assert await CypherRetriever().retrieve(ctx, empty) == []


async def test_retriever_validates_its_config(graph: dict[str, Dataset]) -> None:
    ctx = _ctx([graph["people"]])
    for config in ({"parameters": ["x"]}, {"timeout_seconds": 0}, {"timeout_seconds": "1"}):
        opts = RecallOptions(
            query="MATCH (n) RETURN n",
            search_type=SearchType.CYPHER,
            retriever_specific_config=config,
        )
        with pytest.raises(EngramValidationError):
            await CypherRetriever().retrieve(ctx, opts)


def test_postgres_sql_binds_uuids_jsonb_keys_and_typed_values() -> None:
    query = parse(
        "MATCH (a:Entity)-[r:born_in]->(b) WHERE a.age > 30 AND a.name STARTS WITH $p "
        "RETURN a.id, b.entity_type, count(*) AS n"
    )
    compiled = compile_query(query, ["d1"], {"p": "A"}, PostgresDialect(), viewer="u1")
    for alias in ("n0", "n1", "e0"):
        assert f"{alias}.dataset_id = ANY(%s::uuid[])" in compiled.sql
    assert "?" not in compiled.sql and compiled.sql.endswith("LIMIT %s OFFSET %s")
    assert compiled.sql.count("%s") == len(compiled.params)
    assert "jsonb_typeof(n0.properties -> %s::text) = 'number'" in compiled.sql  # a.age > 30
    assert "n0.id::text" in compiled.sql and "GROUP BY c0, c1, c2" in compiled.sql
    assert "age" in compiled.params and "'age'" not in compiled.sql
