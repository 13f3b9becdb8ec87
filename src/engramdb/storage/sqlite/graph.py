"""Graph and full-text reads of the SQLite store (run inside a read transaction).

The neighbourhood walk is a recursive CTE with ONE recursive SELECT per direction, so SQLite
drives each through its own index (``edges_by_source`` for outgoing, ``edges_by_target`` for
incoming; a single SELECT with ``source_id = x OR target_id = x`` would scan). Rows leave the
CTE's queue breadth-first, so a ``LIMIT`` inside the CTE bounds the work on dense graphs while
keeping the nearest nodes.

Lexical search turns arbitrary user text into a safe FTS5 query: the text is split into word
tokens, each token is double-quoted (a phrase, so ``NEAR``, ``AND``, ``*``, ``:``, ``-`` and
parentheses lose their meaning) and the tokens are OR-ed; BM25 then ranks documents matching
more and rarer words higher. Common English stopwords are dropped unless nothing else is left.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.models.records import Edge, Node
from engramdb.storage.base import ScoredId, Subgraph
from engramdb.storage.dialect import SQLITE
from engramdb.storage.sql import graph as shared
from engramdb.storage.sql.rows import row_to_edge, row_to_node
from engramdb.storage.sqlite.rows import (
    EDGE_COLUMNS,
    EDGE_COLUMNS_BARE,
    NODE_COLUMNS,
    to_json,
)
from engramdb.storage.sqlite.units import run_unit

__all__ = [
    "edges_between",
    "fts_query",
    "get_nodes",
    "incident_edges",
    "lexical_search",
    "neighbourhood",
    "neighbourhood_sql",
]

_WORD = re.compile(r"\w+", re.UNICODE)
#: More tokens than this add nothing to ranking but slow the query down.
_MAX_QUERY_TOKENS = 64
_STOPWORD_TEXT = (
    "a an and are as at be but by did do does for from had has have how i if in into is it its "
    "me my of on or our so than that the their them then there these they this to was we were "
    "what when where which who whom why will with you your"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def _json_ids(ids: Sequence[UUID] | Sequence[str]) -> str:
    return to_json([str(i) for i in ids])


def get_nodes(
    conn: sqlite3.Connection, node_ids: Sequence[UUID], provenance: bool = True
) -> list[Node]:
    return run_unit(conn, partial(shared.get_nodes, SQLITE, node_ids, provenance))


def neighbourhood_sql() -> str:
    """The walk: parameters are (seed ids JSON, depth, depth, row budget, node limit)."""
    return """
