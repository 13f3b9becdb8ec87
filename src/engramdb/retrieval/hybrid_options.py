"""How a recall's options size HYBRID_COMPLETION's lanes (:class:`~engramdb.retrieval.retrievers.
hybrid.HybridConfig`): ``top_k`` deepens the pool, and the reference's lane sizes in
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

from dataclasses import replace
from typing import TYPE_CHECKING

from engramdb.errors import EngramValidationError
from engramdb.retrieval.base import RecallOptions

if TYPE_CHECKING:
    from engramdb.retrieval.retrievers.hybrid import HybridConfig

__all__ = ["LANE_SIZES", "sized_config"]

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
