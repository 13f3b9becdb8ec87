"""``engramdb backup``, ``engramdb restore`` and ``engramdb check``: the store's own upkeep."""

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["register"]


def register(app: typer.Typer, run: Callable[[Any], Any], configure: Callable[..., None]) -> None:
    """Add the three commands to ``app`` (``run`` and ``configure`` are the CLI's own)."""
    data_dir_opt = typer.Option("--data-dir", help="Data directory (default: ENGRAMDB_DATA_DIR).")

    @app.command()
    def backup(
        dest: Annotated[Path, typer.Argument(help="The new backup file to write.")],
        data_dir: Annotated[Path | None, data_dir_opt] = None,
    ) -> None:
        """Write a consistent copy of the store to DEST while it stays in use."""
        from engramdb.engine import get_engine

        configure(data_dir)

        async def go() -> Path:
            engine = get_engine()
            try:
                if not await engine.database_exists():
                    raise typer.BadParameter(
                        "nothing to back up: the data directory holds no store"
                    )
                return await engine.store.backup(dest)
            finally:
                await engine.close()

        started = time.perf_counter()
        written = run(go())
        size = written.stat().st_size
        typer.echo(
            f"backed up to {written} ({size / 1e6:.1f} MB, {time.perf_counter() - started:.1f} s)"
        )

    @app.command()
    def restore(
        src: Annotated[Path, typer.Argument(help="A backup file written by 'engramdb backup'.")],
        overwrite: Annotated[
            bool, typer.Option("--overwrite", help="Replace the store that is there.")
        ] = False,
        data_dir: Annotated[Path | None, data_dir_opt] = None,
    ) -> None:
        """Put a backup in place of the store (stop every process using it first)."""
        from engramdb.errors import FeatureNotAvailableError
        from engramdb.settings import config
        from engramdb.storage.sqlite.backup import restore_database

        configure(data_dir)
        url = config.settings.storage_url

        async def go() -> None:
            if not url.startswith("sqlite:///"):
                raise FeatureNotAvailableError(
                    "engramdb restore restores the embedded store; restore a PostgreSQL store "
                    "with pg_restore"
                )
            restore_database(src, Path(url.removeprefix("sqlite:///")), overwrite=overwrite)

        run(go())
        typer.echo(f"restored {src}; run 'engramdb check' to verify it")

    @app.command()
    def check(data_dir: Annotated[Path | None, data_dir_opt] = None) -> None:
        """Check the store: SQLite's page check and engramdb's own invariants."""
        from engramdb.engine import get_engine

        configure(data_dir)

        async def go() -> list[str]:
            engine = get_engine()
            try:
                if not await engine.database_exists():
                    return []
                return (await engine.store.check_integrity()).violations
            finally:
                await engine.close()

        violations = run(go())
        for line in violations:
            typer.echo(line)
        if violations:
            raise typer.Exit(code=1)
        typer.echo("ok: no violation found")
