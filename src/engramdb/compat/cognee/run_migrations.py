"""``cognee.run_migrations``: bring the database schema up to date."""

from __future__ import annotations

__all__ = ["run_migrations"]


async def run_migrations() -> None:
    """Apply the default engine's pending schema migrations (idempotent). engramdb's store
    migrates itself when it is opened, so this is the same as ``setup()``: it creates the
    database when missing and applies what is pending. In-process only."""
    from engramdb.compat.cognee.modules.engine.operations.setup import setup

    await setup()
