"""A hand-written recursive-descent parser for engramdb's read-only Cypher subset.

Grammar (keywords case-insensitive; see docs/cypher.md)::

    query      := MATCH pattern [WHERE expr] RETURN [DISTINCT] ("*" | item {"," item})
                  [ORDER BY order {"," order}] [SKIP expr] [LIMIT expr] [";"]
    pattern    := node [rel node [rel node]]
    node       := "(" [name] [":" name] [map] ")"
    rel        := ("-" | "<-") ["[" [name] [":" name {"|" [":"] name}] [map] "]"] ("-" | "->")
    item       := expr [AS name]
    order      := expr [ASC | ASCENDING | DESC | DESCENDING]
    expr       := and {OR and}
    and        := not {AND not}
    not        := NOT not | comparison
    comparison := unary [("=" | "<>" | "<" | ">" | "<=" | ">=" | CONTAINS | STARTS WITH
                          | ENDS WITH | IN) unary] [IS [NOT] NULL]
    unary      := "-" unary | primary
    primary    := literal | $param | "[" [expr {"," expr}] "]" | "(" expr ")"
                  | name "(" ["*" | [DISTINCT] expr {"," expr}] ")" | name ["." name]

Limits (each a CypherSyntaxError naming it, so a hostile or generated query is a 422, never a
crash of the parser or of SQLite's own): at most :data:`~.lexer.MAX_TOKENS` tokens, expressions
nested at most :data:`~.parse_expr.MAX_NESTING` levels, and, checked on the finished tree with
:func:`~.ast.sql_cost`, compiled SQL that nests at most :data:`MAX_SQL_NESTING` parser-stack
slots (SQLite's parser has about 90), whose expression trees stay :data:`MAX_SQL_DEPTH` levels
deep (SQLite refuses 1000) and that holds at most :data:`MAX_SQL_TERMS` terms.

Anything else is rejected *by name*: a write clause (CREATE, MERGE, SET, DELETE, DETACH,
REMOVE, CALL, LOAD CSV, FOREACH, DROP) as "CYPHER is read-only", and every other clause or
feature (OPTIONAL MATCH, WITH, UNWIND, UNION, variable-length paths, arithmetic, a third hop,
...) as unsupported -- so a user learns what to change instead of reading a generic parse error.
"""

from __future__ import annotations

from engramdb.errors import CypherSyntaxError, CypherUnsupportedError
from engramdb.retrieval.cypher.ast import (
    Direction,
    Expr,
    NodePattern,
    OrderItem,
    Pattern,
    Query,
    RelPattern,
    ReturnItem,
    SqlCost,
    Var,
    sql_cost,
)
from engramdb.retrieval.cypher.lexer import tokenize
from engramdb.retrieval.cypher.parse_expr import ExprParser

__all__ = ["MAX_HOPS", "MAX_SQL_DEPTH", "MAX_SQL_NESTING", "MAX_SQL_TERMS", "check_limits", "parse"]

MAX_HOPS = 2
#: Parser-stack slots one compiled expression may take (SQLite's fixed stack holds ~90; the
#: statement around the expression takes a few).
MAX_SQL_NESTING = 72
#: Expression-tree depth of the compiled WHERE (SQLite refuses 1000; the pattern's own
#: conditions are ANDed in front of the user's).
MAX_SQL_DEPTH = 600
#: Terms of the compiled statement, counting the operands STARTS WITH / ENDS WITH repeat.
MAX_SQL_TERMS = 20_000


def parse(query: str) -> Query:
    """The syntax tree of ``query``; raises CypherSyntaxError / CypherUnsupportedError."""
    if not isinstance(query, str) or not query.strip():
        raise CypherSyntaxError("the query is empty; write e.g. MATCH (n) RETURN n LIMIT 5", "", 0)
    tree = _Parser(query, tokenize(query)).query()
    check_limits(tree)
    return tree


def check_limits(tree: Query) -> None:
    """Refuse a query whose compiled SQL would be too deep or too large for SQLite (see the
    module docstring); raises CypherSyntaxError naming the limit."""
    props = [e for n in tree.pattern.nodes for _, e in n.props]
    props += [e for r in tree.pattern.rels for _, e in r.props]
    others = [i.expr for i in tree.items] + [o.expr for o in tree.order] + props
    others += [e for e in (tree.skip, tree.limit) if e is not None]
    exprs = ([tree.where] if tree.where is not None else []) + others
    costs = [(e, sql_cost(e)) for e in exprs]
    for expr, cost in costs:
        if cost.nesting > MAX_SQL_NESTING:
            raise CypherSyntaxError(
                f"this expression is nested too deeply to run: its SQL would nest {cost.nesting} "
                f"levels, the limit is {MAX_SQL_NESTING}; use fewer nested NOT, '-', "
                "parentheses, comparisons and function calls",
                tree.text,
                expr.start,
            )
    # The pattern's conditions and the WHERE form one AND chain (see compiler.py).
    where = costs[0][1] if tree.where is not None else SqlCost(0, 0, 0)
    chain = len(props) + where.depth
    deepest = max([chain, *(c.depth for _, c in costs)])
    if deepest > MAX_SQL_DEPTH:
        raise CypherSyntaxError(
            f"the query's conditions are too long to run: its SQL expression would be "
            f"{deepest} levels deep, the limit is {MAX_SQL_DEPTH}; replace long AND/OR chains "
            "with IN [...] or a $parameter list",
            tree.text,
            exprs[0].start if exprs else 0,
        )
    total = sum(c.size for _, c in costs)
    if total > MAX_SQL_TERMS:
        raise CypherSyntaxError(
            f"the query would compile to {total} SQL terms, the limit is {MAX_SQL_TERMS} "
            "(STARTS WITH and ENDS WITH repeat their operands, so nesting them multiplies the "
            "size); nest them less",
            tree.text,
            exprs[0].start if exprs else 0,
        )


