"""Graph reads and BM25 full-text search of the PostgreSQL store.

**Neighbourhoods** use the same recursive walk as the embedded store. PostgreSQL allows one
recursive reference per CTE, so both directions go into one ``LATERAL`` union whose branches use
their own index (``edges_by_source_target`` / ``edges_by_target_relation``). PostgreSQL
produces a recursive CTE's rows lazily, level by level, so a ``LIMIT`` right above it bounds the
work on dense graphs while keeping the nearest nodes, as the embedded store's queue-bounded walk
does. :func:`incident_edges` and :func:`edges_between` are one indexed probe per node or pair.

**Full text** is BM25 with the embedded store's parameters (FTS5's k1 = 1.2, b = 0.75,
idf = ln((N − n + 0.5) / (n + 0.5)), at least 1e-6), computed in SQL over PostgreSQL's own
full-text index:

* the candidates are the rows of the requested collection and datasets whose ``tsvector``
  matches any query word — one GIN lookup of the words AND the rows' scope lexemes (see
  :mod:`.text`), whatever the planner's statistics;
* a word's frequency in a row is ``ts_rank_cd('{1,1,1,1}', words, word)``: for a one-word
  query, cover density ranking with unit weights counts the word's occurrences;
* N and the average length come from ``lexical_stats``; n (rows holding the word) from
  ``lexical_terms``, the document frequencies maintained with the rows (:mod:`.terms`): one
  primary-key probe per word and dataset, however common the word. A word found in more than
  ``POSTINGS_BUDGET`` rows of the requested datasets is left out, rarest words first, like the
  embedded store's pruning — such a word's idf is near zero, and scoring every row it matches
  would cost tens of ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.models.records import Edge, Node
from engramdb.storage.base import ScoredId, Subgraph
from engramdb.storage.dialect import POSTGRES
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.rows import (
    EDGE_COLUMNS,
    EDGE_COLUMNS_BARE,
    NODE_COLUMNS,
)
from engramdb.storage.postgres.terms import FREQUENCIES
from engramdb.storage.postgres.text import query_words, scope_query
from engramdb.storage.postgres.units import run_unit
from engramdb.storage.sql import graph as shared
from engramdb.storage.sql.rows import row_to_edge, row_to_node

__all__ = [
    "BM25_B",
    "BM25_K1",
    "POSTINGS_BUDGET",
    "edges_between",
    "get_nodes",
    "incident_edges",
    "lexical_search",
    "neighbourhood",
]

BM25_K1 = 1.2
BM25_B = 0.75
#: Rows BM25 may score per query before the most common query words are left out (scoring costs
#: ~3 us a row here, so this bounds a query near 30 ms; SQLite's FTS5 affords 20,000).
POSTINGS_BUDGET = 10_000


async def get_nodes(conn: Conn, node_ids: Sequence[UUID], provenance: bool = True) -> list[Node]:
    return await run_unit(conn, partial(shared.get_nodes, POSTGRES, node_ids, provenance))


_WALK = """
WITH RECURSIVE walk(id, depth) AS (
    SELECT n.id, 0 FROM nodes n WHERE n.id = ANY(%(seeds)s::uuid[])
    UNION
    SELECT step.id, w.depth + 1 FROM walk w CROSS JOIN LATERAL (
        SELECT e.target_id AS id FROM edges e WHERE e.source_id = w.id
        UNION ALL
        SELECT e.source_id AS id FROM edges e WHERE e.target_id = w.id
    ) AS step
    WHERE w.depth < %(depth)s
)
SELECT id, min(depth) AS d FROM (SELECT id, depth FROM walk LIMIT %(budget)s) AS reached
GROUP BY id ORDER BY d, id LIMIT %(limit)s
"""


async def neighbourhood(conn: Conn, node_ids: Sequence[UUID], depth: int, limit: int) -> Subgraph:
    """Run inside a snapshot read: the walk, its nodes and its edges see one state."""
    if not node_ids or limit <= 0:
        return Subgraph(nodes=[], edges=[])
    depth = max(depth, 0)
    # Each node can appear once per depth level, so this many rows always hold >= limit nodes.
    budget = limit * (depth + 1) + len(node_ids)
    cur = await conn.execute(
        _WALK,
        {"seeds": list(dict.fromkeys(node_ids)), "depth": depth, "budget": budget, "limit": limit},
    )
    ids = [row[0] for row in await cur.fetchall()]
    if not ids:
        return Subgraph(nodes=[], edges=[])
    cur = await conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes n WHERE n.id = ANY(%s::uuid[])", (ids,)
    )
    by_id = {row[0]: row for row in await cur.fetchall()}
    cur = await conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM edges e WHERE e.source_id = ANY(%s::uuid[]) "
        "AND e.target_id = ANY(%s::uuid[]) ORDER BY e.seq",
        (ids, ids),
    )
    edges = [row_to_edge(row) for row in await cur.fetchall()]
    return Subgraph(nodes=[row_to_node(by_id[i]) for i in ids if i in by_id], edges=edges)


_INCIDENT = {
    "out": """
