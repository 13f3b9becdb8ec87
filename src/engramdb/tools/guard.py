"""The SQL guard: the statement a model wrote is parsed (sqlglot), never pattern-matched.

A read is ONE ``SELECT`` (a ``WITH ... SELECT`` or a ``UNION`` of selects included) whose every
table is a table of the connection it runs on (after ``allowed_tables``) or a CTE of the query
itself: no other schema or attached database, no catalog tables (``sqlite_master``,
``pg_catalog``...), no table-valued functions, no ``SELECT ... INTO``, no ``FOR UPDATE``, and
only functions the parser knows that read nothing outside the query (``pg_read_file``,
``load_extension``, ``readfile``... are unknown to it, hence refused). A write proposal is ONE
``UPDATE`` of one such table with a ``WHERE`` clause and no ``RETURNING``.

The guard is the first of three layers: the query then runs on a read-only connection (SQLite
``mode=ro`` plus an authorizer, PostgreSQL ``READ ONLY`` transactions) that is always rolled
back; a database role with SELECT grants only is the last. Messages are written to be fed back
to the model as a retry hint.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from engramdb.errors import FeatureNotAvailableError, SqlGuardError
from engramdb.models.tools import Provider

__all__ = ["SQLITE_FUNCTIONS", "Guarded", "strip_sql", "validate_select", "validate_update"]

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")

#: Functions the parser knows but that reach outside the query (files, sequences, sleeping).
_DENIED_FUNCTIONS = frozenset(
    {"readcsv", "readparquet", "tofile", "nextvaluefor", "seq1", "seq2", "seq4", "seq8"}
)


#: Functions an SQLite read may call: SQLite's built-in scalar, aggregate, date and JSON ones
#: (the guard lets these through by name, and the SQLite authorizer allows only these).
SQLITE_FUNCTIONS = frozenset(
    """abs avg changes char coalesce concat concat_ws count date datetime format glob group_concat
    hex ifnull iif instr julianday length like likelihood likely lower ltrim max min nullif
    octet_length printf quote random replace round rtrim sign soundex strftime substr substring
    sum time timediff total trim typeof unhex unicode unixepoch unlikely upper zeroblob
    json json_array json_array_length json_extract json_group_array json_group_object
    json_object json_type json_valid json_quote json_each json_tree acos asin atan ceil ceiling
    cos exp floor ln log log10 log2 mod pi pow power sin sqrt tan trunc row_number rank
    dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value""".split()  # noqa: SIM905
)


@dataclass(frozen=True, slots=True)
class Guarded:
    """A statement the guard accepted: its SQL as it will run, and the table it writes."""

    sql: str
    target_table: str | None = None


def _sqlglot() -> Any:
    try:
        import sqlglot
        from sqlglot import exp
    except ImportError as exc:  # pragma: no cover - the extra is part of dev
        raise FeatureNotAvailableError(
            "recall's tools scope parses SQL with sqlglot; install engramdb[tools]"
        ) from exc
    return sqlglot, exp


def strip_sql(sql: str | None) -> str:
    """The statement without markdown fences, outer whitespace and one trailing ';'."""
    if sql is None or not sql.strip():
        raise SqlGuardError("No SQL was generated.")
    cleaned = _FENCE.sub("", sql.strip()).strip()
    return cleaned[:-1].rstrip() if cleaned.endswith(";") else cleaned


def _parse_one(sql: str, provider: Provider) -> Any:
    sqlglot, _ = _sqlglot()
    dialect = "postgres" if provider == "postgres" else "sqlite"
    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except sqlglot.errors.ParseError as exc:
        first = str(exc).splitlines()[0]
        raise SqlGuardError(f"The SQL could not be parsed as one statement: {first}") from exc
    if len(statements) != 1:
        raise SqlGuardError("Only a single SQL statement is allowed (no ';' separators).")
    return statements[0]


def _check_tree(tree: object, *, provider: Provider, tables: Collection[str], schema: str) -> None:
    """Refuse every node of ``tree`` that reads or writes outside ``tables`` of ``schema``."""
    _, exp = _sqlglot()
    assert isinstance(tree, exp.Expression)
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    known = {t.lower() for t in tables}
    for node in tree.walk():
        if isinstance(node, exp.Into):
            raise SqlGuardError("SELECT ... INTO writes a table; only plain SELECTs are allowed.")
        if isinstance(node, exp.Lock):
            raise SqlGuardError("Row locks (FOR UPDATE/SHARE) are not allowed in a read.")
        if isinstance(node, exp.Command | exp.Pragma | exp.Attach | exp.Detach | exp.Set):
            raise SqlGuardError(f"'{node.sql()[:40]}' is not allowed; only SELECT statements are.")
        if isinstance(node, exp.Table):
            if not isinstance(node.this, exp.Identifier):
                raise SqlGuardError(
                    f"Table functions such as {node.sql()[:40]} are not allowed; "
                    "select from the listed tables."
                )
            if node.catalog or (node.db and node.db.lower() != schema.lower()):
                raise SqlGuardError(
                    f"Table {node.sql()!r} is outside this connection's schema; "
                    "only its own tables may be used."
                )
            name = node.name.lower()
            if not node.db and name in ctes:
                continue
            if name not in known:
                raise SqlGuardError(
                    f"Table {node.name!r} is not one of this connection's tables "
                    f"({', '.join(sorted(tables)) or 'none'})."
                )
            if not node.db:  # pinned to the schema: no search_path can redirect it
                node.set("db", exp.to_identifier(schema, quoted=True))
        if isinstance(node, exp.Func):
            key = node.name.lower() if isinstance(node, exp.Anonymous) else node.key
            unknown = isinstance(node, exp.Anonymous) and not (
                provider == "sqlite" and key in SQLITE_FUNCTIONS
            )
            if unknown or key in _DENIED_FUNCTIONS:
                raise SqlGuardError(
                    f"Function {key.upper()}() is not allowed; use standard SQL functions only."
                )


def validate_select(
    sql: str | None, *, provider: Provider, tables: Collection[str], schema: str, max_rows: int
) -> Guarded:
    """The read the model wrote, checked, with its LIMIT clamped to ``max_rows + 1`` (the one
    extra row only tells that the result was truncated)."""
    _, exp = _sqlglot()
    cleaned = strip_sql(sql)
    tree = _parse_one(cleaned, provider)
    if not isinstance(tree, exp.Select | exp.SetOperation):
        raise SqlGuardError(
            f"Only SELECT statements are allowed; got {tree.key.upper()} "
            f"({cleaned.split(None, 1)[0].upper()})."
        )
    _check_tree(tree, provider=provider, tables=tables, schema=schema)
    cap = max_rows + 1
    limit = tree.args.get("limit")
    current = None
    if isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal):
        current = int(limit.expression.this) if limit.expression.is_int else None
    if current is None or current > cap:
        tree = tree.limit(cap)
    dialect = "postgres" if provider == "postgres" else "sqlite"
    return Guarded(sql=tree.sql(dialect=dialect))


def validate_update(
    sql: str | None, *, provider: Provider, tables: Collection[str], schema: str
) -> Guarded:
    """The correction the model drafted: one UPDATE of one of ``tables`` with a WHERE clause."""
    _, exp = _sqlglot()
    cleaned = strip_sql(sql)
    tree = _parse_one(cleaned, provider)
    if not isinstance(tree, exp.Update):
        raise SqlGuardError(
            "Only a statement of the form 'UPDATE <table> SET ... WHERE ...' is allowed."
        )
    if tree.args.get("where") is None:
        raise SqlGuardError(
            "The UPDATE must have a WHERE clause — unbounded updates are never allowed."
        )
    if tree.args.get("returning") is not None or tree.args.get("from") is not None:
        raise SqlGuardError("UPDATE ... FROM / RETURNING are not allowed in a correction.")
    target = tree.this
    if not isinstance(target, exp.Table):
        raise SqlGuardError("The UPDATE must name one table.")
    for node in tree.walk():
        if node is not tree and isinstance(node, exp.Insert | exp.Update | exp.Delete):
            raise SqlGuardError("A correction is one plain UPDATE; nested writes are refused.")
    _check_tree(tree, provider=provider, tables=tables, schema=schema)
    dialect = "postgres" if provider == "postgres" else "sqlite"
    return Guarded(sql=tree.sql(dialect=dialect), target_table=target.name)