class _Parser(ExprParser):
    # --- clauses -----------------------------------------------------------------------------

    def query(self) -> Query:
        if not self.tok.is_word("MATCH"):
            raise self.clause_error()
        self.advance()
        pattern = self.pattern()
        if self.tok.is_punct(","):
            raise CypherUnsupportedError(
                "more than one pattern (a comma in MATCH)", self.text, self.tok.start
            )
        where = self.expr() if self.accept_word("WHERE") else None
        if not self.tok.is_word("RETURN"):
            raise self.clause_error()
        self.advance()
        distinct = self.accept_word("DISTINCT") is not None
        items = self.return_items(pattern)
        order: list[OrderItem] = []
        if self.accept_word("ORDER"):
            self.expect_word("BY")
            order.append(self.order_item())
            while self.accept_punct(","):
                order.append(self.order_item())
        skip = self.expr() if self.accept_word("SKIP") else None
        limit = self.expr() if self.accept_word("LIMIT") else None
        self.accept_punct(";")
        if self.tok.kind != "eof":
            raise self.clause_error()
        return Query(pattern, where, distinct, tuple(items), tuple(order), skip, limit, self.text)

    def return_items(self, pattern: Pattern) -> list[ReturnItem]:
        star = self.accept_punct("*")
        if star is not None:
            # Neo4j orders the columns of RETURN * alphabetically.
            names = sorted(
                {n.var for n in pattern.nodes if n.var is not None}
                | {r.var for r in pattern.rels if r.var is not None}
            )
            if not names:
                raise CypherSyntaxError(
                    "RETURN * needs at least one named variable in the pattern",
                    self.text,
                    star.start,
                )
            return [ReturnItem(Var(n, star.start, star.end), n) for n in names]
        items = [self.return_item()]
        while self.accept_punct(","):
            items.append(self.return_item())
        return items

    def return_item(self) -> ReturnItem:
        expr = self.expr()
        if self.accept_word("AS"):
            return ReturnItem(expr, self.name("a column name after AS", any_word=True))
        return ReturnItem(expr, self.text[expr.start : expr.end])

    def order_item(self) -> OrderItem:
        expr = self.expr()
        if self.accept_word("DESC", "DESCENDING"):
            return OrderItem(expr, True)
        self.accept_word("ASC", "ASCENDING")
        return OrderItem(expr, False)

    # --- patterns ----------------------------------------------------------------------------

    def pattern(self) -> Pattern:
        nodes = [self.node()]
        rels: list[RelPattern] = []
        while self.tok.is_punct("-", "<-"):
            if len(rels) == MAX_HOPS:
                raise CypherUnsupportedError(
                    f"a pattern of more than {MAX_HOPS} hops", self.text, self.tok.start
                )
            rels.append(self.rel())
            nodes.append(self.node())
        return Pattern(tuple(nodes), tuple(rels))

    def node(self) -> NodePattern:
        start = self.expect_punct("(").start
        var = None if self.tok.is_punct(":", "{", ")") else self.name("a variable name")
        label = None
        if self.accept_punct(":"):
            label = self.name("a label (node type) after ':'", any_word=True)
            if self.tok.is_punct(":", "|"):
                raise CypherUnsupportedError(
                    "more than one label on a node", self.text, self.tok.start
                )
        props = self.prop_map() if self.tok.is_punct("{") else ()
        self.expect_punct(")")
        return NodePattern(var, label, props, start)

    def rel(self) -> RelPattern:
        opener = self.advance()
        left = opener.value == "<-"
        var: str | None = None
        types: list[str] = []
        props: tuple[tuple[str, Expr], ...] = ()
        if self.accept_punct("["):
            if not self.tok.is_punct(":", "{", "]", "*"):
                var = self.name("a relationship variable")
            if self.accept_punct(":"):
                types.append(self.name("a relationship type after ':'", any_word=True))
                while self.accept_punct("|"):
                    self.accept_punct(":")
                    types.append(self.name("a relationship type after '|'", any_word=True))
            if self.tok.is_punct("*"):
                raise CypherUnsupportedError(
                    "a variable-length relationship (*); write at most two explicit hops",
                    self.text,
                    self.tok.start,
                )
            if self.tok.is_punct("{"):
                props = self.prop_map()
            self.expect_punct("]")
        closer = self.tok
        if closer.is_punct("->"):
            if left:
                raise CypherSyntaxError(
                    "a relationship cannot point both ways; use -[r]- for either direction",
                    self.text,
                    closer.start,
                )
            direction: Direction = "out"
        elif closer.is_punct("-"):
            direction = "in" if left else "both"
        else:
            raise self.fail("'-' or '->' closing the relationship")
        self.advance()
        return RelPattern(var, tuple(types), direction, props, opener.start)

    def prop_map(self) -> tuple[tuple[str, Expr], ...]:
        self.expect_punct("{")
        entries: list[tuple[str, Expr]] = []
        if not self.tok.is_punct("}"):
            while True:
                key = self.name("a property name", any_word=True)
                self.expect_punct(":")
                entries.append((key, self.expr()))
                if not self.accept_punct(","):
                    break
        self.expect_punct("}")
        return tuple(entries)
