"""Text-to-SQL: a question -> the model's SELECT -> the guard -> rows, with retries.

Each attempt asks the model for one query given the schema and what went wrong before; a query
the guard refuses or the database rejects is fed back, up to ``TEXT_TO_SQL_MAX_ATTEMPTS``. An
empty result is an answer (no retry). Failures to generate or run come back in the result
(``success=False``), never raised, so one dead database does not abort a multi-source recall.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engramdb.errors import EngramError, LLMNotConfiguredError, SqlGuardError, scrub_secrets
from engramdb.models.tools import ToolConnection
from engramdb.providers.llm.base import LLM, ChatMessage
from engramdb.tools.databases import Schema, read_rows, read_schema
from engramdb.tools.guard import validate_select

if TYPE_CHECKING:
    from engramdb.settings import Settings

__all__ = ["TOOL_NAME", "TextToSqlResult", "no_llm_message", "run_text_to_sql", "visible"]

logger = logging.getLogger(__name__)

#: The ``tool_name`` of every entry the tools lane returns.
TOOL_NAME = "text_to_sql"

_SYSTEM = """You translate a question into ONE read-only SQL query for a {dialect} database.
Answer with the SQL only: no explanation, no markdown. Use only these tables and columns:
{schema}
Return at most {max_rows} rows. Never write, never use more than one statement.
Previous attempts:
{previous}"""


def no_llm_message() -> str:
    """What the lane says when no LLM is configured."""
    return str(LLMNotConfiguredError.needed_for("recall's tools scope writes its SQL with an LLM"))


@dataclass(slots=True)
class TextToSqlResult:
    connection: str
    dialect: str
    question: str
    success: bool = False
    sql: str | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    row_count: int = 0
    truncated: bool = False
    attempts: int = 0
    error: str | None = None

    def render_text(self) -> str:
        """The entry's text: the rows as a small table, or why there are none."""
        if not self.success:
            return f"[{self.connection}] text-to-SQL failed: {self.error}"
        if not self.rows:
            return f"[{self.connection}] {self.sql} → no rows"
        columns = list(self.rows[0])
        lines = [" | ".join(columns)]
        lines += [" | ".join(str(row.get(c, "")) for c in columns) for row in self.rows]
        suffix = " (truncated)" if self.truncated else ""
        head = f"[{self.connection}] {self.sql} → {self.row_count} row(s){suffix}"
        return head + "\n" + "\n".join(lines)

    def structured(self) -> dict[str, Any]:
        return {
            "connection": self.connection,
            "dialect": self.dialect,
            "sql": self.sql,
            "rows": self.rows,
            "row_count": self.row_count,
            "truncated": self.truncated,
            "attempts": self.attempts,
        }


def visible(schema: Schema, connection: ToolConnection, max_tables: int) -> Schema:
    """The part of the schema the connection exposes: its ``allowed_tables``, capped."""
    allowed = {t.lower() for t in connection.allowed_tables or ()}
    names = [t for t in schema.tables if not allowed or t.lower() in allowed][:max_tables]
    return Schema(schema.name, {t: schema.tables[t] for t in names})


async def run_text_to_sql(
    settings: Settings, llm: LLM | None, connection: ToolConnection, question: str
) -> TextToSqlResult:
    """Answer ``question`` with one guarded read-only query on ``connection``."""
    dialect = "postgresql" if connection.provider == "postgres" else "sqlite"
    result = TextToSqlResult(connection=connection.name, dialect=dialect, question=question)
    if llm is None:
        result.error = no_llm_message()
        return result
    timeout = settings.text_to_sql_statement_timeout_ms
    max_rows = min(connection.max_rows or settings.text_to_sql_max_rows, 100_000)
    try:
        schema = visible(
            await read_schema(connection.provider, connection.connection_string, timeout),
            connection,
            settings.text_to_sql_max_schema_tables,
        )
    except Exception as exc:  # any driver error: reported, never raised
        logger.warning("schema of tool connection %r unreadable: %s", connection.name, exc)
        result.error = f"Could not read the database schema: {scrub_secrets(str(exc))}"
        return result
    if not schema.tables:
        result.error = "The database exposes no readable tables."
        return result

    previous: list[str] = []
    for attempt in range(1, settings.text_to_sql_max_attempts + 1):
        result.attempts = attempt
        messages: list[ChatMessage] = [
            {
                "role": "system",
                "content": _SYSTEM.format(
                    dialect=dialect,
                    schema=schema.render(),
                    max_rows=max_rows,
                    previous="\n".join(previous) or "No attempts yet",
                ),
            },
            {"role": "user", "content": question},
        ]
        try:
            generated = (await llm.complete(messages)).text
        except EngramError as exc:
            result.error = f"SQL generation failed: {exc}"
            previous.append(f"Query: <not generated> -> Error: {exc}")
            continue
        try:
            guarded = validate_select(
                generated,
                provider=connection.provider,
                tables=list(schema.tables),
                schema=schema.name,
                max_rows=max_rows,
            )
        except SqlGuardError as exc:
            logger.warning("SQL guard refused attempt %d on %r: %s", attempt, connection.name, exc)
            result.error = str(exc)
            previous.append(f"Query: {generated!r} -> Rejected: {exc}")
            continue
        result.sql = guarded.sql
        try:
            rows, truncated = await read_rows(
                connection.provider,
                connection.connection_string,
                guarded.sql,
                max_rows=max_rows,
                timeout_ms=timeout,
            )
        except Exception as exc:  # the database's own refusal or error: fed back
            logger.warning("SQL attempt %d on %r failed: %s", attempt, connection.name, exc)
            result.error = f"SQL execution failed: {scrub_secrets(str(exc))}"
            previous.append(f"Query: {guarded.sql} -> Executed with error: {exc}")
            continue
        result.success, result.error = True, None
        result.rows, result.row_count, result.truncated = rows, len(rows), truncated
        return result
    return result
