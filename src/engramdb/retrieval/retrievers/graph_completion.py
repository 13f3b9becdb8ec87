"""The graph-completion family and TRIPLET_COMPLETION.

Every type retrieves triplets with :class:`~engramdb.retrieval.retrievers.graph.TripletSearch`,
renders them with :func:`~engramdb.retrieval.context.graph_context` and answers through
:func:`~engramdb.retrieval.completion.complete` (only_context, response_model, the Evidence block
and the missing-LLM error are handled there, identically for every type). They differ in what
they retrieve and place in the context:

* GRAPH_COMPLETION: the ``top_k`` triplets, entity descriptions and the passages asserting them.
* TRIPLET_COMPLETION: the triplets alone, ranked by similarity alone; the Evidence block cites
  their chunks but ``metadata.evidence`` stays empty (the seed's table).
* GRAPH_SUMMARY_COMPLETION: the summaries of the asserting chunks instead of the chunks;
  ``response_model`` is refused, as in the reference.
* GRAPH_COMPLETION_CONTEXT_EXTENSION: after the first retrieval, the one-hop neighbourhood of
  the top entities is loaded once and the facts around them are added (no LLM needed).
* GRAPH_COMPLETION_COT: with an LLM, one check "are these facts enough?" that may name a
  follow-up question; the follow-up is retrieved once (two retrieval rounds at most) and the answer
  is written from both. ``only_context`` returns the first prompt without any LLM call.
* GRAPH_COMPLETION_DECOMPOSITION: with an LLM, the question is split into at most three
  sub-questions (one structured call, also under ``only_context`` so the prompt shown is the one
  the model would get), each is retrieved, and the results are interleaved. Without an LLM the
  question is used as it is.

Merged contexts (COT, extension, decomposition) hold at most ``2 * top_k`` triplets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar
from uuid import UUID

from pydantic import BaseModel, Field

from engramdb.artifacts.truth import anchor_block
from engramdb.errors import EngramValidationError, LLMOutputError
from engramdb.models.records import Node, NodeType, stable_id
from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.providers.llm.base import LLM, ChatMessage
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import BuiltContext, complete, render_user_prompt
from engramdb.retrieval.context import (
    DEFAULT_PASSAGE_CHAR_BUDGET,
    Passage,
    graph_context,
    supporting_chunk_ids,
)
from engramdb.retrieval.graph_rank import KnownGraph, bridge_second, walk_chunks
from engramdb.retrieval.passages import PassageScoring, make_passages, score_passages
from engramdb.retrieval.retrievers.graph import (
    NODES_PER_SEED,
    GraphView,
    Triplet,
    TripletSearch,
    as_uuid,
    is_fact_node,
)

__all__ = [
    "GRAPH_RETRIEVERS",
    "GraphCompletionContextExtensionRetriever",
    "GraphCompletionCotRetriever",
    "GraphCompletionDecompositionRetriever",
    "GraphCompletionRetriever",
    "GraphSummaryCompletionRetriever",
    "TripletCompletionRetriever",
]

M = TypeVar("M", bound=BaseModel)

MAX_SUB_QUESTIONS = 3
#: Triplets whose endpoints seed the context extension.
EXTENSION_SEED_TRIPLETS = 5
#: Best chunk hits (of each of the vector and full-text searches, at least ``top_k``) that
#: may be shown as passages beside the chunks asserting the facts.
EXTRA_PASSAGES = 20
#: Rank constant of a passage's chunk prior (as hybrid's reciprocal-rank fusion).
PRIOR_RRF_K = 10.0
#: The chunk prior weighs more than in hybrid: the graph pool is wider (asserting chunks plus
#: both searches' hits), so a passage's own BM25 alone over-promotes stray matches. LoCoMo dev,
#: context only @250 / @750: prior 0.6 gave 0.849 / 0.931, 1.0 gives 0.866 / 0.936.
PASSAGE_SCORING = PassageScoring(chunk_prior=1.0)
#: The passage scoring of the multi-hop configuration (with :data:`GRAPH_LANE_WEIGHT` 1 and
#: :data:`PROSE_PASSAGE_WORDS` 50, as ``hybrid_options.MULTI_HOP``): a prose paragraph's next
#: sentence group is no evidence, so the neighbour term weighs little. HotpotQA-50 context
#: only @100 / @300, one sweep on the 49 questions: 0.673 / 0.857 with PASSAGE_SCORING,
#: 0.735 / 0.878 with this (prior 1.0 / neighbour 0.1: 0.694 / 0.878).
MULTI_HOP_PASSAGE_SCORING = PassageScoring(chunk_prior=0.8, neighbour=0.1)
#: A chunk that is one paragraph is split into sentence groups of at most this many words
#: (as HYBRID_COMPLETION's ``prose_passage_words``).
PROSE_PASSAGE_WORDS: int | None = None  # off by default, as HYBRID's (50 on HotpotQA-50)
#: Weight of the graph walk's ranking in the chunk prior (the vector and full-text ones
#: weigh 1).
GRAPH_LANE_WEIGHT = 0.0  # off by default, as HYBRID's graph lane (1.0 on HotpotQA-50)

_FOLLOW_UP_SYSTEM = (
    "You check whether knowledge-graph facts are enough to answer a question. Think it through "
    "briefly in `reasoning`. If the facts are enough, set `sufficient` to true. Otherwise set it "
    "to false and write in `follow_up_question` one short question whose answer would supply "
    "what is missing."
)
_DECOMPOSE_SYSTEM = (
    f"Split the user's question into at most {MAX_SUB_QUESTIONS} short, self-contained "
    "sub-questions that can each be looked up in a knowledge graph and together answer it. "
    "Return a simple question unchanged as the only sub-question."
)


@dataclass(slots=True)
class Collected:
    """What a type retrieved: ranked triplets, the view they came from, extra ``raw`` payload
    and a preamble placed before the facts."""

    triplets: list[Triplet]
    view: GraphView
    raw: dict[str, object] = field(default_factory=dict)
    preamble: str = ""


class FollowUpCheck(BaseModel):
    """The COT check's answer."""

    reasoning: str = ""
    sufficient: bool = True
    follow_up_question: str = ""


