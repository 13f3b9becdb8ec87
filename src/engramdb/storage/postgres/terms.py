"""Document frequencies of the full-text words, maintained with the full-text rows.

``lexical_terms`` holds, for each (collection, dataset) and each word of its full-text rows, how
many rows hold the word: BM25's *n*, read by a search with one primary-key probe per word and
dataset instead of being counted in the GIN index per query (:mod:`.reads`). Every statement
that writes or deletes ``lexical`` rows updates it in the same transaction, from the stored
``tsvector`` itself (``tsvector_to_array``: each word once per row; the scope lexemes, which
start with ``@``, are left out), so the counts always agree with the rows
(:mod:`.integrity` checks it):

* a document write subtracts the words of the rows it replaces, upserts its rows, then adds
  their words (:func:`subtract_terms`, :func:`add_terms`), keys in one order so that concurrent
  writers lock them in the same order;
* deleting items or nodes subtracts the words of the rows about to go, then drops the words
  no row holds any more (:data:`DROP_SPENT`, through a partial index of those rows only);
* forgetting a dataset deletes its rows by ``dataset_id``.
"""

from __future__ import annotations

from typing import LiteralString

__all__ = [
    "DROP_SPENT",
    "FREQUENCIES",
    "TERMS_DDL",
    "add_terms",
    "row_terms",
    "subtract_terms",
]

#: The table and its index of spent words (created by migration 10 with :func:`add_terms`
#: over every row). The key leads with the dataset: forgetting one deletes a range.
TERMS_DDL: tuple[LiteralString, ...] = (
    """CREATE TABLE lexical_terms (
        collection text NOT NULL,
        dataset_id uuid NOT NULL,
        word text NOT NULL,
        docs bigint NOT NULL,
        PRIMARY KEY (dataset_id, collection, word)
    )""",
    "CREATE INDEX lexical_terms_spent ON lexical_terms (collection) WHERE docs <= 0",
)


def row_terms(where: LiteralString) -> LiteralString:
    """(collection, dataset_id, word, rows holding it) over the ``lexical`` rows (alias ``l``)
    that ``where`` selects."""
    return (
        "SELECT l.collection, l.dataset_id, w.word, count(*) AS docs FROM lexical l "
        "CROSS JOIN LATERAL unnest(tsvector_to_array(l.words)) AS w(word) "
        f"WHERE {where} AND left(w.word, 1) <> '@' GROUP BY 1, 2, 3"
    )


def add_terms(where: LiteralString) -> LiteralString:
    """Count the words of the rows ``where`` selects (just written) into ``lexical_terms``."""
    return (
        "INSERT INTO lexical_terms (collection, dataset_id, word, docs) "
        f"{row_terms(where)} ORDER BY 1, 2, 3 "
        "ON CONFLICT (collection, dataset_id, word) DO UPDATE SET "
        "docs = lexical_terms.docs + excluded.docs"
    )


def subtract_terms(where: LiteralString) -> LiteralString:
    """Take the words of the rows ``where`` selects (about to be replaced or deleted) out of
    ``lexical_terms``; :data:`DROP_SPENT` then removes the words left at zero."""
    return (
        f"UPDATE lexical_terms t SET docs = t.docs - g.docs FROM ({row_terms(where)}) AS g "
        "WHERE t.collection = g.collection AND t.dataset_id = g.dataset_id AND t.word = g.word"
    )


DROP_SPENT: LiteralString = "DELETE FROM lexical_terms WHERE docs <= 0"

#: Bound to (collection, dataset ids, words): each word's rows over the datasets (words no row
#: holds are missing).
FREQUENCIES: LiteralString = (
    "SELECT word, sum(docs)::bigint FROM lexical_terms WHERE collection = %s "
    "AND dataset_id = ANY(%s::uuid[]) AND word = ANY(%s::text[]) GROUP BY word"
)
