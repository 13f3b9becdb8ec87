"""The y/N question every destructive command asks before it deletes anything.

On a terminal the user answers (the default is no); when stdin is not a terminal (a script, a
pipe, CI) nobody can answer, so the command refuses and says to pass ``--yes``. Either way a
refusal exits 1 having written nothing.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from engramdb.cli.messages import fail

__all__ = ["YesOpt", "confirm"]

YesOpt = Annotated[
    bool, typer.Option("--yes", "-y", help="Do not ask for confirmation (needed without a TTY).")
]


def confirm(question: str, *, yes: bool) -> None:
    """Return when the user agreed to ``question`` (or passed ``--yes``); otherwise exit 1."""
    if yes:
        return
    if not sys.stdin.isatty():
        fail(
            f"{question} Not confirmed: stdin is not a terminal, so nothing was changed; "
            "pass --yes to confirm.",
            code=1,
        )
    if not typer.confirm(question, default=False):
        typer.echo("aborted: nothing was changed", err=True)
        raise typer.Exit(code=1)
