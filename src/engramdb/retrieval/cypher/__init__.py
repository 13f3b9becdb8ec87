"""A read-only Cypher subset over the engramdb graph (SearchType.CYPHER); see docs/cypher.md.

lexer → parser (recursive descent, :mod:`.ast`) → compiler (one parameterised SELECT over
``nodes``/``edges``, every alias filtered by the recall's datasets, spelled in the store's SQL
dialect) → backend (any store declaring the CYPHER capability: SQLite and PostgreSQL) →
executor (rows as JSON-able dicts).
"""

from __future__ import annotations

from engramdb.errors import CypherSyntaxError, CypherTimeoutError, CypherUnsupportedError
from engramdb.retrieval.cypher.backend import (
    CypherBackend,
    Dialect,
    SqliteCypherBackend,
    SqliteDialect,
    backend_for,
)
from engramdb.retrieval.cypher.compiler import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    CompiledQuery,
    compile_query,
)
from engramdb.retrieval.cypher.executor import DEFAULT_TIMEOUT_S, CypherResult, run_cypher
from engramdb.retrieval.cypher.parse_expr import WRITE_CLAUSES
from engramdb.retrieval.cypher.parser import parse

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_TIMEOUT_S",
    "MAX_LIMIT",
    "WRITE_CLAUSES",
    "CompiledQuery",
    "CypherBackend",
    "CypherResult",
    "CypherSyntaxError",
    "CypherTimeoutError",
    "CypherUnsupportedError",
    "Dialect",
    "SqliteCypherBackend",
    "SqliteDialect",
    "backend_for",
    "compile_query",
    "parse",
    "run_cypher",
]
