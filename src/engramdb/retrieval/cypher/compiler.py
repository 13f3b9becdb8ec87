"""The planner: a parsed query becomes ONE parameterised SQL statement over ``nodes``/``edges``.

Each node of the pattern is a ``nodes`` alias (``n0``, ``n1``, ...) and each relationship an
``edges`` alias (``e0``, ``e1``); labels, relationship types and property maps become equality
conditions, and the user's WHERE is ANDed after them. Two rules make the result safe whatever
the query says:

* **Dataset isolation.** Every alias, node AND edge, is filtered by ``dataset_id IN
  (<the recall's datasets>)``. The user's own conditions can only narrow that further, so
  ``WHERE n.dataset_id = '<other>'`` or an id lookup of another dataset's node yields nothing.
* **No injection, no writes.** Every value -- literals, ``$parameters``, dataset ids, JSON
  paths -- is a bound parameter; only aliases and fixed column names are written into the SQL
  text, and the statement is always a single SELECT.

Work is bounded: at most two hops (parser), a LIMIT capped at ``max_limit`` (a larger one is
lowered to it; a missing one defaults to ``default_limit``), and a time budget (backend).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal as Lit
from uuid import UUID

from engramdb.retrieval.cypher.ast import (
    BoolOp,
    Compare,
    Expr,
    FuncCall,
    IsNull,
    Literal,
    NodePattern,
    Not,
    Param,
    Prop,
    Query,
    RelPattern,
    ReturnItem,
    Var,
)
from engramdb.retrieval.cypher.backend import Dialect, Fragment
from engramdb.retrieval.cypher.sql_expr import (
    EDGE_COLUMNS,
    EDGE_FIELDS,
    NODE_COLUMNS,
    NODE_FIELDS,
    Binding,
    ExprCompiler,
    has_aggregate,
)

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "Column",
    "ColumnKind",
    "CompiledQuery",
    "compile_query",
]

DEFAULT_LIMIT = 1000
MAX_LIMIT = 1000

#: How a result column is decoded: a plain value, a boolean, a JSON property (value + JSON
#: type), a JSON document, or a whole node / relationship (one SQL column per field).
ColumnKind = Lit["value", "bool", "json", "jsontext", "node", "edge"]
_WIDTH = {"node": len(NODE_FIELDS), "edge": len(EDGE_FIELDS), "json": 2}


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    kind: ColumnKind

    @property
    def width(self) -> int:
        """How many SQL columns this result column occupies."""
        return _WIDTH.get(self.kind, 1)


@dataclass(frozen=True, slots=True)
class CompiledQuery:
    sql: str
    params: list[object]
    columns: list[Column]
    #: Rows the caller keeps (the query's LIMIT, defaulted and capped).
    limit: int
    #: True when the SQL fetches one extra row to tell whether the cap or default cut rows.
    probe_truncation: bool


def compile_query(
    query: Query,
    dataset_ids: Sequence[UUID | str],
    parameters: Mapping[str, object],
    dialect: Dialect,
    *,
    default_limit: int = DEFAULT_LIMIT,
    max_limit: int = MAX_LIMIT,
    viewer: UUID | str | None = None,
) -> CompiledQuery:
    """The SQL for ``query`` restricted to ``dataset_ids``; with a ``viewer``, also to the nodes
    that user may see: a per-user internal node (``properties.internal`` with a ``user_id``,
    such as a preference record) only matches for its own user."""
    compiler = _Compiler(query, [str(d) for d in dataset_ids], parameters, dialect)
    compiler.viewer = None if viewer is None else str(viewer)
    return compiler.build(default_limit, max_limit)


class _Compiler(ExprCompiler):
    """The statement: MATCH pattern, RETURN, ORDER BY, SKIP / LIMIT (expressions: the base)."""

    # --- the statement -----------------------------------------------------------------------

    def build(self, default_limit: int, max_limit: int) -> CompiledQuery:
        self.pattern()
        if self.q.where is not None:
            if has_aggregate(self.q.where):
                raise self.error("aggregate functions are not allowed in WHERE", self.q.where.start)
            self.conditions.append(self.value(self.q.where))
        aggregated = any(has_aggregate(item.expr) for item in self.q.items)
        columns: list[Column] = []
        select: list[Fragment] = []
        first_sql_column: dict[str, str] = {}
        group: list[Fragment] = []
        self.aggregates_ok = True
        for item in self.q.items:
            if item.name in first_sql_column:
                raise self.error(f"two result columns are named {item.name!r}", item.expr.start)
            kind, fragments = self.output(item)
            columns.append(Column(item.name, kind))
            first_sql_column[item.name] = f"c{len(select)}"
            for fragment in fragments:
                select.append((f"{fragment[0]} AS c{len(select)}", fragment[1]))
            if aggregated and not has_aggregate(item.expr):
                # By output column: the same expression bound twice is two parameters, which
                # PostgreSQL cannot tell are equal.
                first = len(select) - len(fragments)
                group.extend((f"c{i}", []) for i in range(first, len(select)))
        self.aggregates_ok = aggregated  # ORDER BY count(*) only when the rows are groups
        order = self.order_by(aggregated, first_sql_column)
        self.aggregates_ok = False
        skip = self.count_value(self.q.skip, "SKIP") if self.q.skip is not None else 0
        requested = self.count_value(self.q.limit, "LIMIT") if self.q.limit is not None else None
        limit = min(default_limit if requested is None else requested, max_limit)
        probe = requested is None or requested > max_limit

        parts = ["SELECT DISTINCT " if self.q.distinct else "SELECT "]
        params: list[object] = []
        parts.append(", ".join(sql for sql, _ in select))
        params.extend(p for _, ps in select for p in ps)
        parts.append(" FROM " + self.joiner.join(self.tables))
        parts.append(" WHERE " + " AND ".join(sql for sql, _ in self.conditions))
        params.extend(p for _, ps in self.conditions for p in ps)
        if group:
            parts.append(" GROUP BY " + ", ".join(sql for sql, _ in group))
            params.extend(p for _, ps in group for p in ps)
        if order:
            parts.append(" ORDER BY " + ", ".join(sql for sql, _ in order))
            params.extend(p for _, ps in order for p in ps)
        parts.append(f" LIMIT {self.d.param} OFFSET {self.d.param}")
        params.extend([limit + 1 if probe else limit, skip])
        return CompiledQuery("".join(parts), params, columns, limit, probe)

    # --- MATCH -------------------------------------------------------------------------------

    def pattern(self) -> None:
        pattern = self.q.pattern
        nodes = [self.bind_node(n) for n in pattern.nodes]
        edges = [self.bind_rel(r, nodes[i], nodes[i + 1]) for i, r in enumerate(pattern.rels)]
        if len(edges) == 2:  # Cypher: one path never uses the same relationship twice
            self.conditions.append((f"{edges[0]}.id <> {edges[1]}.id", []))
        self.join_order(nodes, edges)

    def join_order(self, nodes: list[str], edges: list[str]) -> None:
        """Start the join at the node an equality pins down, then walk the path outward.

        Without statistics SQLite tends to drive a pattern from ``edges_by_dataset`` (every
        edge of the dataset); ``{name: 'x'}`` or ``WHERE a.id = $id`` make one node far more
        selective, so the join is forced (CROSS JOIN) to start there and follow the edge
        indexes. Without such a node the planner keeps its own order.
        """
        pairs = zip(self.q.pattern.nodes, nodes, strict=True)
        scores = [self.selectivity(node, alias) for node, alias in pairs]
        best = max(range(len(nodes)), key=lambda i: (scores[i], -i))
        if scores[best] < 2 or not edges:
            self.joiner = ", "
            return
        order = [nodes[best]]
        for i in range(best, len(edges)):  # rightwards: edge i joins node i and i + 1
            order += [edges[i], nodes[i + 1]]
        for i in range(best - 1, -1, -1):  # then leftwards
            order += [edges[i], nodes[i]]
        tables = {t.rsplit(" ", 1)[-1]: t for t in self.tables}
        self.tables = [tables[a] for a in dict.fromkeys(order)]
        self.joiner = " CROSS JOIN "

    def selectivity(self, node: NodePattern, alias: str) -> int:
        """3: pinned by id; 2: another property equality; 1: a label only; 0: nothing."""
        keys = [key for key, _ in node.props]
        where = self.q.where
        conjuncts = where.operands if isinstance(where, BoolOp) and where.op == "AND" else (where,)
        for c in conjuncts:
            if isinstance(c, Compare) and c.op == "=":
                for side, other in ((c.left, c.right), (c.right, c.left)):
                    if not isinstance(side, Prop) or not isinstance(other, Literal | Param):
                        continue
                    bound = self.bindings.get(side.var)
                    if bound is not None and bound.alias == alias:
                        keys.append(side.key)
        if "id" in keys:
            return 3
        if keys:
            return 2
        return 1 if node.label is not None else 0

    def bind_node(self, node: NodePattern) -> str:
        existing = self.bindings.get(node.var) if node.var else None
        if existing is not None:
            if existing.kind != "node":
                raise self.error(f"{node.var!r} is a relationship, not a node", node.start)
            alias = existing.alias
        else:
            alias = f"n{sum(1 for t in self.tables if t.startswith('nodes'))}"
            self.tables.append(f"nodes AS {alias}")
            self.conditions.append(self.d.in_ids(f"{alias}.dataset_id", self.datasets))
            if self.viewer is not None:
                self.conditions.append(self.owned_by_viewer(alias))
            if node.var:
                self.bindings[node.var] = Binding("node", alias)
        if node.label is not None:
            self.conditions.append((f"{alias}.type = {self.d.param}", [node.label]))
        for key, expr in node.props:
            self.conditions.append(self.equals(self.property(alias, "node", key, node.start), expr))
        return alias

    def owned_by_viewer(self, alias: str) -> Fragment:
        """Not another user's internal node (one without a ``user_id`` is the dataset's)."""
        public = self.d.not_flagged(f"{alias}.properties", "internal")
        user = self.d.json_value(f"{alias}.properties", "user_id")
        viewer = self.d.literal(self.viewer)
        sql = f"({public[0]} OR {user[0]} IS NULL OR {user[0]} = {viewer[0]})"
        return sql, [*public[1], *user[1], *user[1], *viewer[1]]

    def bind_rel(self, rel: RelPattern, left: str, right: str) -> str:
        if rel.var and rel.var in self.bindings:
            raise self.error(f"the variable {rel.var!r} is already bound", rel.start)
        alias = f"e{sum(1 for t in self.tables if t.startswith('edges'))}"
        self.tables.append(f"edges AS {alias}")
        if rel.var:
            self.bindings[rel.var] = Binding("edge", alias)
        self.conditions.append(self.d.in_ids(f"{alias}.dataset_id", self.datasets))
        forward = f"{alias}.source_id = {left}.id AND {alias}.target_id = {right}.id"
        backward = f"{alias}.source_id = {right}.id AND {alias}.target_id = {left}.id"
        if rel.direction == "out":
            self.conditions.append((forward, []))
        elif rel.direction == "in":
            self.conditions.append((backward, []))
        else:
            self.conditions.append((f"(({forward}) OR ({backward}))", []))
        if len(rel.types) == 1:
            self.conditions.append((f"{alias}.relation = {self.d.param}", [rel.types[0]]))
        elif rel.types:
            self.conditions.append(self.d.in_json_list(f"{alias}.relation", rel.types))
        for key, expr in rel.props:
            self.conditions.append(self.equals(self.property(alias, "edge", key, rel.start), expr))
        return alias

    def equals(self, left: Fragment, expr: Expr) -> Fragment:
        right = self.value(expr)
        return f"({left[0]} = {right[0]})", [*left[1], *right[1]]

    # --- RETURN / ORDER BY / SKIP / LIMIT ----------------------------------------------------

    def output(self, item: ReturnItem) -> tuple[ColumnKind, list[Fragment]]:
        expr = item.expr
        if isinstance(expr, Var):
            binding = self.binding(expr.name, expr.start)
            fields = NODE_FIELDS if binding.kind == "node" else EDGE_FIELDS
            return binding.kind, [(f"{binding.alias}.{f}", []) for f in fields]
        if isinstance(expr, Prop):
            binding = self.binding(expr.var, expr.start)
            columns = NODE_COLUMNS if binding.kind == "node" else EDGE_COLUMNS
            if expr.key == "properties":
                return "jsontext", [(f"{binding.alias}.properties", [])]
            if expr.key not in columns:
                props = f"{binding.alias}.properties"
                self.check_key(expr.key, expr.start)
                return "json", [
                    self.d.json_output(props, expr.key),
                    self.d.json_type(props, expr.key),
                ]
        if isinstance(expr, FuncCall) and expr.name == "labels":
            return "jsontext", [self.value(expr)]
        if isinstance(expr, Compare | BoolOp | Not | IsNull):
            return "bool", [self.value(expr)]
        return "value", [self.value(expr)]

    def order_by(self, aggregated: bool, first_sql_column: dict[str, str]) -> list[Fragment]:
        by_text = {_normal(self.q.text[i.expr.start : i.expr.end]): i.name for i in self.q.items}
        order: list[Fragment] = []
        for item in self.q.order:
            expr = item.expr
            name: str | None = None
            if isinstance(expr, Var) and expr.name in first_sql_column:
                name = expr.name
            else:
                name = by_text.get(_normal(self.q.text[expr.start : expr.end]))
            if name is not None:
                fragment: Fragment = (first_sql_column[name], [])
            elif self.q.distinct or aggregated:
                raise self.error(
                    "after RETURN DISTINCT or an aggregation, ORDER BY can only use returned "
                    "columns (by alias or by the same expression)",
                    expr.start,
                )
            else:
                fragment = self.value(expr)
            nulls = "NULLS FIRST" if item.descending else "NULLS LAST"  # Cypher: null is largest
            direction = "DESC" if item.descending else "ASC"
            order.append((f"{fragment[0]} {direction} {nulls}", fragment[1]))
        return order

    def count_value(self, expr: Expr, clause: str) -> int:
        value: object
        if isinstance(expr, Literal):
            value = expr.value
        elif isinstance(expr, Param):
            value = self.param(expr)
        else:
            raise self.error(f"{clause} takes an integer or a $parameter", expr.start)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.error(f"{clause} must be a non-negative integer, got {value!r}", expr.start)
        return value


def _normal(text: str) -> str:
    return "".join(text.split())
