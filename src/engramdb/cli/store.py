"""``engramdb backup``, ``engramdb restore`` and ``engramdb check``: the store's own upkeep."""

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from engramdb.cli.confirm import YesOpt, confirm

__all__ = ["register"]


async def _refuse_postgres() -> None:
    from engramdb.errors import FeatureNotAvailableError

    raise FeatureNotAvailableError(
        "engramdb restore restores the embedded store; restore a PostgreSQL store with pg_restore"
    )


async def _checked(check: Callable[[Path], None], path: Path) -> None:
    check(path)  # run() turns its EngramError into the CLI's message


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
            bool,
            typer.Option("--overwrite", help="Replace the store that is there (implies --yes)."),
        ] = False,
        yes: YesOpt = False,
        data_dir: Annotated[Path | None, data_dir_opt] = None,
    ) -> None:
        """Put a backup in place of the store (stop every process using it first; asks before
        replacing a store, --yes skips)."""
        from engramdb.settings import config
        from engramdb.storage.sqlite.backup import check_backup, restore_database

        configure(data_dir)
        url = config.settings.storage_url
        if not url.startswith("sqlite:///"):
            run(_refuse_postgres())
        target = Path(url.removeprefix("sqlite:///"))
        if target.exists():
            run(_checked(check_backup, src))  # a bad backup is refused before the question
            confirm(
                f"Replace the store in {target.parent} with the backup {src}? "
                "Everything written since that backup is lost.",
                yes=yes or overwrite,
            )

        async def go() -> None:
            restore_database(src, target, overwrite=True)

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
