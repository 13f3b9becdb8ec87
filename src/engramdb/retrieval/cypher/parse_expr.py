"""The expression half of the Cypher parser, plus the token helpers both halves share.

Split from :mod:`.parser` (clauses and patterns) only to keep each module readable; the grammar
of expressions is documented there.
"""

from __future__ import annotations

from engramdb.errors import CypherSyntaxError, CypherUnsupportedError
from engramdb.retrieval.cypher.ast import (
    BoolOp,
    Compare,
    CompareOp,
    Expr,
    FuncCall,
    IsNull,
    ListExpr,
    Literal,
    Neg,
    Not,
    Param,
    Prop,
    Var,
)
from engramdb.retrieval.cypher.lexer import Token

__all__ = [
    "AGGREGATES",
    "FUNCTIONS",
    "MAX_NESTING",
    "OTHER_CLAUSES",
    "WRITE_CLAUSES",
    "ExprParser",
]

#: How many levels an expression may open: each '(', list, function call, NOT and unary '-'
#: opens one. Bounds the parser's recursion (far below Python's limit); how deep the compiled
#: SQL may nest is checked on the finished tree (see parser.check_limits).
MAX_NESTING = 40

#: Clauses that would change the graph; always rejected as read-only violations.
WRITE_CLAUSES = frozenset(
    {"CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "CALL", "LOAD", "FOREACH", "DROP"}
)
#: Read clauses of full Cypher that the subset does not have.
OTHER_CLAUSES = frozenset(
    {"OPTIONAL", "WITH", "UNWIND", "UNION", "USE", "SHOW", "START", "RETURN", "MATCH", "WHERE"}
)
AGGREGATES = frozenset({"count", "min", "max", "sum", "avg"})
#: Function name (lower case) -> number of arguments.
FUNCTIONS = {
    "count": 1,
    "min": 1,
    "max": 1,
    "sum": 1,
    "avg": 1,
    "id": 1,
    "type": 1,
    "labels": 1,
    "tolower": 1,
    "toupper": 1,
}
_COMPARE = {"=": "=", "<>": "<>", "!=": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
_CLAUSE_WORDS = frozenset({"MATCH", "WHERE", "RETURN", "ORDER", "SKIP", "LIMIT", *OTHER_CLAUSES})
#: The largest integer literal: SQLite stores integers in 64 bits.
_MAX_INT = 2**63 - 1
_RESERVED = frozenset({"AND", "OR", "NOT", "XOR", "IN", "IS", "AS", "CONTAINS", "STARTS", "ENDS"})


class ExprParser:
    """Token cursor and expression grammar; :class:`.parser._Parser` adds clauses."""

    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.nesting = 0

    # --- token helpers -----------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tok
        if token.kind != "eof":
            self.i += 1
        return token

    def fail(self, expected: str, token: Token | None = None) -> CypherSyntaxError:
        token = token or self.tok
        found = "the end of the query" if token.kind == "eof" else repr(self.source(token))
        return CypherSyntaxError(f"expected {expected}, found {found}", self.text, token.start)

    def enter(self, token: Token) -> None:
        """Open one nesting level at ``token``; pair with :meth:`leave`."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise CypherSyntaxError(
                f"the expression is nested more than {MAX_NESTING} levels deep (the limit: "
                "each '(', '[', function call, NOT and unary '-' opens a level); flatten it, "
                "e.g. with IN [...] instead of nested conditions",
                self.text,
                token.start,
            )

    def leave(self) -> None:
        self.nesting -= 1

    def source(self, token: Token) -> str:
        return self.text[token.start : token.end]

    def accept_word(self, *words: str) -> Token | None:
        if self.tok.is_word(*words):
            return self.advance()
        return None

    def expect_word(self, word: str) -> Token:
        if not self.tok.is_word(word):
            raise self.fail(word)
        return self.advance()

    def accept_punct(self, *symbols: str) -> Token | None:
        if self.tok.is_punct(*symbols):
            return self.advance()
        return None

    def expect_punct(self, symbol: str) -> Token:
        if not self.tok.is_punct(symbol):
            raise self.fail(f"'{symbol}'")
        return self.advance()

    def name(self, what: str, *, any_word: bool = False) -> str:
        """An identifier; ``any_word`` also accepts operator keywords (labels, relationship
        types and property keys may be spelled like keywords: ``[:contains]``, ``n.in``)."""
        token = self.tok
        if token.kind == "qident" or (
            token.kind == "ident" and (any_word or token.value.upper() not in _RESERVED)
        ):
            self.advance()
            return token.value
        raise self.fail(what)

    def clause_error(self) -> Exception:
        """The error for a token where a clause keyword (or the end) was expected: write and
        other known clauses are named, anything else is a plain syntax error."""
        token = self.tok
        if token.kind == "ident":
            word = token.value.upper()
            if word in WRITE_CLAUSES:
                name = "LOAD CSV" if word == "LOAD" else word
                return CypherUnsupportedError(name, self.text, token.start, write=True)
            if word in ("MATCH", "WHERE", "RETURN"):
                return CypherUnsupportedError(f"a second {word} clause", self.text, token.start)
            if word in OTHER_CLAUSES:
                name = "OPTIONAL MATCH" if word == "OPTIONAL" else word
                return CypherUnsupportedError(f"the {name} clause", self.text, token.start)
        return self.fail("a clause keyword (MATCH, WHERE, RETURN, ORDER BY, SKIP, LIMIT)")

    # --- expressions -------------------------------------------------------------------------

    def expr(self) -> Expr:
        self.enter(self.tok)
        try:
            return self.or_expr()
        finally:
            self.leave()

    def or_expr(self) -> Expr:
        first = self.and_expr()
        operands = [first]
        while self.accept_word("OR"):
            operands.append(self.and_expr())
        if self.tok.is_word("XOR"):
            raise CypherUnsupportedError("XOR", self.text, self.tok.start)
        if len(operands) == 1:
            return first
        return BoolOp("OR", tuple(operands), first.start, operands[-1].end)

    def and_expr(self) -> Expr:
        first = self.not_expr()
        operands = [first]
        while self.accept_word("AND"):
            operands.append(self.not_expr())
        if len(operands) == 1:
            return first
        return BoolOp("AND", tuple(operands), first.start, operands[-1].end)

    def not_expr(self) -> Expr:
        token = self.accept_word("NOT")
        if token is not None:
            self.enter(token)
            try:
                operand = self.not_expr()
            finally:
                self.leave()
            return Not(operand, token.start, operand.end)
        return self.comparison()

    def comparison(self) -> Expr:
        left = self.unary()
        op: CompareOp | None = None
        token = self.tok
        if token.kind == "punct" and token.value in _COMPARE:
            self.advance()
            op = _COMPARE[token.value]  # type: ignore[assignment]
        elif token.is_word("CONTAINS", "IN"):
            self.advance()
            op = "CONTAINS" if token.is_word("CONTAINS") else "IN"
        elif token.is_word("STARTS", "ENDS"):
            self.advance()
            self.expect_word("WITH")
            op = "STARTS WITH" if token.is_word("STARTS") else "ENDS WITH"
        result: Expr = left
        if op is not None:
            right = self.unary()
            result = Compare(op, left, right, left.start, right.end)
        if self.tok.is_word("IS"):
            self.advance()
            negated = self.accept_word("NOT") is not None
            end = self.expect_word("NULL").end
            result = IsNull(result, negated, result.start, end)
        if self.tok.kind == "punct" and self.tok.value in ("+", "*", "/", "%", "-"):
            raise CypherUnsupportedError("arithmetic", self.text, self.tok.start)
        if self.tok.kind == "punct" and self.tok.value in _COMPARE:
            raise CypherUnsupportedError("a chained comparison", self.text, self.tok.start)
        return result

    def unary(self) -> Expr:
        minus = self.accept_punct("-")
        if minus is not None:
            self.enter(minus)
            try:
                operand = self.unary()
            finally:
                self.leave()
            value = operand.value if isinstance(operand, Literal) else None
            if isinstance(value, int | float) and not isinstance(value, bool):
                return Literal(-value, minus.start, operand.end)
            return Neg(operand, minus.start, operand.end)
        return self.primary()

    def primary(self) -> Expr:
        token = self.tok
        if token.kind == "string":
            self.advance()
            return Literal(token.value, token.start, token.end)
        if token.kind == "int":
            # Length first: int() itself refuses more than 4,300 digits.
            digits = token.value.lstrip("0") or "0"
            value = int(digits) if len(digits) <= len(str(_MAX_INT)) else _MAX_INT + 1
            if value > _MAX_INT:
                raise CypherSyntaxError(
                    f"the integer {token.value[:30]} is out of range (the limit is {_MAX_INT}, "
                    "a 64-bit integer); write it as a float or a string",
                    self.text,
                    token.start,
                )
            self.advance()
            return Literal(value, token.start, token.end)
        if token.kind == "float":
            self.advance()
            return Literal(float(token.value), token.start, token.end)
        if token.kind == "param":
            self.advance()
            return Param(token.value, token.start, token.end)
        if token.is_punct("["):
            return self.list_literal()
        if token.is_punct("("):
            self.advance()
            inner = self.expr()
            self.expect_punct(")")
            return inner
        if token.is_punct("{"):
            raise CypherUnsupportedError("a map literal", self.text, token.start)
        if token.is_word("TRUE", "FALSE"):
            self.advance()
            return Literal(token.is_word("TRUE"), token.start, token.end)
        if token.is_word("NULL"):
            self.advance()
            return Literal(None, token.start, token.end)
        if token.is_word("CASE", "EXISTS"):
            raise CypherUnsupportedError(token.value.upper(), self.text, token.start)
        if token.kind == "ident" and self.peek().is_punct("("):
            return self.call()
        if token.kind in ("ident", "qident"):
            if token.kind == "ident" and token.value.upper() in WRITE_CLAUSES:
                raise self.clause_error()
            if token.kind == "ident" and token.value.upper() in _CLAUSE_WORDS:
                raise self.fail("an expression")
            name = self.name("an expression")
            if self.accept_punct("."):
                key_token = self.tok
                key = self.name("a property name after '.'", any_word=True)
                if self.tok.is_punct("."):
                    raise CypherUnsupportedError(
                        "nested property access", self.text, self.tok.start
                    )
                return Prop(name, key, token.start, key_token.end)
            return Var(name, token.start, token.end)
        raise self.fail("an expression")

    def list_literal(self) -> ListExpr:
        start = self.expect_punct("[").start
        items: list[Expr] = []
        if not self.tok.is_punct("]"):
            items.append(self.expr())
            while self.accept_punct(","):
                items.append(self.expr())
        end = self.expect_punct("]").end
        return ListExpr(tuple(items), start, end)

    def call(self) -> FuncCall:
        name_token = self.advance()
        name = name_token.value.lower()
        if name not in FUNCTIONS:
            supported = ", ".join(f"{f}()" for f in FUNCTIONS)
            raise CypherUnsupportedError(
                f"the function {name_token.value}() (supported: {supported})",
                self.text,
                name_token.start,
            )
        self.expect_punct("(")
        if name == "count" and self.tok.is_punct("*"):
            self.advance()
            end = self.expect_punct(")").end
            return FuncCall(name, (), name_token.start, end, star=True)
        distinct = self.accept_word("DISTINCT") is not None
        if distinct and name not in AGGREGATES:
            raise self.fail(f"an argument of {name}()")
        args: list[Expr] = []
        if not self.tok.is_punct(")"):
            args.append(self.expr())
            while self.accept_punct(","):
                args.append(self.expr())
        end = self.expect_punct(")").end
        if len(args) != FUNCTIONS[name]:
            raise CypherSyntaxError(
                f"{name}() takes {FUNCTIONS[name]} argument(s), got {len(args)}",
                self.text,
                name_token.start,
            )
        return FuncCall(name, tuple(args), name_token.start, end, distinct=distinct)
