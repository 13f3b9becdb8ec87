"""FEELING_LUCKY and NATURAL_LANGUAGE: search types where the LLM decides how to search.

* FEELING_LUCKY: the LLM picks the search type for the query (cognee's rule: an answer that is
  not a type, or is a type that cannot answer a free-form query, means RAG_COMPLETION). Without
  an LLM engramdb picks by a fixed rule instead, and says so in each entry's
  ``metadata["selected_by"]``: a query that starts like Cypher (``MATCH``) runs CYPHER,
  anything else CHUNKS (the best type that needs no LLM).
* NATURAL_LANGUAGE: the LLM translates the question into a read-only Cypher query over
  engramdb's graph (docs/cypher.md), which CYPHER runs; a query the parser refuses goes back to
  the LLM with the error, up to ``retriever_specific_config["max_attempts"]`` (default 3)
  attempts. Without an LLM: LLMNotConfiguredError naming SearchType.CYPHER.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from engramdb.errors import (
    CypherSyntaxError,
    CypherUnsupportedError,
    EngramValidationError,
    LLMNotConfiguredError,
)
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import (
    RecallOptions,
    RetrievalContext,
    Retriever,
    refuse_ignored_node_name,
)

__all__ = [
    "FeelingLuckyRetriever",
    "GraphReportRetriever",
    "NaturalLanguageRetriever",
    "offline_pick",
]

#: What FEELING_LUCKY never picks (they need arguments a free-form query does not carry, or
#: are FEELING_LUCKY itself); an LLM answer naming one means RAG_COMPLETION, as in cognee.
_NOT_PICKED = frozenset(
    {SearchType.FEELING_LUCKY, SearchType.CODE, SearchType.NATURAL_LANGUAGE, SearchType.BROAD}
)
_DEFAULT = SearchType.RAG_COMPLETION
_CYPHER_START = re.compile(r"^\s*(MATCH|OPTIONAL\s+MATCH|WITH|RETURN|UNWIND)\b", re.IGNORECASE)

_PICK_PROMPT = (
    "Choose the search type that best answers the user's query. Answer with the type's name "
    "only. Types: CHUNKS (find passages), SUMMARIES (document summaries), RAG_COMPLETION "
    "(answer from passages), GRAPH_COMPLETION (answer from entities and their relations), "
    "GRAPH_SUMMARY_COMPLETION (answer from summarised graph context), "
    "GRAPH_COMPLETION_COT (multi-step reasoning over the graph), TEMPORAL (questions about "
    "dates and time ranges), CYPHER (the query is a Cypher query), CODING_RULES (coding "
    "rules), CHUNKS_LEXICAL (exact keyword match)."
)

_CYPHER_PROMPT = (
    "Translate the user's question into ONE read-only Cypher query over this graph, and answer "
    "with the query only (no explanation, no code fence).\n"
    "Node labels: Entity (name, text: a person, place, organisation, concept...), EntityType "
    "(name: the entity's type), Chunk (text), Document (name), Summary (text).\n"
    "Relationships: (Entity)-[:is_a]->(EntityType), (Chunk)-[:contains]->(Entity), "
    "(Chunk)-[:is_part_of]->(Document), (Summary)-[:summarizes]->(Chunk), and between entities "
    "the extracted relation names in lower snake case (e.g. works_at, lives_in).\n"
    "Supported: MATCH, OPTIONAL MATCH, WHERE (=, <>, CONTAINS, STARTS WITH, toLower), RETURN, "
    "ORDER BY, LIMIT. Match names case-insensitively with toLower(n.name) CONTAINS '...'."
)


def offline_pick(query: str) -> SearchType:
    """FEELING_LUCKY's choice without an LLM: CYPHER for a Cypher query, CHUNKS otherwise."""
    return SearchType.CYPHER if _CYPHER_START.match(query) else SearchType.CHUNKS


class FeelingLuckyRetriever(Retriever):
    """SearchType.FEELING_LUCKY: the LLM picks the type (or, offline, :func:`offline_pick`)."""

    search_types = frozenset({SearchType.FEELING_LUCKY})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        if ctx.llm is None:
            chosen, how = offline_pick(opts.query), "rule: no LLM configured"
        else:
            chosen, how = await _llm_pick(ctx, opts.query), "llm"
        if opts.node_name:  # the type it picked must honour node_name too
            refuse_ignored_node_name(ctx.retriever(chosen), chosen)
        found = await ctx.retriever(chosen).retrieve(
            ctx, dataclasses.replace(opts, search_type=chosen)
        )
        marked: list[RecallResponse] = []
        for entry in found:
            if isinstance(entry, ResponseGraphEntry):
                meta = {**entry.metadata, "selected_search_type": chosen.value, "selected_by": how}
                entry = entry.model_copy(update={"metadata": meta})
            marked.append(entry)
        return marked


