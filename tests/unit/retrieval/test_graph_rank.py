"""Graph-aware passage ranking: personalized PageRank over the entity–chunk graph.

A multi-hop question names one entity and is answered by a chunk about a second entity that
the first one's chunk mentions; the walk must rank that bridge chunk into the top k.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from uuid import UUID

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import Node, NodeType, stable_id
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions
from engramdb.retrieval.graph_rank import (
    GraphWalk,
    KnownGraph,
    bridge_second,
    name_in_question,
    personalized_pagerank,
    walk_chunks,
)
from engramdb.retrieval.retrievers.hybrid import MULTI_HOP, hybrid_context_items
from tests.unit.retrieval._graph_fixtures import counting_store
from tests.unit.retrieval.test_hybrid import context_for


def _undirected(pairs: list[tuple[str, str]]) -> dict[str, dict[str, float]]:
    graph: dict[str, dict[str, float]] = {}
    for a, b in pairs:
        graph.setdefault(a, {})[b] = 1.0
        graph.setdefault(b, {})[a] = 1.0
    return graph


def test_bridge_chunk_reachable_only_through_second_entity_ranks_in_top_k() -> None:
    # c_first names the question's entity and the bridge entity; c_bridge names only the
    # bridge entity; the distractors share a third entity with each other, never the seeds.
    graph = _undirected(
        [
            ("e_question", "c_first"),
            ("e_bridge", "c_first"),
            ("e_bridge", "c_bridge"),
            ("e_other", "c_d1"),
            ("e_other", "c_d2"),
            ("e_other", "c_d3"),
            ("e_question", "c_first_again"),
        ]
    )
    # Seeds as walk_chunks sets them: the question's entity, the best search hit (the
    # first-hop chunk) and, weaker, a distractor hit.
    seeds = {"e_question": 1.0, "c_first": 0.5, "c_d1": 0.2}
    rank = personalized_pagerank(graph, seeds, iterations=4)
    chunks = sorted((k for k in rank if k.startswith("c_")), key=lambda k: -rank[k])
    # The seeded chunks lead; the bridge chunk comes next, above every unseeded distractor.
    assert chunks[0] == "c_first"
    assert "c_bridge" in chunks[:4]  # after the three seeds
    assert chunks.index("c_bridge") < min(chunks.index("c_d2"), chunks.index("c_d3"))
    assert chunks.index("c_bridge") < min(chunks.index("c_d2"), chunks.index("c_d3"))
    assert abs(sum(rank.values()) - 1.0) < 1e-9


def test_pagerank_without_positive_seeds_is_empty_and_bounded_by_iterations() -> None:
    graph = _undirected([("a", "b"), ("b", "c")])
    assert personalized_pagerank(graph, {"a": 0.0}) == {}
    # Zero iterations: the teleport distribution itself; one hop per iteration.
    assert personalized_pagerank(graph, {"a": 2.0}, iterations=0) == {"a": 1.0}
    one = personalized_pagerank(graph, {"a": 1.0}, iterations=1)
    assert "c" not in one and one["b"] > 0


def test_name_in_question_matches_full_names_and_surnames() -> None:
    question = "In what year was the university where Sergei Aleksandrovich Tokarev taught founded?"
    assert name_in_question("Sergei Aleksandrovich Tokarev", question) == 1.0
    assert name_in_question("S. A. Tokarev", question) == 0.7  # surname, capitalised in question
    assert name_in_question("Moscow State University", question) == 0.0
    assert name_in_question("university", question) == 1.0
    assert name_in_question("", question) == 0.0


def test_name_in_question_reads_a_person_s_name_core() -> None:
    question = "Where did Martin Luther King give his speech?"
    assert name_in_question("Martin Luther King Jr.", question, "PERSON") == 1.0
    assert name_in_question("Dr. Martin Luther King", question, "PERSON") == 1.0
    # The suffix is no surname: without the full name, "Jr." alone names nobody.
    assert name_in_question("Kurt Vonnegut Jr.", "Who was Jr. Vonnegut?", "PERSON") == 0.7
    assert name_in_question("Beyoncé", "Where was BEYONCE born?", "PERSON") == 1.0
    # A title is part of a name that is not a person's.
    question = "Which motors did General Electric build?"
    assert name_in_question("General Motors", question, "ORGANIZATION") == 0.0


DOCS = [
    "Sergei Tokarev was a Soviet ethnographer. Sergei Tokarev taught at Moscow State "
    "University for thirty years.",
    "Moscow State University is a public research university. Moscow State University was "
    "founded in 1755 by Mikhail Lomonosov.",
    "The Volga River flows into the Caspian Sea. The Volga River is long.",
    "Lake Baikal is the deepest lake. Lake Baikal holds a fifth of fresh water.",
    "The Hermitage Museum is in Saint Petersburg. The Hermitage Museum was founded by "
    "Catherine the Great.",
]


async def _remember_docs(dataset: str) -> dict[str, UUID]:
    """Each document's first words -> the id of the chunk holding it."""
    await engramdb.remember(list(DOCS), dataset_name=dataset, self_improvement=False)
    ctx = await context_for(dataset)
    chunks = await get_engine().store.list_nodes([d.id for d in ctx.datasets], type=NodeType.CHUNK)
    out = {doc.split(".")[0]: c.id for doc in DOCS for c in chunks if doc.split(".")[0] in c.text}
    assert len(out) == len(DOCS) and len(set(out.values())) == len(DOCS)  # one chunk each
    return out


