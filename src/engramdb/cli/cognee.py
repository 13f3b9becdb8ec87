"""``engramdb run-cognee script.py [args...]``: run an unmodified cognee program on engramdb."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]

_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}


def register(app: typer.Typer) -> None:
    """Add the ``run-cognee`` command to ``app``."""

    @app.command("run-cognee", context_settings=_PASS_THROUGH)
    def run_cognee(
        script: Annotated[
            Path, typer.Argument(help="The cognee program (a .py file) to run unchanged.")
        ],
        args: Annotated[
            list[str] | None,
            typer.Argument(help="Arguments passed to the program as sys.argv[1:]."),
        ] = None,
    ) -> None:
        """Run a cognee program with its cognee imports served by engramdb (this process only)."""
        from engramdb.compat.cognee.runner import run_cognee_script

        if not script.is_file():
            typer.secho(f"error: no such file: {script}", fg=typer.colors.RED, err=True)
            raise typer.Exit(code=2)
        run_cognee_script(script, args or [])