class SubQuestions(BaseModel):
    """The decomposition's answer."""

    questions: list[str] = Field(default_factory=list)


class GraphCompletionRetriever(Retriever):
    """GRAPH_COMPLETION; the base every other graph-family retriever specialises."""

    search_types = frozenset({SearchType.GRAPH_COMPLETION})
    #: Whether the context holds passages, entity descriptions, and metadata.evidence.
    passages = True
    descriptions = True
    evidence_in_metadata = True
    summaries = False
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        self.validate(opts)
        search = TripletSearch.for_options(ctx, opts)
        if self.passages and not self.summaries:
            # as many full-text hits as vector hits may become passages; never more than the
            # wide search asks of each collection
            search.lexical_k = min(max(EXTRA_PASSAGES, opts.top_k), search.wide_top_k)
        got = await self.collect(ctx, opts, search)
        built = await self.build(search, got.view, got.triplets, opts, preamble=got.preamble)
        if got.raw:
            built = replace(built, raw={**built.raw, **got.raw})
        return list(await complete(ctx, opts, built))

    def validate(self, opts: RecallOptions) -> None:
        """Refuse options this type cannot honour, before any work."""

    async def collect(
        self, ctx: RetrievalContext, opts: RecallOptions, search: TripletSearch
    ) -> Collected:
        """The ranked triplets for the context (the plain search for the question)."""
        lexical = asyncio.ensure_future(search.lexical(opts.query))  # overlaps the embedding
        try:
            (vector,) = await search.embed([opts.query])
        except BaseException:
            lexical.cancel()
            raise
        view = await search.search(vector, opts.query, lexical)
        return Collected(search.triplets(view, opts.top_k), view)

    async def build(
        self,
        search: TripletSearch,
        view: GraphView,
        triplets: list[Triplet],
        opts: RecallOptions,
        preamble: str = "",
    ) -> BuiltContext:
        """Render ``triplets`` with the chunks asserting them (or their summaries), then what
        a conversation established about the facts' entities (improve's build_truth_subspace;
        fail-open, nothing when they have no anchors), which is read meanwhile."""
        entities = [n for t in triplets for n in (t.source, t.target) if n.type == NodeType.ENTITY]
        built, block = await asyncio.gather(
            self._render(search, view, triplets, opts, preamble),
            anchor_block(search.ctx.store, entities if self.descriptions else []),
        )
        if block and built.text:
            built = replace(built, text=f"{built.text}\n\n{block}")
        return built

    async def _render(
        self,
        search: TripletSearch,
        view: GraphView,
        triplets: list[Triplet],
        opts: RecallOptions,
        preamble: str,
    ) -> BuiltContext:
        chunks = await search.chunk_nodes(view, supporting_chunk_ids(triplets))
        sources = list(chunks.values())
        passages: list[Passage] = []
        if self.passages:
            await walk_view(search, view, opts.query)
            shown = await search.chunk_nodes(view, passage_order(view, sources, opts.top_k))
            ordered = list(shown.values())
            passages = bridge_second(ranked_passages(view, ordered, opts), view.walked)
            if self.summaries:  # the chunks' summaries, in the same (importance-aware) ranking
                ranked = {p.chunk.id: p.chunk for p in passages}
                passages = await _summaries(search, view, list(ranked.values()))
        return graph_context(
            triplets,
            passages,
            sources=sources,
            descriptions=self.descriptions,
            passage_heading="Summaries" if self.summaries else "Passages",
            passage_budget=_passage_budget(opts),
            evidence_in_metadata=self.evidence_in_metadata,
            verbose=opts.verbose,
            preamble=preamble,
        )