async def _llm_pick(ctx: RetrievalContext, query: str) -> SearchType:
    assert ctx.llm is not None
    messages: list[Any] = [
        {"role": "system", "content": _PICK_PROMPT},
        {"role": "user", "content": query},
    ]
    answer = (await ctx.llm.complete(messages)).text.strip().strip("`'\". ").upper()
    try:
        chosen = SearchType(answer)
    except ValueError:
        return _DEFAULT
    return _DEFAULT if chosen in _NOT_PICKED else chosen


class NaturalLanguageRetriever(Retriever):
    """SearchType.NATURAL_LANGUAGE: the LLM writes the Cypher query, CYPHER runs it. Each entry's
    ``metadata["cypher"]`` is the query that ran."""

    search_types = frozenset({SearchType.NATURAL_LANGUAGE})
    node_name_refusal = (
        "the LLM writes a Cypher query, which chooses its own nodes; name the node set in the "
        "question, or write the query yourself with WHERE 'hr' IN c.node_set and search with "
        "SearchType.CYPHER, and recall without node_name"
    )

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        if ctx.llm is None:
            raise LLMNotConfiguredError(
                "NATURAL_LANGUAGE asks an LLM to write a Cypher query, and none is configured: "
                "set LLM_API_KEY (and LLM_ENDPOINT / LLM_MODEL for a local server), or write "
                "the query yourself and search with SearchType.CYPHER (docs/cypher.md)"
            )
        attempts = opts.retriever_specific_config.get("max_attempts", 3)
        if isinstance(attempts, bool) or not isinstance(attempts, int) or not 1 <= attempts <= 10:
            raise EngramValidationError("max_attempts must be an integer from 1 to 10")
        messages: list[Any] = [
            {"role": "system", "content": _CYPHER_PROMPT},
            {"role": "user", "content": opts.query},
        ]
        cypher = ctx.retriever(SearchType.CYPHER)
        error: Exception | None = None
        for _ in range(attempts):
            query = _strip_fence((await ctx.llm.complete(messages)).text)
            try:
                rows = await cypher.retrieve(
                    ctx, dataclasses.replace(opts, search_type=SearchType.CYPHER, query=query)
                )
            except (CypherSyntaxError, CypherUnsupportedError) as exc:
                error = exc
                messages += [
                    {"role": "assistant", "content": query},
                    {"role": "user", "content": f"That query failed: {exc}. Write it again."},
                ]
                continue
            return [
                r.model_copy(
                    update={
                        "search_type": SearchType.NATURAL_LANGUAGE.value,
                        "metadata": {**r.metadata, "cypher": query},
                    }
                )
                if isinstance(r, ResponseGraphEntry)
                else r
                for r in rows
            ]
        assert error is not None
        raise error


def _strip_fence(text: str) -> str:
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    return body.strip().rstrip(";")


#: GRAPH_REPORT's hub query: entities by how many relations touch them.
_HUBS = (
    "MATCH (e:Entity)-[r]-(x) WHERE type(r) <> 'is_a' "
    "RETURN e.name AS name, count(*) AS degree ORDER BY degree DESC LIMIT $limit"
)


def _hubs_query(names: tuple[str, ...], operator: str) -> tuple[str, dict[str, object]]:
    """The hub query, restricted to the entities tagged with (or named) ``names`` when given:
    any of them (``OR``) or all (``AND``), as :class:`NodeSetFilter` matches."""
    if not names:
        return _HUBS, {}
    params: dict[str, object] = {f"n{i}": name for i, name in enumerate(names)}
    joiner = " AND " if operator == "AND" else " OR "
    wanted = joiner.join(f"($n{i} IN e.node_set OR e.name = $n{i})" for i in range(len(names)))
    return _HUBS.replace(" RETURN ", f" AND ({wanted}) RETURN ", 1), params


class GraphReportRetriever(Retriever):
    """SearchType.GRAPH_REPORT: the graph's hub entities (the ``top_k`` entities most relations
    touch), one entry each (``text`` "name: N relations", ``raw`` {name, degree}); computed from
    the graph alone, the query text is not used and no LLM is called. cognee's report also
    suggests questions with an LLM; engramdb's does not. ``node_name`` reports only the hubs
    among the entities of those node sets (or so named)."""

    search_types = frozenset({SearchType.GRAPH_REPORT})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        from engramdb.retrieval.retrievers.cypher import search_cypher

        query, params = _hubs_query(tuple(opts.node_name or ()), opts.node_name_filter_operator)
        rows = await search_cypher(
            ctx.store,
            ctx.datasets,
            query,
            parameters={**params, "limit": opts.top_k},
            viewer=ctx.user.id,
        )
        return [
            r.model_copy(
                update={
                    "text": f"{r.raw.get('name')}: {r.raw.get('degree')} relations",
                    "kind": "graph_report",
                    "search_type": SearchType.GRAPH_REPORT.value,
                }
            )
            for r in rows
        ]
