"""The SQL guard of recall's tools scope, on its own: what a model's SQL may be, parsed.

The hostile cases against real databases are in tests/integration/test_tools_scope.py and
tests/postgres/test_tools_scope.py; these pin the guard's own decisions and messages."""

from __future__ import annotations

import pytest

from engramdb.errors import SqlGuardError
from engramdb.tools.guard import validate_select, validate_update

TABLES = ["orders", "customers"]


def _select(sql: str, provider: str = "sqlite", max_rows: int = 10) -> str:
    schema = "main" if provider == "sqlite" else "shop"
    return validate_select(
        sql,
        provider=provider,  # type: ignore[arg-type]
        tables=TABLES,
        schema=schema,
        max_rows=max_rows,
    ).sql


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM orders",
        "```sql\nSELECT id FROM orders;\n```",
        "WITH big AS (SELECT * FROM orders WHERE amount > 10) SELECT count(*) FROM big",
        "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id",
        "SELECT id FROM orders UNION SELECT id FROM customers",
        "SELECT 'DELETE FROM orders; DROP TABLE x' AS harmless_text FROM orders",
        "SELECT updated_at FROM orders",
    ],
)
@pytest.mark.parametrize("provider", ["sqlite", "postgres"])
def test_a_single_read_of_the_connections_tables_passes(sql: str, provider: str) -> None:
    assert _select(sql, provider).upper().startswith(("SELECT", "WITH"))


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("DELETE FROM orders", "Only SELECT"),
        ("SELECT 1; SELECT 2", "single SQL statement"),
        ("SELECT * FROM secrets", "not one of this connection's tables"),
        ("SELECT * FROM other.orders", "outside this connection's schema"),
        ("SELECT * FROM db.main.orders", "outside this connection's schema"),
        ("SELECT * FROM generate_series(1, 3)", "Table functions"),
        ("SELECT pg_read_file('/etc/passwd')", "PG_READ_FILE"),
        ("SELECT * INTO copy FROM orders", "INTO"),
        ("SELECT * FROM orders FOR UPDATE", "locks"),
        ("", "No SQL"),
    ],
)
def test_everything_else_is_refused_with_a_hint(sql: str, message: str) -> None:
    with pytest.raises(SqlGuardError, match=message):
        _select(sql, "postgres")


def test_the_limit_is_clamped_to_one_more_than_max_rows() -> None:
    assert _select("SELECT id FROM orders LIMIT 500", max_rows=10).endswith("LIMIT 11")
    assert _select("SELECT id FROM orders LIMIT 3", max_rows=10).endswith("LIMIT 3")
    assert _select("SELECT id FROM orders", max_rows=10).endswith("LIMIT 11")


def test_postgres_tables_are_pinned_to_the_schema() -> None:
    assert '"shop".orders' in _select("SELECT * FROM orders", "postgres")


def test_a_correction_is_one_bounded_update_of_one_table() -> None:
    found = validate_update(
        "UPDATE orders SET amount = 1 WHERE id = 2", provider="sqlite", tables=TABLES, schema="main"
    )
    assert found.target_table == "orders"
    for bad in (
        "UPDATE orders SET amount = 1",
        "DELETE FROM orders WHERE id = 1",
        "UPDATE secrets SET token = '' WHERE 1 = 1",
        "UPDATE orders SET amount = 1 WHERE id = 2 RETURNING *",
        "UPDATE orders SET amount = (SELECT max(x) FROM secrets) WHERE id = 1",
    ):
        with pytest.raises(SqlGuardError):
            validate_update(bad, provider="sqlite", tables=TABLES, schema="main")