class TripletCompletionRetriever(GraphCompletionRetriever):
    """TRIPLET_COMPLETION: triplets only, ranked by similarity alone (no importance weight)."""

    search_types = frozenset({SearchType.TRIPLET_COMPLETION})
    passages = False
    descriptions = False
    evidence_in_metadata = False


class GraphSummaryCompletionRetriever(GraphCompletionRetriever):
    """GRAPH_SUMMARY_COMPLETION: summaries of the asserting chunks in place of the chunks."""

    search_types = frozenset({SearchType.GRAPH_SUMMARY_COMPLETION})
    summaries = True

    def validate(self, opts: RecallOptions) -> None:
        if opts.response_model is not None or "response_model" in opts.retriever_specific_config:
            raise EngramValidationError(
                "response_model is not supported by GRAPH_SUMMARY_COMPLETION (as in the "
                "reference); use SearchType.GRAPH_COMPLETION for structured output"
            )


class GraphCompletionContextExtensionRetriever(GraphCompletionRetriever):
    """GRAPH_COMPLETION_CONTEXT_EXTENSION: retrieve, extend once around the top entities."""

    search_types = frozenset({SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION})

    async def collect(
        self, ctx: RetrievalContext, opts: RecallOptions, search: TripletSearch
    ) -> Collected:
        got = await super().collect(ctx, opts, search)
        first, view = got.triplets, got.view
        top = [
            n.id
            for t in first[:EXTENSION_SEED_TRIPLETS]
            for n in (t.source, t.target)
            if is_fact_node(n)
        ]
        top = list(dict.fromkeys(top))
        if not top:
            return got
        await search.extend(view, top)
        chosen, around = {t.edge.id for t in first}, set(top)
        extension = [
            t
            for t in search.triplets(view)
            if t.edge.id not in chosen
            and is_fact_node(t.source)
            and is_fact_node(t.target)
            and (t.source.id in around or t.target.id in around)
        ][: opts.top_k]
        return Collected(first + extension, view, {"extended_from": [str(i) for i in top]})


class GraphCompletionCotRetriever(GraphCompletionRetriever):
    """GRAPH_COMPLETION_COT: an LLM check may ask one follow-up question, retrieved once."""

    search_types = frozenset({SearchType.GRAPH_COMPLETION_COT})

    async def collect(
        self, ctx: RetrievalContext, opts: RecallOptions, search: TripletSearch
    ) -> Collected:
        got = await super().collect(ctx, opts, search)
        triplets, view = got.triplets, got.view
        if opts.only_context or ctx.llm is None or not triplets:
            return got
        first = await self.build(search, view, triplets, opts)
        check = await _structured(ctx.llm, _FOLLOW_UP_SYSTEM, opts.query, first, FollowUpCheck)
        question = "" if check is None or check.sufficient else check.follow_up_question.strip()
        extra: dict[str, object] = {"reasoning": check.reasoning if check else ""}
        if not question:
            return Collected(triplets, view, extra)
        (vector,) = await search.embed([question])
        follow_view = await search.search(vector)
        more = search.triplets(follow_view, opts.top_k)
        view.nodes.update({k: v for k, v in follow_view.nodes.items() if k not in view.nodes})
        merged = _dedupe([*triplets, *more])[: 2 * opts.top_k]
        return Collected(merged, view, {**extra, "follow_up_questions": [question]})


