"""The syntax tree of the Cypher subset.

Every expression node records its source span (``start``, ``end``) so that errors can point at it
and a RETURN item without ``AS`` is named by its exact source text (``n.name``, ``count(*)``).
Nodes are frozen dataclasses: the compiler reads them, nothing rewrites them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as Lit

__all__ = [
    "BoolOp",
    "Compare",
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
    "Var",
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