async def test_walk_over_stored_graph_reaches_the_bridge_chunk() -> None:
    by_first = await _remember_docs("bridge")
    tokarev = by_first["Sergei Tokarev was a Soviet ethnographer"]
    msu = by_first["Moscow State University is a public research university"]
    store = get_engine().store
    question = "In what year was the university where Sergei Tokarev taught founded?"
    # Only the first-hop chunk is a seed (as dense / lexical search would find it).
    walked = await walk_chunks(store, question, [(tokarev, 1.0)], {}, GraphWalk(limit=2))
    ids = [c for c, _ in walked]
    assert ids[0] == tokarev
    assert msu in ids  # reachable only through "Moscow State University"


async def test_walk_reuses_what_the_caller_read_and_ranks_the_same() -> None:
    by_first = await _remember_docs("bridge_known")
    tokarev = by_first["Sergei Tokarev was a Soviet ethnographer"]
    question = "In what year was the university where Sergei Tokarev taught founded?"
    store = await counting_store()
    try:
        walk = GraphWalk(limit=3)
        alone = await walk_chunks(store, question, [(tokarev, 1.0)], {}, walk)
        assert store.reads.calls == {"incident_edges": 2, "get_nodes": 1}
        # What a caller read with a wider limit: the chunk's entities and their nodes.
        edges = await store.incident_edges(
            [tokarev], direction="out", relations=["contains"], limit_per_node=40
        )
        entities = [e.target_id for e in edges]
        nodes = {n.id: n for n in await store.get_nodes(entities)}
        known = KnownGraph(contains={tokarev: entities}, contains_limit=40, nodes=nodes)
        store.reads.calls.clear()
        reused = await walk_chunks(store, question, [(tokarev, 1.0)], {}, walk, known=known)
        assert reused == alone
        assert store.reads.calls == {"incident_edges": 1}  # only the entities' chunks
        # Read with a narrower limit than the walk's own, the caller's lists are not used.
        narrow = dataclasses.replace(known, contains_limit=walk.entities_per_chunk - 1)
        store.reads.calls.clear()
        assert await walk_chunks(store, question, [(tokarev, 1.0)], {}, walk, known=narrow) == alone
        assert store.reads.calls == {"incident_edges": 2}
    finally:
        await store.close()


async def test_hybrid_graph_lane_puts_the_bridge_passage_in_the_context() -> None:
    await _remember_docs("bridge_hybrid")
    ctx = await context_for("bridge_hybrid")
    question = "In what year was the university where Sergei Tokarev taught founded?"
    opts = RecallOptions(query=question, search_type=SearchType.HYBRID_COMPLETION, top_k=2)
    # A pool of two chunks: dense and lexical alone may miss the bridge chunk, the walk not.
    config = dataclasses.replace(MULTI_HOP, expand_chunks=2, dense_k=1, lexical_k=1, entity_k=0)
    items = await hybrid_context_items(ctx, opts, config)
    assert any("1755" in i.text for i in items)


def test_bridge_second_moves_the_walks_bridge_chunk_after_the_first_passage() -> None:

    def node(name: str) -> Node:
        return Node(
            id=stable_id("chunk", name), dataset_id=stable_id("ds"), type="Chunk", name=name
        )

    @dataclass
    class P:
        chunk: Node

    a, b, c, d = (node(x) for x in "abcd")
    passages = [P(a), P(b), P(c), P(d)]
    moved = bridge_second(passages, [a.id, d.id, b.id])
    assert [p.chunk.name for p in moved] == ["a", "d", "b", "c"]
    # No walk, or the bridge is already second: unchanged.
    assert bridge_second(passages, []) == passages
    assert bridge_second(passages, [b.id]) == passages


def test_prose_chunks_split_into_sentence_groups_transcripts_keep_their_turns() -> None:

    from engramdb.retrieval.passages import make_passages

    sentence = "Moscow State University was founded in the year 1755 by Lomonosov. "
    prose = Node(id=stable_id("p"), dataset_id=stable_id("ds"), type="Chunk", text=sentence * 8)
    turns = "\n\n".join(f"Caroline: {sentence * 5}" for _ in range(2))
    chat = Node(id=stable_id("t"), dataset_id=stable_id("ds"), type="Chunk", text=turns)
    got = make_passages([(prose, 1.0), (chat, 0.5)], max_words=150, prose_words=50)
    prose_parts = [p for p in got if p.chunk.id == prose.id]
    chat_parts = [p for p in got if p.chunk.id == chat.id]
    assert len(prose_parts) >= 2 and all(len(p.text.split()) <= 50 for p in prose_parts)
    assert len(chat_parts) == 2  # one passage per turn, however long the turn