class GraphCompletionDecompositionRetriever(GraphCompletionRetriever):
    """GRAPH_COMPLETION_DECOMPOSITION: sub-questions via the LLM, retrieved and interleaved."""

    search_types = frozenset({SearchType.GRAPH_COMPLETION_DECOMPOSITION})

    async def collect(
        self, ctx: RetrievalContext, opts: RecallOptions, search: TripletSearch
    ) -> Collected:
        questions = await _decompose(ctx.llm, opts.query) if ctx.llm is not None else []
        if len(questions) <= 1:
            got = await super().collect(ctx, opts, search)
            got.raw["sub_questions"] = questions
            return got
        vectors = await search.embed(questions)
        view = GraphView()
        ranked: list[list[Triplet]] = []
        for vector in vectors:
            sub_view = await search.search(vector)
            ranked.append(search.triplets(sub_view, opts.top_k))
            view.nodes.update({k: v for k, v in sub_view.nodes.items() if k not in view.nodes})
        merged = _dedupe(_interleave(ranked))[: 2 * opts.top_k]
        preamble = "Sub-questions:\n" + "\n".join(f"- {q}" for q in questions)
        return Collected(merged, view, {"sub_questions": questions}, preamble)


#: One retriever per search type, for recall() to dispatch on.
GRAPH_RETRIEVERS: dict[SearchType, Retriever] = {
    t: r
    for r in (
        GraphCompletionRetriever(),
        TripletCompletionRetriever(),
        GraphSummaryCompletionRetriever(),
        GraphCompletionContextExtensionRetriever(),
        GraphCompletionCotRetriever(),
        GraphCompletionDecompositionRetriever(),
    )
    for t in r.search_types
}


# --- helpers ------------------------------------------------------------------------------------


async def _summaries(search: TripletSearch, view: GraphView, chunks: list[Node]) -> list[Passage]:
    """Each chunk's summary (its own text when it has none), in the chunks' order.

    A summary's id is derived from its chunk's (``stable_id("summary", chunk_id)``, see
    ``graph_builder``), so the ones not already in the view cost one ``get_nodes``.
    """
    by_chunk: dict[UUID, Node] = {}
    for node in view.nodes.values():
        chunk_id = as_uuid(node.properties.get("chunk_id"))
        if node.type == NodeType.SUMMARY and chunk_id is not None:
            by_chunk.setdefault(chunk_id, node)
    wanted = {stable_id("summary", c.id): c.id for c in chunks if c.id not in by_chunk}
    for node in await search.ctx.store.get_nodes(list(wanted), provenance=False) if wanted else []:
        by_chunk[wanted[node.id]] = node
    return [
        Passage(chunk=c, text=by_chunk[c.id].text if c.id in by_chunk else c.text) for c in chunks
    ]


def passage_order(view: GraphView, sources: Sequence[Node], top_k: int) -> list[UUID]:
    """The chunks whose text the context may show, most relevant to the question first.

    The chunks asserting the chosen facts, plus the best chunk hits of the search (at most
    ``max(EXTRA_PASSAGES, top_k)`` vector hits and as many full-text hits), ordered by
    reciprocal-rank fusion of their vector rank (the better of the chunk's own hit and its
    summary's) and full-text rank. Triplet order is the wrong order for passages: a triplet
    ranks by the mean of its endpoints' and its chunk's distances, so a fact about well-matching
    entity names can cite a chunk that barely matches the question. Chunks that were no hit at
    all keep their triplet order after the hits.
    """
    scores = chunk_priors(view)
    extra = max(EXTRA_PASSAGES, top_k)
    dense = [c for c in _dense_chunk_ranking(view)][:extra]
    hits = [*dense, *view.lexical_hits[:extra], *view.walked[:extra]]
    chosen = list(dict.fromkeys([*(c.id for c in sources), *hits]))
    position = {c: i for i, c in enumerate(chosen)}
    return sorted(chosen, key=lambda c: (-scores.get(c, 0.0), position[c]))


def chunk_priors(view: GraphView) -> dict[UUID, float]:
    """Each hit chunk's reciprocal-rank-fusion score over the vector and full-text rankings
    (and the graph walk's, once :func:`walk_view` ran, weighted :data:`GRAPH_LANE_WEIGHT`)."""
    scores = _prior_rrf(view)
    for rank, chunk_id in enumerate(view.walked):
        scores[chunk_id] = scores.get(chunk_id, 0.0) + GRAPH_LANE_WEIGHT / (PRIOR_RRF_K + rank + 1)
    return scores


def _prior_rrf(view: GraphView) -> dict[UUID, float]:
    scores: dict[UUID, float] = {}
    for ranking in (_dense_chunk_ranking(view), view.lexical_hits):
        for rank, chunk_id in enumerate(ranking):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (PRIOR_RRF_K + rank + 1)
    return scores


