"""HYBRID_COMPLETION's tuning (:class:`HybridConfig`, measured as
:mod:`engramdb.retrieval.retrievers.hybrid` tells) and how a recall's options size its lanes:
``top_k`` deepens the pool, and the reference's lane sizes in
``retriever_specific_config`` set them outright, uncapped as in the reference:

* ``chunks_top_k``: chunks in the context (split into passages), and at least that many asked of
  the dense and BM25 lanes;
* ``entities_top_k``: entity vector hits of the entity lane (0 turns the lane off);
* ``facts_top_k``: fact lines after the passages (0: none);
* ``text_summaries_top_k``: summary vector hits of the summary lane (0, the default: off).

A value that is not a non-negative integer raises EngramValidationError naming the key; None
is "not given".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engramdb.errors import EngramValidationError
from engramdb.retrieval.base import RecallOptions
from engramdb.retrieval.graph_rank import DEFAULT_WALK, GraphWalk
from engramdb.retrieval.passages import PassageScoring

__all__ = ["DEFAULT_HYBRID_CONFIG", "LANE_SIZES", "MULTI_HOP", "HybridConfig", "sized_config"]


@dataclass(frozen=True, slots=True)
class HybridConfig:
    """Tuning of the hybrid retriever. The defaults are the best measured on LoCoMo dev; the
    scores they reach were flat (±0.5 points) around them for every knob tried (see
    bench/locomo_hybrid.py)."""

    #: Chunks asked of the dense and of the BM25 lane.
    dense_k: int = 40
    lexical_k: int = 40
    #: Entity and summary vector hits asked of the entity lane. The summary lane is off by
    #: default: on LoCoMo dev it moved recall by noise only (12 hits: 0.855 / 0.945 @250 / @750,
    #: none: 0.858 / 0.940) while its search is a third of the query's vector work, the
    #: difference between 54 and ~45 ms p50 at 100k chunks.
    entity_k: int = 12
    summary_k: int = 0
    #: Reciprocal-rank-fusion constant: lower trusts the top ranks of each lane more.
    rrf_k: float = 10.0
    dense_weight: float = 1.0
    lexical_weight: float = 1.0
    summary_weight: float = 0.5
    entity_weight: float = 0.5
    #: An entity contained in more chunks than this is too generic to point at any of them.
    entity_max_chunks: int = 6
    #: Weight of the graph lane: chunks ranked by personalized PageRank from the question's
    #: entities and the best fused chunks over the entity–chunk graph (0 turns it off; see
    #: :mod:`engramdb.retrieval.graph_rank`). It brings a multi-hop question's second-hop
    #: paragraph, which shares few words with the question, into the pool.
    #: Off by default: with ``MULTI_HOP`` below HotpotQA-50 gains (0.673 / 0.857 ->
    #: 0.714 / 0.918 @100 / @300) but LoCoMo dev @750 drops under 0.94 (0.858 / 0.940 ->
    #: 0.862 / 0.931; bench/README.md, issue 18).
    graph_weight: float = 0.0
    walk: GraphWalk = DEFAULT_WALK
    #: Move the walk's best chunk (other than the first passage's) to second place.
    bridge_slot: bool = False
    #: How many of the best fused chunks are split into passages (at least ``top_k``).
    expand_chunks: int = 30
    #: Passage relevance = lexical * passage_lexical + chunk prior * chunk_prior
    #: + best neighbour's lexical * neighbour, each on a 0..1 scale.
    passage_lexical: float = 1.0
    chunk_prior: float = 0.6
    neighbour: float = 0.3
    #: Paragraphs longer than this (words) are split into groups of sentences.
    max_passage_words: int = 150
    #: A chunk that is a single paragraph (prose) is split into sentence groups of at most
    #: this many words, so that the sentence naming a bridge entity or holding the answer is
    #: ranked on its own (HotpotQA-50 @300: 0.857 -> 0.878); transcripts keep their turns.
    prose_passage_words: int | None = None
    #: This many passages are ranked one by one; the rest of their chunks follow whole.
    ranked_passages: int = 40
    #: Fact lines appended after the passages.
    max_fact_lines: int = 5
    #: Upper bound of the rendered context, in whitespace-separated words.
    context_words: int = 2000
    #: Prefix each passage with its document's date ("[8 May 2023] ..."). TEMPORAL turns it on.
    date_labels: bool = False
    #: BM25 parameters of passage scoring.
    bm25_k1: float = 1.2
    bm25_b: float = 0.75

    @property
    def scoring(self) -> PassageScoring:
        """The passage-scoring part of this configuration."""
        return PassageScoring(
            self.passage_lexical, self.chunk_prior, self.neighbour, self.bm25_k1, self.bm25_b
        )


#: The multi-hop configuration measured on HotpotQA-50 (bench/hotpotqa.py): the graph lane,
#: the bridge slot and the prose split on, and passages ranked more by their chunk's fused
#: score than by their neighbour's match (a transcript's answer follows the turn that asked; a
#: prose paragraph's next sentence group is no evidence). HotpotQA-50 context only @100 /
#: @300, one sweep on the 49 questions (so a tuned figure): chunk prior 0.6 and neighbour 0.3
#: 0.653 / 0.878; 0.8 / 0.1 0.714 / 0.918; 0.7-0.9 / 0-0.2 all 0.918 @300, 0.65-0.71 @100.
MULTI_HOP = HybridConfig(
    graph_weight=0.1,
    bridge_slot=True,
    prose_passage_words=50,
    chunk_prior=0.8,
    neighbour=0.1,
)


DEFAULT_HYBRID_CONFIG = HybridConfig()

#: The ``retriever_specific_config`` keys that size a lane.
LANE_SIZES = ("chunks_top_k", "entities_top_k", "facts_top_k", "text_summaries_top_k")


def _size(opts: RecallOptions, key: str) -> int | None:
    value = opts.retriever_specific_config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EngramValidationError(
            f"retriever_specific_config[{key!r}] must be a non-negative integer, got {value!r}"
        )
    return value


def sized_config(config: HybridConfig, opts: RecallOptions) -> HybridConfig:
    """``config`` with the pool deepened to ``opts.top_k`` chunks and the lane sizes the
    recall's ``retriever_specific_config`` gives."""
    if opts.top_k > config.expand_chunks:
        config = replace(
            config,
            expand_chunks=opts.top_k,
            dense_k=max(config.dense_k, opts.top_k),
            lexical_k=max(config.lexical_k, opts.top_k),
        )
    chunks, entities, facts, summaries = (_size(opts, key) for key in LANE_SIZES)
    if chunks is not None:
        config = replace(
            config,
            expand_chunks=chunks,
            dense_k=max(config.dense_k, chunks),
            lexical_k=max(config.lexical_k, chunks),
        )
    if entities is not None:
        config = replace(config, entity_k=entities)
    if facts is not None:
        config = replace(config, max_fact_lines=facts)
    if summaries is not None:
        config = replace(config, summary_k=summaries)
    return config
