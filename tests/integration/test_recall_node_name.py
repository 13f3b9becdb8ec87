"""recall(node_name=...) on every search type, through the public API (recall.md): it restricts
retrieval wherever a node set can, and where it cannot, the error says why."""

from __future__ import annotations

import pytest

import engramdb
from engramdb import SearchType

#: Not built at all (their own FeatureNotAvailableError says so, node_name or not).
_NOT_BUILT = {SearchType.BROAD}
#: A Cypher query chooses its own nodes: node_name cannot narrow it.
_CYPHER_FAMILY = {SearchType.CYPHER, SearchType.NATURAL_LANGUAGE}
#: Types whose query names the nodes it reads, with the phrase their refusal gives.
_CHOOSES_OWN = {SearchType.CODE: "selects its own symbols"}


async def _two_node_sets() -> None:
    await engramdb.remember(
        "Ada Lovelace worked with Charles Babbage in London. Ada Lovelace wrote programs. "
        "Ada Lovelace met Mary Somerville.",
        node_set=["math"],
        self_improvement=False,
    )
    await engramdb.remember(
        "Grace Hopper worked at Remington Rand in New York. Grace Hopper built compilers. "
        "Grace Hopper met Howard Aiken. Grace Hopper taught at Vassar.",
        node_set=["navy"],
        self_improvement=False,
    )


async def test_node_name_restricts_skills() -> None:
    """recall.md: "node_name list[str] Restricts retrieval to matching node names or node
    sets." — on SearchType.SKILLS, a skill's tags are its node sets."""
    await engramdb.remember_skill(
        "deploy_web", "Deploy the web service to production", "1. build 2. ship", tags=["ops"]
    )
    await engramdb.remember_skill(
        "deploy_docs", "Deploy the documentation site", "1. render 2. upload", tags=["docs"]
    )
    everything = await engramdb.recall("deploy", query_type=SearchType.SKILLS, top_k=5)
    assert {e.skill["name"] for e in everything} == {"deploy_web", "deploy_docs"}  # type: ignore[union-attr]
    ops = await engramdb.recall("deploy", query_type=SearchType.SKILLS, node_name=["ops"])
    assert [e.skill["name"] for e in ops] == ["deploy_web"]  # type: ignore[union-attr]
    both = await engramdb.recall(
        "deploy",
        query_type=SearchType.SKILLS,
        node_name=["ops", "deploy_docs"],
        node_name_filter_operator="OR",
    )
    assert {e.skill["name"] for e in both} == {"deploy_web", "deploy_docs"}  # type: ignore[union-attr]
    none = await engramdb.recall(
        "deploy",
        query_type=SearchType.SKILLS,
        node_name=["ops", "docs"],
        node_name_filter_operator="AND",
    )
    assert none == []


async def test_node_name_restricts_the_graph_report() -> None:
    """recall.md: "node_name list[str] Restricts retrieval to matching node names or node
    sets." — GRAPH_REPORT reports the hubs among the node set's entities only."""
    await _two_node_sets()
    everything = await engramdb.recall("hubs", query_type=SearchType.GRAPH_REPORT, top_k=10)
    names = {e.raw["name"] for e in everything}
    assert {"Ada Lovelace", "Grace Hopper"} <= names
    math = await engramdb.recall(
        "hubs", query_type=SearchType.GRAPH_REPORT, top_k=10, node_name=["math"]
    )
    math_names = {e.raw["name"] for e in math}
    assert "Ada Lovelace" in math_names and "Grace Hopper" not in math_names
    named = await engramdb.recall(
        "hubs", query_type=SearchType.GRAPH_REPORT, node_name=["Grace Hopper"]
    )
    assert [e.raw["name"] for e in named] == ["Grace Hopper"]


async def test_cypher_refuses_node_name_and_says_why() -> None:
    """recall.md lists node_name as restricting "retrieval to matching node names or node
    sets"; a Cypher query chooses its own nodes, so CYPHER (and NATURAL_LANGUAGE, whose LLM
    writes one) refuse it saying why and how to filter instead — not "not available yet"."""
    await _two_node_sets()
    for search_type in _CYPHER_FAMILY:
        with pytest.raises(engramdb.FeatureNotAvailableError) as caught:
            await engramdb.recall(
                "MATCH (e:Entity) RETURN e.name", query_type=search_type, node_name=["math"]
            )
        message = str(caught.value)
        assert "chooses its own nodes" in message and "node_set" in message, message
        assert "yet" not in message
    # FEELING_LUCKY picks CYPHER for a Cypher query offline: the same refusal
    with pytest.raises(engramdb.FeatureNotAvailableError, match="chooses its own nodes"):
        await engramdb.recall(
            "MATCH (e:Entity) RETURN e.name",
            query_type=SearchType.FEELING_LUCKY,
            node_name=["math"],
        )


#: Types that find nothing of these two documents (no coding rules, no skills stored).
_NOTHING_TO_FIND = {SearchType.CODING_RULES, SearchType.SKILLS}


@pytest.mark.parametrize("search_type", list(SearchType), ids=lambda t: t.value)
async def test_every_search_type_restricts_to_the_node_set_or_says_why_not(
    search_type: SearchType,
) -> None:
    """recall.md: "node_name list[str] Restricts retrieval to matching node names or node
    sets." — every search type either keeps the other node set's facts out of what it
    retrieves (only_context: the context, no LLM needed) or, for the Cypher family, says why it
    cannot; none refuses node_name as "not available yet"."""
    await _two_node_sets()
    query = "Who built compilers?"  # the navy document answers it; node_name asks for math
    try:
        restricted = await engramdb.recall(
            query, query_type=search_type, node_name=["math"], only_context=True
        )
    except engramdb.FeatureNotAvailableError as exc:
        message = str(exc)
        if search_type in _NOT_BUILT:
            assert "node_name" not in message  # refused for being unbuilt, not for node_name
            return
        if search_type in _CHOOSES_OWN:
            assert _CHOOSES_OWN[search_type] in message and "yet" not in message, message
            return
        assert search_type in _CYPHER_FAMILY, message
        assert "chooses its own nodes" in message and "yet" not in message
        return
    assert search_type not in _NOT_BUILT | _CYPHER_FAMILY | set(_CHOOSES_OWN)
    assert not any("Remington" in str(r.model_dump()) for r in restricted), restricted
    if search_type not in _NOTHING_TO_FIND:  # without node_name the navy facts do show
        unrestricted = await engramdb.recall(query, query_type=search_type, only_context=True)
        assert any("Remington" in str(r.model_dump()) for r in unrestricted), unrestricted