async def walk_view(search: TripletSearch, view: GraphView, query: str) -> None:
    """Rank chunks by personalized PageRank from the question's entities and the best
    vector / full-text chunk hits (:func:`~engramdb.retrieval.graph_rank.walk_chunks`) into
    ``view.walked``: a multi-hop question's second-hop chunk joins the passages."""
    if view.walked or GRAPH_LANE_WEIGHT <= 0:
        return
    seeds = sorted(_prior_rrf(view).items(), key=lambda kv: -kv[1])
    similarity = {e: 1.0 - view.distance[e] for e in view.entity_hits if e in view.distance}
    known = KnownGraph(contains=view.contained, contains_limit=NODES_PER_SEED, nodes=view.nodes)
    walked = await walk_chunks(search.ctx.store, query, seeds, similarity, known=known)
    view.walked = [c for c, _ in walked if _is_chunk(view.nodes.get(c))]


def _dense_chunk_ranking(view: GraphView) -> list[UUID]:
    entity_hits = set(view.entity_hits)
    hits = [
        node_id
        for node_id in view.distance
        if node_id not in entity_hits and _is_chunk(view.nodes.get(node_id))
    ]
    return sorted(hits, key=lambda c: view.distance[c])


def ranked_passages(view: GraphView, chunks: Sequence[Node], opts: RecallOptions) -> list[Passage]:
    """The paragraphs of ``chunks`` ranked by their own match with the question (see
    :mod:`engramdb.retrieval.passages`), each chunk's prior being its fused vector and
    full-text rank (:func:`chunk_priors`; 0 when it was no hit)."""
    scores = chunk_priors(view)
    prior = [(c, scores.get(c.id, 0.0)) for c in chunks]
    passages = make_passages(prior, prose_words=PROSE_PASSAGE_WORDS)
    scored = score_passages(passages, prior, opts.query, opts, PASSAGE_SCORING)
    return [Passage(chunk=p.chunk, text=p.text) for p in scored]


def _is_chunk(node: Node | None) -> bool:
    """A chunk node that may be shown (chunks not loaded yet count: hits are chunk ids)."""
    return node is None or (node.type == NodeType.CHUNK and not node.properties.get("internal"))


def _passage_budget(opts: RecallOptions) -> int:
    """``retriever_specific_config["passage_char_budget"]``: characters of passage text."""
    value = opts.retriever_specific_config.get("passage_char_budget", DEFAULT_PASSAGE_CHAR_BUDGET)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EngramValidationError(
            f"retriever_specific_config['passage_char_budget'] must be a non-negative integer "
            f"(characters of passage text), got {value!r}"
        )
    return value


async def _structured(
    llm: LLM, system: str, question: str, built: BuiltContext, schema: type[M]
) -> M | None:
    """One structured call; None when the model's answer stays unusable (the caller carries on
    with what it has rather than failing the recall)."""
    messages: list[ChatMessage] = [
        {"role": "system", "content": system},
        {"role": "user", "content": render_user_prompt(question, built)},
    ]
    try:
        value, _ = await llm.structured(messages, schema, cache=False)
    except LLMOutputError:
        return None
    return value


async def _decompose(llm: LLM, question: str) -> list[str]:
    """At most three sub-questions; the question itself when the model gives none."""
    messages: list[ChatMessage] = [
        {"role": "system", "content": _DECOMPOSE_SYSTEM},
        {"role": "user", "content": f"Question: {question}"},
    ]
    try:
        answer, _ = await llm.structured(messages, SubQuestions)
    except LLMOutputError:
        return [question]
    questions = list(dict.fromkeys(q.strip() for q in answer.questions if q.strip()))
    return questions[:MAX_SUB_QUESTIONS] or [question]


def _interleave(ranked: Sequence[Sequence[Triplet]]) -> list[Triplet]:
    """Round-robin over the per-question rankings, so every sub-question gets its best facts in."""
    out: list[Triplet] = []
    for i in range(max((len(r) for r in ranked), default=0)):
        out.extend(r[i] for r in ranked if i < len(r))
    return out


def _dedupe(triplets: Sequence[Triplet]) -> list[Triplet]:
    """First occurrence of each edge."""
    seen: set[UUID] = set()
    out = []
    for t in triplets:
        if t.edge.id not in seen:
            seen.add(t.edge.id)
            out.append(t)
    return out