WITH RECURSIVE walk(id, depth) AS (
    SELECT n.id, 0 FROM nodes n WHERE n.id IN (SELECT value FROM json_each(?))
    UNION
    SELECT e.target_id, w.depth + 1 FROM walk w JOIN edges e ON e.source_id = w.id
    WHERE w.depth < ?
    UNION
    SELECT e.source_id, w.depth + 1 FROM walk w JOIN edges e ON e.target_id = w.id
    WHERE w.depth < ?
    LIMIT ?
)
SELECT id, min(depth) AS d FROM walk GROUP BY id ORDER BY d, id LIMIT ?
"""


def neighbourhood(
    conn: sqlite3.Connection, node_ids: Sequence[UUID], depth: int, limit: int
) -> Subgraph:
    if not node_ids or limit <= 0:
        return Subgraph(nodes=[], edges=[])
    depth = max(depth, 0)
    # Each node can appear once per depth level, so this many rows always hold >= limit nodes.
    budget = limit * (depth + 1) + len(node_ids)
    reached = conn.execute(
        neighbourhood_sql(), (_json_ids(node_ids), depth, depth, budget, limit)
    ).fetchall()
    ids = [row[0] for row in reached]
    ids_json = to_json(ids)
    node_rows = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes n WHERE n.id IN (SELECT value FROM json_each(?))",
        (ids_json,),
    ).fetchall()
    by_id = {row[0]: row for row in node_rows}
    edge_rows = conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM edges e "
        # "+" keeps the planner on the source index: hubs (EntityType, Document) are edge
        # targets, and walking their incoming edges by the target index scans thousands of rows.
        "WHERE e.source_id IN (SELECT value FROM json_each(?)) "
        "AND +e.target_id IN (SELECT value FROM json_each(?)) ORDER BY e.seq",
        (ids_json, ids_json),
    ).fetchall()
    return Subgraph(
        nodes=[row_to_node(by_id[i]) for i in ids if i in by_id],
        edges=[row_to_edge(row) for row in edge_rows],
    )


def incident_edges(
    conn: sqlite3.Connection,
    node_ids: Sequence[UUID],
    direction: str,
    relations: Sequence[str] | None,
    exclude_relations: Sequence[str],
    limit_per_node: int,
    provenance: bool = True,
) -> list[Edge]:
    """One indexed lookup per node: ``edges_by_source_target`` outgoing, and
    ``edges_by_target_relation`` incoming (which skips a hub's ``contains`` edges inside the
    index when they are excluded)."""
    if not node_ids or limit_per_node <= 0 or (relations is not None and not relations):
        return []
    if direction not in ("out", "in"):
        raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
    column = "source_id" if direction == "out" else "target_id"
    columns = EDGE_COLUMNS if provenance else EDGE_COLUMNS_BARE
    sql = f"SELECT {columns} FROM edges e WHERE e.{column} = ?"
    filters: list[object] = []
    if relations is not None:
        sql += " AND e.relation IN (SELECT value FROM json_each(?))"
        filters.append(to_json(list(relations)))
    if exclude_relations:
        sql += " AND e.relation NOT IN (SELECT value FROM json_each(?))"
        filters.append(to_json(list(exclude_relations)))
    sql += " LIMIT ?"
    out: list[Edge] = []
    for node_id in dict.fromkeys(str(i) for i in node_ids):
        rows = conn.execute(sql, (node_id, *filters, limit_per_node)).fetchall()
        out.extend(row_to_edge(row) for row in rows)
    return out


def edges_between(
    conn: sqlite3.Connection,
    pairs: Sequence[tuple[UUID, UUID]],
    exclude_relations: Sequence[str],
    provenance: bool = True,
) -> list[Edge]:
    """One probe of ``edges_by_source_target`` per distinct pair."""
    distinct = list(dict.fromkeys((str(a), str(b)) for a, b in pairs))
    if not distinct:
        return []
    columns = EDGE_COLUMNS if provenance else EDGE_COLUMNS_BARE
    sql = (
        f"SELECT {columns} FROM edges e WHERE e.seq IN ("
        "SELECT x.seq FROM json_each(?) p JOIN edges x "
        "ON x.source_id = json_extract(p.value, '$[0]') "
        "AND x.target_id = json_extract(p.value, '$[1]'))"
    )
    params: list[object] = [to_json([list(pair) for pair in distinct])]
    if exclude_relations:
        sql += " AND e.relation NOT IN (SELECT value FROM json_each(?))"
        params.append(to_json(list(exclude_relations)))
    sql += " ORDER BY e.seq"
    return [row_to_edge(row) for row in conn.execute(sql, params).fetchall()]


def query_tokens(text: str) -> list[str]:
    """The distinct lower-cased words of a query, stopwords dropped when others remain.

    Stopwords match nearly every row, so BM25 would score the whole table (~80 ms at 100k
    chunks) while weighting them ~0 anyway.
    """
    tokens = list(dict.fromkeys(token.lower() for token in _WORD.findall(text)))
    tokens = [t for t in tokens if t.strip("_")]
    return ([t for t in tokens if t not in _STOPWORDS] or tokens)[:_MAX_QUERY_TOKENS]


def fts_query(text: str) -> str | None:
    """A safe FTS5 MATCH expression for arbitrary text, or None when it has no words."""
    return _or_expression(query_tokens(text))


def _or_expression(tokens: Sequence[str]) -> str | None:
    if not tokens:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


#: Rows BM25 may score per query before the most common query words are left out.
_POSTINGS_BUDGET = 20_000


def prune_common_terms(
    conn: sqlite3.Connection, tokens: list[str], budget: int = _POSTINGS_BUDGET
) -> list[str]:
    """Keep the rarest query words whose postings fit ``budget`` (always at least one word).

    A word found in tens of thousands of chunks has an IDF near zero, so leaving it out barely
    moves the ranking but spares scoring every row it matches; small stores are never pruned."""
    if len(tokens) < 2:
        return tokens
    found = dict(
        conn.execute(
            "SELECT term, doc FROM lexical_vocab WHERE term IN (SELECT value FROM json_each(?))",
            (to_json(tokens),),
        ).fetchall()
    )
    frequency = {t: int(found.get(t, 0)) for t in tokens}
    if sum(frequency.values()) <= budget:
        return tokens
    kept: list[str] = []
    total = 0
    for token in sorted(tokens, key=lambda t: frequency[t]):
        if kept and total + frequency[token] > budget:
            break
        kept.append(token)
        total += frequency[token]
    return kept


def lexical_search(
    conn: sqlite3.Connection,
    collection: str,
    query: str,
    dataset_ids: Sequence[UUID],
    top_k: int,
) -> list[ScoredId]:
    if not dataset_ids or top_k <= 0:
        return []
    expression = _or_expression(prune_common_terms(conn, query_tokens(query)))
    if expression is None:
        return []
    rows = conn.execute(
        """SELECT d.node_id, bm25(lexical_fts) AS rank
           FROM lexical_fts JOIN lexical_docs d ON d.id = lexical_fts.rowid
           WHERE lexical_fts MATCH ? AND d.collection = ?
             AND d.dataset_id IN (SELECT value FROM json_each(?))
           ORDER BY rank LIMIT ?""",
        (expression, collection, _json_ids(dataset_ids), top_k),
    ).fetchall()
    return [ScoredId(node_id=UUID(row[0]), score=-float(row[1])) for row in rows]
