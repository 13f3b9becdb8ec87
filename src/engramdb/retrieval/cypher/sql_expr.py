"""The expression half of the Cypher-to-SQL compiler: values, comparisons, membership, calls.

Every value becomes a :data:`~.backend.Fragment` -- SQL text with the dialect's placeholders
plus the values bound to them -- so nothing the user wrote is ever spliced into SQL. Split from
:mod:`.compiler` (the statement: pattern, RETURN, ORDER BY, LIMIT) to keep modules small.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal as Lit
from uuid import UUID

from engramdb.errors import CypherSyntaxError
from engramdb.retrieval.cypher.ast import (
    BoolOp,
    Compare,
    Expr,
    FuncCall,
    IsNull,
    ListExpr,
    Literal,
    Neg,
    Not,
    Param,
    Prop,
    Query,
    Var,
)
from engramdb.retrieval.cypher.backend import Dialect, Fragment
from engramdb.retrieval.cypher.parse_expr import AGGREGATES

__all__ = [
    "EDGE_COLUMNS",
    "EDGE_FIELDS",
    "NODE_COLUMNS",
    "NODE_FIELDS",
    "Binding",
    "ExprCompiler",
    "has_aggregate",
]

#: A returned node / relationship: its fields, in SQL column order.
NODE_FIELDS = (
    "id",
    "type",
    "name",
    "text",
    "properties",
    "importance_weight",
    "feedback_weight",
    "dataset_id",
)
EDGE_FIELDS = (
    "id",
    "relation",
    "source_id",
    "target_id",
    "properties",
    "importance_weight",
    "feedback_weight",
    "dataset_id",
)
#: Property names that are table columns (anything else is a key of the JSON properties).
NODE_COLUMNS = {f: f for f in NODE_FIELDS}
EDGE_COLUMNS = {**{f: f for f in EDGE_FIELDS}, "type": "relation"}
_SQL_OPS = {"=": "=", "<>": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}


@dataclass(frozen=True, slots=True)
class Binding:
    kind: Lit["node", "edge"]
    alias: str


def has_aggregate(expr: Expr) -> bool:
    if isinstance(expr, FuncCall) and expr.name in AGGREGATES:
        return True
    children: tuple[Expr, ...] = ()
    if isinstance(expr, FuncCall | ListExpr):
        children = expr.args if isinstance(expr, FuncCall) else expr.items
    elif isinstance(expr, Not | Neg | IsNull):
        children = (expr.operand,)
    elif isinstance(expr, BoolOp):
        children = expr.operands
    elif isinstance(expr, Compare):
        children = (expr.left, expr.right)
    return any(has_aggregate(c) for c in children)


class ExprCompiler:
    """Compiles expressions against the variables bound so far (``self.bindings``)."""

    def __init__(
        self,
        query: Query,
        dataset_ids: list[str],
        parameters: Mapping[str, object],
        dialect: Dialect,
    ) -> None:
        self.q = query
        self.datasets = dataset_ids
        self.parameters = parameters
        self.d = dialect
        self.bindings: dict[str, Binding] = {}
        self.tables: list[str] = []
        self.conditions: list[Fragment] = []
        self.aggregates_ok = False
        self.joiner = ", "
        #: The user whose per-user internal nodes may match (None: no such filter).
        self.viewer: str | None = None

    def error(self, message: str, offset: int) -> CypherSyntaxError:
        return CypherSyntaxError(message, self.q.text, offset)

    # --- expressions -------------------------------------------------------------------------

    def binding(self, name: str, offset: int) -> Binding:
        found = self.bindings.get(name)
        if found is None:
            known = ", ".join(self.bindings) or "none"
            raise self.error(
                f"unknown variable {name!r} (variables in the pattern: {known})", offset
            )
        return found

    def check_key(self, key: str, offset: int) -> None:
        if '"' in key or not key:
            raise self.error(f"property name {key!r} cannot be used", offset)

    def property(self, alias: str, kind: str, key: str, offset: int) -> Fragment:
        columns = NODE_COLUMNS if kind == "node" else EDGE_COLUMNS
        if key in columns:
            return self.d.column(alias, columns[key]), []
        self.check_key(key, offset)
        return self.d.json_value(f"{alias}.properties", key)

    def json_prop(self, expr: Expr) -> tuple[str, str] | None:
        """``(properties column, key)`` when ``expr`` reads a JSON property, else None."""
        if not isinstance(expr, Prop):
            return None
        binding = self.bindings.get(expr.var)
        if binding is None:
            return None
        columns = NODE_COLUMNS if binding.kind == "node" else EDGE_COLUMNS
        if expr.key in columns or expr.key == "properties":
            return None
        self.check_key(expr.key, expr.start)
        return f"{binding.alias}.properties", expr.key

    def typed_value(self, expr: Expr, other: Expr | None) -> Fragment:
        """:meth:`value`, reading a JSON property as a number or boolean when it is compared
        with one (``other`` a number / boolean literal or parameter) or aggregated as a number
        (``other`` None). Stores whose JSON values are typed (SQLite) read it the same way."""
        prop = self.json_prop(expr)
        if prop is None:
            return self.value(expr)
        if other is None:
            return self.d.json_number(*prop)
        sample: object = None
        if isinstance(other, Literal):
            sample = other.value
        elif isinstance(other, Param) and other.name in self.parameters:
            sample = self.parameters[other.name]
        if isinstance(sample, bool):
            return self.d.json_bool(*prop)
        if isinstance(sample, int | float):
            return self.d.json_number(*prop)
        return self.value(expr)

    def param(self, expr: Param) -> object:
        if expr.name not in self.parameters:
            raise self.error(
                f"parameter ${expr.name} was not given; pass "
                f"retriever_specific_config={{'parameters': {{'{expr.name}': ...}}}}",
                expr.start,
            )
        value = self.parameters[expr.name]
        if isinstance(value, list | tuple):
            return [_scalar(v, expr, self) for v in value]
        return _scalar(value, expr, self)

    def value(self, expr: Expr) -> Fragment:
        """The SQL value of ``expr``. Aggregate calls are accepted only while
        ``self.aggregates_ok`` (RETURN and ORDER BY), and never inside another aggregate."""
        if isinstance(expr, Literal):
            return ("NULL", []) if expr.value is None else self.d.literal(expr.value)
        if isinstance(expr, Param):
            value = self.param(expr)
            if isinstance(value, list):
                raise self.error(f"${expr.name} is a list; lists go on the right of IN", expr.start)
            return ("NULL", []) if value is None else self.d.literal(value)
        if isinstance(expr, ListExpr):
            raise self.error("a list can only stand on the right of IN", expr.start)
        if isinstance(expr, Var):
            return f"{self.binding(expr.name, expr.start).alias}.id", []
        if isinstance(expr, Prop):
            binding = self.binding(expr.var, expr.start)
            return self.property(binding.alias, binding.kind, expr.key, expr.start)
        if isinstance(expr, FuncCall):
            return self.call(expr)
        if isinstance(expr, Not):
            inner = self.value(expr.operand)
            return f"(NOT {inner[0]})", inner[1]
        if isinstance(expr, Neg):
            inner = self.value(expr.operand)
            return f"(-{inner[0]})", inner[1]
        if isinstance(expr, BoolOp):
            parts = [self.value(o) for o in expr.operands]
            sql = f" {expr.op} ".join(p[0] for p in parts)
            return f"({sql})", [v for p in parts for v in p[1]]
        if isinstance(expr, IsNull):
            inner = self.value(expr.operand)
            return f"({inner[0]} IS {'NOT ' if expr.negated else ''}NULL)", inner[1]
        return self.compare(expr)

    def compare(self, expr: Compare) -> Fragment:
        if expr.op == "IN":
            return self.membership(self.value(expr.left), expr.right)
        left = self.typed_value(expr.left, expr.right)
        right = self.typed_value(expr.right, expr.left)
        if expr.op in _SQL_OPS:
            return f"({left[0]} {_SQL_OPS[expr.op]} {right[0]})", [*left[1], *right[1]]
        if expr.op == "CONTAINS":
            return self.d.contains(left, right)
        a, b = left[0], right[0]
        if expr.op == "STARTS WITH":
            return f"(substr({a}, 1, length({b})) = {b})", [*left[1], *right[1], *right[1]]
        # ENDS WITH
        sql = f"(length({a}) >= length({b}) AND substr({a}, length({a}) - length({b}) + 1) = {b})"
        lp, rp = left[1], right[1]
        return sql, [*lp, *rp, *lp, *lp, *rp, *rp]

    def membership(self, left: Fragment, right: Expr) -> Fragment:
        if isinstance(right, ListExpr):
            if not right.items:
                return "(0 = 1)", []
            items = [self.value(i) for i in right.items]
            sql = ", ".join(i[0] for i in items)
            return f"({left[0]} IN ({sql}))", [*left[1], *(v for i in items for v in i[1])]
        if isinstance(right, Param):
            value = self.param(right)
            if not isinstance(value, list):
                raise self.error(f"${right.name} must be a list for IN", right.start)
            member_sql, member_params = self.d.in_json_list(left[0], value)
            return f"({member_sql})", [*left[1], *member_params]
        if isinstance(right, Prop):
            binding = self.binding(right.var, right.start)
            columns = NODE_COLUMNS if binding.kind == "node" else EDGE_COLUMNS
            if right.key not in columns and right.key != "properties":
                self.check_key(right.key, right.start)
                sub = self.d.json_members(f"{binding.alias}.properties", right.key)
                return f"({left[0]} IN ({sub[0]}))", [*left[1], *sub[1]]
        if isinstance(right, FuncCall) and right.name == "labels":
            self.call(right)  # validates the argument
            arg = right.args[0]
            assert isinstance(arg, Var)
            alias = self.binding(arg.name, arg.start).alias
            return f"({left[0]} = {alias}.type)", left[1]
        raise self.error(
            "IN needs a list: [a, b], a $parameter holding a list, or a list-valued property "
            "such as n.node_set",
            right.start,
        )

    def call(self, expr: FuncCall) -> Fragment:
        name = expr.name
        if name in AGGREGATES:
            if not self.aggregates_ok:
                raise self.error(
                    f"{name}() is only allowed in RETURN and ORDER BY, not nested in another "
                    "aggregate",
                    expr.start,
                )
            if expr.star:
                return "count(*)", []
            self.aggregates_ok = False
            try:
                arg = expr.args[0]
                numeric = name in ("sum", "avg", "min", "max")
                inner = self.typed_value(arg, None) if numeric else self.value(arg)
            finally:
                self.aggregates_ok = True
            distinct = "DISTINCT " if expr.distinct else ""
            return f"{name}({distinct}{inner[0]})", inner[1]
        arg = expr.args[0]
        if name in ("id", "type", "labels"):
            if not isinstance(arg, Var):
                raise self.error(f"{name}() takes a variable", arg.start)
            binding = self.binding(arg.name, arg.start)
            if name == "id":
                return self.d.column(binding.alias, "id"), []
            wanted = "edge" if name == "type" else "node"
            if binding.kind != wanted:
                what = "relationship" if wanted == "edge" else "node"
                raise self.error(f"{name}() takes a {what} variable", arg.start)
            if name == "type":
                return f"{binding.alias}.relation", []
            return self.d.json_array1((f"{binding.alias}.type", []))
        inner = self.value(arg)
        function = "lower" if name == "tolower" else "upper"
        return f"{function}({inner[0]})", inner[1]


#: Integers a parameter may hold (what SQLite and PostgreSQL's bigint store).
_MAX_INT = 2**63 - 1


def _scalar(value: object, expr: Param, compiler: ExprCompiler) -> object:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _MAX_INT:
        raise compiler.error(f"${expr.name} is outside the 64-bit integer range", expr.start)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise compiler.error(
        f"${expr.name} must be a string, number, boolean, null or a list of those, "
        f"got {type(value).__name__}",
        expr.start,
    )
