"""The syntax tree of the Cypher subset.

Every expression node records its source span (``start``, ``end``) so that errors can point at it
and a RETURN item without ``AS`` is named by its exact source text (``n.name``, ``count(*)``).
Nodes are frozen dataclasses: the compiler reads them, nothing rewrites them.

:func:`sql_cost` bounds what an expression becomes once compiled (how deeply its SQL nests, how
deep SQLite's expression tree gets, how many terms it holds), so the parser can refuse a query
that SQLite's own parser would choke on before any SQL is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as Lit

__all__ = [
    "BoolOp",
    "Compare",
    "CompareOp",
    "Direction",
    "Expr",
    "FuncCall",
    "IsNull",
    "ListExpr",
    "Literal",
    "Neg",
    "NodePattern",
    "Not",
    "OrderItem",
    "Param",
    "Pattern",
    "Prop",
    "Query",
    "RelPattern",
    "ReturnItem",
    "SqlCost",
    "Var",
    "sql_cost",
]

Scalar = str | int | float | bool | None
Direction = Lit["out", "in", "both"]
CompareOp = Lit["=", "<>", "<", ">", "<=", ">=", "CONTAINS", "STARTS WITH", "ENDS WITH", "IN"]


@dataclass(frozen=True, slots=True)
class Literal:
    value: Scalar
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ListExpr:
    items: tuple[Expr, ...]
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Prop:
    """``var.key``: a column (name, type, text, ...) or a key of the JSON ``properties``."""

    var: str
    key: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class FuncCall:
    """``name(args)``; ``star`` for ``count(*)``; ``distinct`` for ``count(DISTINCT x)``."""

    name: str
    args: tuple[Expr, ...]
    start: int
    end: int
    star: bool = False
    distinct: bool = False


@dataclass(frozen=True, slots=True)
class Not:
    operand: Expr
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class BoolOp:
    op: Lit["AND", "OR"]
    operands: tuple[Expr, ...]
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Compare:
    op: CompareOp
    left: Expr
    right: Expr
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class IsNull:
    operand: Expr
    negated: bool
    start: int
    end: int


Expr = Literal | Param | ListExpr | Var | Prop | FuncCall | Not | Neg | BoolOp | Compare | IsNull


@dataclass(frozen=True, slots=True)
class NodePattern:
    """``(var:Label {key: value})``; the label is a node type (Entity, Chunk, ...)."""

    var: str | None
    label: str | None
    props: tuple[tuple[str, Expr], ...]
    start: int


@dataclass(frozen=True, slots=True)
class RelPattern:
    """``-[var:TYPE|OTHER {key: value}]->``; the types are edge relations."""

    var: str | None
    types: tuple[str, ...]
    direction: Direction
    props: tuple[tuple[str, Expr], ...]
    start: int


@dataclass(frozen=True, slots=True)
class Pattern:
    """A path of one node and up to two hops: ``len(nodes) == len(rels) + 1``."""

    nodes: tuple[NodePattern, ...]
    rels: tuple[RelPattern, ...]


@dataclass(frozen=True, slots=True)
class ReturnItem:
    expr: Expr
    #: The column name: the alias, or the expression's source text.
    name: str


@dataclass(frozen=True, slots=True)
class OrderItem:
    expr: Expr
    descending: bool


@dataclass(frozen=True, slots=True)
class Query:
    pattern: Pattern
    where: Expr | None
    distinct: bool
    items: tuple[ReturnItem, ...]
    order: tuple[OrderItem, ...]
    skip: Expr | None
    limit: Expr | None
    #: The query text, for error positions found after parsing.
    text: str


# --- what an expression costs once compiled ---------------------------------------------------
#
# The weights mirror the SQL that retrieval/cypher/sql_expr.py writes for each node (SQLite
# dialect), measured against SQLite 3.40 and rounded up. ``nesting`` counts SQLite parser-stack
# slots along the deepest path: ``(NOT x)`` takes 2, ``(a = b)`` 3, ``a IN [b, c]`` 4,
# ``a IN n.list`` (a json_each subquery) 8, and the ENDS WITH form
# ``(length(a) >= length(b) AND substr(a, length(a) - length(b) + 1) = b)`` 14 for its right
# operand. ``depth`` is SQLite's expression-tree depth, where a chain ``a AND b AND c`` is
# left-deep, one level per term. ``size`` counts terms after STARTS WITH (right operand twice)
# and ENDS WITH (both operands three times) repeat their operands: nested, they grow
# exponentially.
_LEAF_WEIGHT = {"Literal": 1, "Param": 1, "Var": 1, "Prop": 3}
_COMPARE_WEIGHT = {"IN": 8, "CONTAINS": 6, "STARTS WITH": 9, "ENDS WITH": 14}
_SIMPLE_COMPARE_WEIGHT = 3
_IN_LIST_WEIGHT = 4


@dataclass(frozen=True, slots=True)
class SqlCost:
    """An upper bound of what one expression compiles to (see the comment above)."""

    nesting: int
    depth: int
    size: int


def sql_cost(expr: Expr) -> SqlCost:
    """The compiled cost of ``expr``. Recursive: call it only on a tree the parser built, whose
    nesting the parser already bounded."""
    if isinstance(expr, Literal | Param | Var | Prop):
        weight = _LEAF_WEIGHT[type(expr).__name__]
        return SqlCost(weight, weight, 1)
    if isinstance(expr, Compare):
        left, right = sql_cost(expr.left), sql_cost(expr.right)
        weight = _COMPARE_WEIGHT.get(expr.op, _SIMPLE_COMPARE_WEIGHT)
        if expr.op == "IN" and isinstance(expr.right, ListExpr):
            weight = _IN_LIST_WEIGHT
        if expr.op == "STARTS WITH":
            size = left.size + 2 * right.size + 3
        elif expr.op == "ENDS WITH":
            size = 3 * (left.size + right.size) + 5
        else:
            size = left.size + right.size + 1
        return SqlCost(
            weight + max(left.nesting, right.nesting),
            weight + max(left.depth, right.depth),
            size,
        )
    if isinstance(expr, BoolOp):
        costs = [sql_cost(o) for o in expr.operands]
        return SqlCost(
            3 + max(c.nesting for c in costs),
            len(costs) + max(c.depth for c in costs),
            sum(c.size for c in costs) + len(costs),
        )
    children: tuple[Expr, ...]
    if isinstance(expr, ListExpr | FuncCall):
        children = expr.items if isinstance(expr, ListExpr) else expr.args
        weight = 1 if isinstance(expr, ListExpr) else 3
    else:  # Not, Neg, IsNull
        children = (expr.operand,)
        weight = 2
    costs = [sql_cost(c) for c in children]
    return SqlCost(
        weight + max((c.nesting for c in costs), default=0),
        weight + max((c.depth for c in costs), default=0),
        1 + sum(c.size for c in costs),
    )
