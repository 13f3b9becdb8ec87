"""Words for PostgreSQL full-text search, normalised the way the embedded store's FTS5 does.

SQLite's ``unicode61 remove_diacritics 2`` tokenizer folds case and strips accents, so "Café"
matches "cafe". PostgreSQL's ``simple`` configuration only lower-cases, and ``unaccent`` is an
extension a server may lack; so engramdb normalises text itself, in Python, before PostgreSQL
sees it: NFKD, combining marks dropped, case-folded, split into runs of letters and digits.
Stored text becomes those words joined by spaces (``to_tsvector('simple', ...)`` then keeps
them as they are); query text goes through the same function, so both sides always agree. The
words are made of letters and digits only, so a query can never inject tsquery syntax.

Every row's ``tsvector`` also holds one *scope lexeme* naming its (collection, dataset):
``@`` and 16 hex digits of a hash. A search asks the GIN index for ``words AND (scope_1 OR
scope_2 ...)``, so the index alone narrows the rows to the requested datasets — no b-tree on
(collection, dataset) that a planner with stale statistics could prefer to the words (it would
then test the query against every row of the dataset). User words are letters and digits only, so
they can never match a scope lexeme.

Query words are chosen as in the embedded store (:func:`engramdb.storage.sqlite.graph.
query_tokens`: distinct, common English stopwords dropped unless nothing else is left, at most
64), so both backends search for the same words.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from uuid import UUID

from engramdb.storage.sqlite.graph import query_tokens

__all__ = ["document_words", "normalise", "query_words", "scope_lexeme", "scope_query"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def normalise(text: str) -> str:
    """Case-folded text without diacritics (compatibility-decomposed, marks removed)."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return stripped.casefold()


def document_words(text: str) -> list[str]:
    """Every word of ``text`` in order (with repeats): what is indexed, and its length."""
    return _WORD.findall(normalise(text))


def query_words(text: str) -> list[str]:
    """The distinct words a query searches for (possibly none)."""
    words = " ".join(_WORD.findall(normalise(text)))
    return query_tokens(words)


def scope_lexeme(collection: str, dataset_id: UUID) -> str:
    """The lexeme that marks a row of ``collection`` in ``dataset_id``."""
    digest = hashlib.blake2b(f"{collection}\x1f{dataset_id}".encode(), digest_size=8)
    return "@" + digest.hexdigest()


def scope_query(collection: str, dataset_ids: Iterable[UUID]) -> str:
    """tsquery text matching rows of ``collection`` in any of ``dataset_ids``."""
    return " | ".join(f"'{scope_lexeme(collection, d)}'" for d in dict.fromkeys(dataset_ids))