SELECT {columns} FROM unnest(%(ids)s::uuid[]) WITH ORDINALITY AS n(id, position)
CROSS JOIN LATERAL (
    SELECT x.* FROM edges x
    WHERE x.source_id = n.id
      AND (%(relations)s::text[] IS NULL OR x.relation = ANY(%(relations)s::text[]))
      AND NOT (x.relation = ANY(%(excluded)s::text[]))
    ORDER BY x.target_id LIMIT %(limit)s
) AS e
ORDER BY n.position
""",
    "in": """
SELECT {columns} FROM unnest(%(ids)s::uuid[]) WITH ORDINALITY AS n(id, position)
CROSS JOIN LATERAL (
    SELECT x.* FROM edges x
    WHERE x.target_id = n.id
      AND (%(relations)s::text[] IS NULL OR x.relation = ANY(%(relations)s::text[]))
      AND NOT (x.relation = ANY(%(excluded)s::text[]))
    ORDER BY x.relation LIMIT %(limit)s
) AS e
ORDER BY n.position
""",
}


async def incident_edges(
    conn: Conn,
    node_ids: Sequence[UUID],
    direction: str,
    relations: Sequence[str] | None,
    exclude_relations: Sequence[str],
    limit_per_node: int,
    provenance: bool = True,
) -> list[Edge]:
    """One indexed lookup per node (a ``LATERAL`` probe of ``edges_by_source_target`` outgoing,
    ``edges_by_target_relation`` incoming), grouped by node in the order given."""
    if not node_ids or limit_per_node <= 0 or (relations is not None and not relations):
        return []
    if direction not in _INCIDENT:
        raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
    columns = EDGE_COLUMNS if provenance else EDGE_COLUMNS_BARE
    cur = await conn.execute(
        _INCIDENT[direction].format(columns=columns),
        {
            "ids": list(dict.fromkeys(node_ids)),
            "relations": None if relations is None else list(relations),
            "excluded": list(exclude_relations),
            "limit": limit_per_node,
        },
    )
    return [row_to_edge(row) for row in await cur.fetchall()]


async def edges_between(
    conn: Conn,
    pairs: Sequence[tuple[UUID, UUID]],
    exclude_relations: Sequence[str],
    provenance: bool = True,
) -> list[Edge]:
    """One probe of ``edges_by_source_target`` per distinct pair; insertion order."""
    distinct = list(dict.fromkeys(pairs))
    if not distinct:
        return []
    columns = EDGE_COLUMNS if provenance else EDGE_COLUMNS_BARE
    cur = await conn.execute(
        f"SELECT {columns} FROM edges e WHERE (e.source_id, e.target_id) IN ("
        "SELECT p.a, p.b FROM unnest(%s::uuid[], %s::uuid[]) AS p(a, b)) "
        "AND NOT (e.relation = ANY(%s::text[])) ORDER BY e.seq",
        ([a for a, _ in distinct], [b for _, b in distinct], list(exclude_relations)),
    )
    return [row_to_edge(row) for row in await cur.fetchall()]


# --- full text -------------------------------------------------------------------------------

# The candidates' search condition is ONE tsquery against the GIN index: the words AND the scope
# lexemes of the requested (collection, datasets) (see :mod:`.text`); they recheck
# ``dataset_id``.
_BM25 = """
WITH terms AS MATERIALIZED (
    SELECT t.word, to_tsquery('simple', t.word) AS query,
           greatest(ln((s.n - t.df + 0.5) / (t.df + 0.5)), 1e-6) AS idf
    FROM unnest(%(words)s::text[], %(dfs)s::int[]) AS t(word, df),
         (SELECT greatest(coalesce(sum(docs), 0), %(min_n)s) AS n
          FROM lexical_stats WHERE collection = %(collection)s
            AND dataset_id = ANY(%(datasets)s::uuid[])) AS s
),
norm AS MATERIALIZED (
    SELECT greatest(coalesce(sum(total_length)::float8 / nullif(sum(docs), 0), 1), 1) AS avgdl
    FROM lexical_stats WHERE collection = %(collection)s AND dataset_id = ANY(%(datasets)s::uuid[])
),
candidates AS (
    SELECT l.node_id, l.words, l.length FROM lexical l
    WHERE l.words @@ (to_tsquery('simple', %(any_word)s) && %(scope)s::tsquery)
      AND l.dataset_id = ANY(%(datasets)s::uuid[])
)
SELECT c.node_id, sum(
    t.idf * f.tf * (%(k1)s + 1) / (f.tf + %(k1)s * (1 - %(b)s + %(b)s * c.length / norm.avgdl))
) AS score
FROM candidates c CROSS JOIN norm
JOIN terms t ON c.words @@ t.query
CROSS JOIN LATERAL (SELECT ts_rank_cd('{1,1,1,1}', c.words, t.query)::float8 AS tf OFFSET 0) AS f
GROUP BY c.node_id
ORDER BY score DESC, c.node_id
LIMIT %(top_k)s
"""


def prune_common_words(frequencies: dict[str, int], budget: int = POSTINGS_BUDGET) -> list[str]:
    """The rarest words whose postings fit ``budget`` (always at least one matching word).
    Words no row holds are dropped: they cannot score."""
    present = sorted((f, w) for w, f in frequencies.items() if f > 0)
    kept: list[str] = []
    total = 0
    for frequency, word in present:
        if kept and total + frequency > budget:
            break
        kept.append(word)
        total += frequency
    return kept


async def lexical_search(
    conn: Conn, collection: str, query: str, dataset_ids: Sequence[UUID], top_k: int
) -> list[ScoredId]:
    words = query_words(query)
    if not dataset_ids or top_k <= 0 or not words:
        return []
    datasets = list(dict.fromkeys(dataset_ids))
    cur = await conn.execute(FREQUENCIES, (collection, datasets, words))
    frequencies = {str(row[0]): int(row[1]) for row in await cur.fetchall()}
    kept = prune_common_words(frequencies)
    if not kept:
        return []
    dfs = [frequencies[w] for w in kept]
    cur = await conn.execute(
        _BM25,
        {
            "words": kept,
            "dfs": dfs,
            "min_n": max(dfs),
            "collection": collection,
            "datasets": datasets,
            "any_word": " | ".join(kept),
            "scope": scope_query(collection, datasets),
            "k1": BM25_K1,
            "b": BM25_B,
            "top_k": top_k,
        },
    )
    return [ScoredId(node_id=row[0], score=float(row[1])) for row in await cur.fetchall()]
