"""The Cypher subset's documentation hint. Its errors (:class:`~engramdb.errors.CypherSyntaxError`,
:class:`~engramdb.errors.CypherUnsupportedError`, :class:`~engramdb.errors.CypherTimeoutError`)
live in :mod:`engramdb.errors` with the rest of the tree."""

from __future__ import annotations

from engramdb.errors import CYPHER_DOCS_HINT

__all__ = ["DOCS_HINT"]

DOCS_HINT = CYPHER_DOCS_HINT
