"""Errors of the Cypher subset. Both are EngramValidationErrors (HTTP 422): the query, not the
store, is at fault, and nothing was executed."""

from __future__ import annotations

from engramdb.errors import EngramValidationError

__all__ = ["DOCS_HINT", "CypherSyntaxError", "CypherUnsupportedError", "line_col"]

DOCS_HINT = "see docs/cypher.md for the supported subset"


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``text``."""
    before = text[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return line, column


class CypherSyntaxError(EngramValidationError):
    """A query that does not parse, with where it went wrong (``offset``, ``line``, ``column``)."""

    code = "cypher_syntax_error"

    def __init__(self, message: str, query: str, offset: int) -> None:
        line, column = line_col(query, offset)
        super().__init__(
            f"Cypher syntax error at line {line}, column {column} (offset {offset}): {message}; "
            + DOCS_HINT
        )
        self.offset = offset
        self.line = line
        self.column = column


class CypherUnsupportedError(EngramValidationError):
    """Valid Cypher outside the subset: a write clause, another unsupported clause or feature.

    ``clause`` names it (``"CREATE"``, ``"LOAD CSV"``, ``"variable-length relationship"``...).
    """

    code = "cypher_unsupported"

    def __init__(self, clause: str, query: str, offset: int, *, write: bool = False) -> None:
        line, column = line_col(query, offset)
        what = (
            f"CYPHER is read-only: the {clause} clause is not supported"
            if write
            else f"{clause} is not supported by engramdb's Cypher subset"
        )
        super().__init__(f"{what} (line {line}, column {column}); {DOCS_HINT}")
        self.clause = clause
        self.offset = offset
        self.line = line
        self.column = column
