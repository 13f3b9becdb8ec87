"""The global context index's kept rankings stay exact under any sequence of writes: the root's
entities (re-ranked only when a change may reach them) and the documents whose ranking window
``N`` left, against a fresh computation after every step."""

from __future__ import annotations

import random
from uuid import UUID

import pytest

from engramdb.improvement.global_index import ROOT_ENTITIES, level, rank
from engramdb.improvement.global_index_state import IndexState

ENTITIES = [UUID(int=random.Random(i).getrandbits(128)) for i in range(60)]


def _fresh_root(kept: IndexState) -> list[UUID]:
    top, _ = rank(kept.top_counts, kept.chunks, kept.df, size=ROOT_ENTITIES)
    return [s.entity_id for s in top]


def _step(kept: IndexState, rng: random.Random, docs: list[UUID]) -> None:
    """One write: a document added, re-read with other mentions, or removed; then the
    documents an incremental build re-ranks (new or re-read, sharing a touched entity, or out
    of their window) are re-ranked, as build_incremental does."""
    roll = rng.random()
    touched: set[UUID] = set()
    changed: set[UUID] = set()
    if roll < 0.3 and len(docs) >= 3:  # only N moves: kept rankings hold or leave their window
        doc_id = UUID(int=rng.getrandbits(128))
        docs.append(doc_id)
        kept.set_chunks(doc_id, rng.randint(1, 400))
    elif roll < 0.6 or len(docs) < 3:
        doc_id = UUID(int=rng.getrandbits(128))
        docs.append(doc_id)
        hubs = rng.sample(ENTITIES[:8], k=rng.randint(0, 3))  # skewed: a few entities everywhere
        rest = rng.sample(ENTITIES, k=rng.randint(1, 12))
        touched = kept.set_mentions(doc_id, {e: rng.randint(1, 6) for e in {*hubs, *rest}})
        kept.set_chunks(doc_id, rng.randint(1, 40))
        changed.add(doc_id)
    elif roll < 0.85:
        doc_id = rng.choice(docs)
        touched = kept.set_mentions(
            doc_id, {e: rng.randint(1, 6) for e in rng.sample(ENTITIES, k=rng.randint(0, 10))}
        )
        kept.set_chunks(doc_id, rng.randint(1, 40))
        changed.add(doc_id)
    else:
        doc_id = docs.pop(rng.randrange(len(docs)))
        touched = set(kept.per_doc.get(doc_id, {}))
        kept.remove_document(doc_id)
    now = level(kept.chunks)
    expected_outside = {d for d, (lo, hi) in kept.window.items() if not lo < now < hi}
    outside = kept.outside(now)
    assert outside == expected_outside
    rerank = {d for d in changed if d in kept.per_doc}
    rerank |= {d for e in touched for d in kept.by_entity.get(e, ())}
    rerank |= outside
    for d in rerank:
        kept.rerank(d)


@pytest.mark.parametrize("seed", range(12))
def test_kept_rankings_equal_fresh_ones_after_every_write(seed: int) -> None:
    rng = random.Random(seed)
    kept = IndexState.empty("token", ())
    docs: list[UUID] = []
    reused = 0
    for _ in range(300):
        before = kept.root_best
        _step(kept, rng, docs)
        assert kept.root_entities() == _fresh_root(kept)
        reused += before is not None and kept.root_best is before
        for d, mentions in kept.per_doc.items():  # every ranking is the fresh one (its scores
            top, _ = rank(mentions, kept.chunks, kept.df)  # may date from an earlier N)
            assert [s.entity_id for s in kept.top[d]] == [s.entity_id for s in top]
    assert reused > 0
