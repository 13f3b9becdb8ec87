"""Tokens of the Cypher subset, each with the character offset it starts at.

The lexer is deliberately permissive about *what* it recognises (every Cypher keyword is just an
identifier here) and strict about *where*: the parser decides what a word means, so a write
keyword is rejected by name wherever it appears instead of failing as an obscure syntax error.
Offsets feed the error messages (line and column) and let the parser name a result column by
the exact source text of its expression, as Neo4j does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engramdb.errors import CypherSyntaxError

__all__ = ["MAX_TOKENS", "Token", "TokenKind", "tokenize"]

#: The longest query, in tokens: bounds the work of parsing and compiling one query. A long
#: list of values belongs in a $parameter (bound as one value, however long).
MAX_TOKENS = 4000

TokenKind = Literal["ident", "qident", "string", "int", "float", "param", "punct", "eof"]

#: Multi-character punctuation first, so "<=" is never read as "<" then "=".
_PUNCT = ("<>", "<=", ">=", "!=", "->", "<-", "..", *"()[]{}:,.-<>=*|+/%;")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", "'": "'", '"': '"'}


@dataclass(frozen=True, slots=True)
class Token:
    kind: TokenKind
    #: The text of the token: a keyword/identifier as written, a string's decoded value, or the
    #: punctuation itself.
    value: str
    start: int
    end: int

    def is_word(self, *words: str) -> bool:
        """True for a bare (unquoted) identifier equal to one of ``words``, ignoring case."""
        return self.kind == "ident" and self.value.upper() in words

    def is_punct(self, *symbols: str) -> bool:
        return self.kind == "punct" and self.value in symbols


def tokenize(query: str) -> list[Token]:
    """The tokens of ``query``, ending with one ``eof`` token."""
    _check_unicode(query)
    tokens: list[Token] = []
    i, n = 0, len(query)
    while i < n:
        if len(tokens) >= MAX_TOKENS:
            raise CypherSyntaxError(
                f"the query has more than {MAX_TOKENS} tokens (the limit); pass long lists of "
                "values as a $parameter instead of writing them out",
                query,
                i,
            )
        ch = query[i]
        if ch.isspace():
            i += 1
        elif query.startswith("//", i):
            newline = query.find("\n", i)
            i = n if newline < 0 else newline + 1
        elif query.startswith("/*", i):
            close = query.find("*/", i + 2)
            if close < 0:
                raise CypherSyntaxError("unterminated /* comment", query, i)
            i = close + 2
        elif ch in "'\"":
            value, end = _string(query, i)
            tokens.append(Token("string", value, i, end))
            i = end
        elif ch == "`":
            close = query.find("`", i + 1)
            if close < 0:
                raise CypherSyntaxError("unterminated `quoted name`", query, i)
            tokens.append(Token("qident", query[i + 1 : close], i, close + 1))
            i = close + 1
        elif ch == "$":
            end = _word_end(query, i + 1)
            if end == i + 1:
                raise CypherSyntaxError("'$' must be followed by a parameter name", query, i)
            tokens.append(Token("param", query[i + 1 : end], i, end))
            i = end
        elif ch in _DIGITS:
            kind, end = _number(query, i)
            tokens.append(Token(kind, query[i:end], i, end))
            i = end
        elif ch.isalpha() or ch == "_":
            end = _word_end(query, i)
            tokens.append(Token("ident", query[i:end], i, end))
            i = end
        else:
            symbol = next((p for p in _PUNCT if query.startswith(p, i)), None)
            if symbol is None:
                raise CypherSyntaxError(f"unexpected character {ch!r}", query, i)
            tokens.append(Token("punct", symbol, i, i + len(symbol)))
            i += len(symbol)
    tokens.append(Token("eof", "", n, n))
    return tokens


def _check_unicode(query: str) -> None:
    """Refuse lone surrogates (a JSON body may carry them): SQLite could not bind them."""
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CypherSyntaxError(
            "the query contains a lone surrogate, which is not a character", query, exc.start
        ) from None


def _word_end(query: str, i: int) -> int:
    while i < len(query) and (query[i].isalnum() or query[i] == "_"):
        i += 1
    return i


def _number(query: str, i: int) -> tuple[TokenKind, int]:
    end = i
    while end < len(query) and query[end] in _DIGITS:
        end += 1
    kind: TokenKind = "int"
    # "1.5" is a float; "1..2" (a range) and "n.1" are not, so a dot needs a digit after it.
    if end + 1 < len(query) and query[end] == "." and query[end + 1] in _DIGITS:
        end += 1
        while end < len(query) and query[end] in _DIGITS:
            end += 1
        kind = "float"
    if end < len(query) and query[end] in "eE":
        exp = end + 1
        if exp < len(query) and query[exp] in "+-":
            exp += 1
        if exp < len(query) and query[exp] in _DIGITS:
            end = exp
            while end < len(query) and query[end] in _DIGITS:
                end += 1
            kind = "float"
    if end < len(query) and (query[end].isalpha() or query[end] == "_"):
        raise CypherSyntaxError("a number cannot run into a name", query, i)
    return kind, end


def _string(query: str, start: int) -> tuple[str, int]:
    quote = query[start]
    out: list[str] = []
    i = start + 1
    while i < len(query):
        ch = query[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch == "\\":
            if i + 1 >= len(query):
                break
            nxt = query[i + 1]
            if nxt == "u" and i + 6 <= len(query):
                digits = query[i + 2 : i + 6]
                if len(digits) != 4 or not all(c in _HEX for c in digits):
                    raise CypherSyntaxError("bad \\u escape", query, i)
                code = int(digits, 16)
                if 0xD800 <= code <= 0xDFFF:
                    raise CypherSyntaxError(
                        "a \\u escape cannot name a lone surrogate (not a character)", query, i
                    )
                out.append(chr(code))
                i += 6
                continue
            if nxt not in _ESCAPES:
                raise CypherSyntaxError(f"unknown escape \\{nxt}", query, i)
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise CypherSyntaxError("unterminated string literal", query, start)
