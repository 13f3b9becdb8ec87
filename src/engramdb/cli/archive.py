"""``engramdb export`` and ``engramdb import``: move a store's memory through an archive
(:mod:`engramdb.archive`; the format is described in docs/export-import.md)."""

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["register"]


def register(app: typer.Typer, run: Callable[[Any], Any], configure: Callable[..., None]) -> None:
    """Add the two commands to ``app`` (``run`` and ``configure`` are the CLI's own)."""
    from engramdb.cli.users import AsOpt, _actor

    data_dir_opt = typer.Option("--data-dir", help="Data directory (default: ENGRAMDB_DATA_DIR).")

    @app.command("export")
    def export_command(
        dest: Annotated[
            Path, typer.Argument(help="The new archive: a directory, or a file ending in .zip.")
        ],
        dataset: Annotated[
            list[str] | None,
            typer.Option("--dataset", help="Only this dataset (name or id); repeatable."),
        ] = None,
        with_vectors: Annotated[
            bool, typer.Option("--with-vectors", help="Include the embeddings.")
        ] = False,
        as_user: AsOpt = None,
        data_dir: Annotated[Path | None, data_dir_opt] = None,
    ) -> None:
        """Write an archive of the store (every dataset, or those given; with --as, only what
        that user can read)."""
        from engramdb.archive import ExportReport, export_archive
        from engramdb.engine import close_default_engine

        configure(data_dir)

        async def go() -> ExportReport:
            try:
                return await export_archive(
                    dest, datasets=dataset, with_vectors=with_vectors, user=await _actor(as_user)
                )
            finally:
                await close_default_engine()

        started = time.perf_counter()
        report = run(go())
        counts = report.records
        typer.echo(
            f"exported {len(report.datasets)} dataset(s), {counts.get('data.jsonl', 0)} "
            f"document(s), {counts.get('nodes.jsonl', 0)} node(s), "
            f"{counts.get('edges.jsonl', 0)} edge(s) to {report.path} "
            f"({report.size_bytes / 1e6:.1f} MB, {time.perf_counter() - started:.1f} s)"
        )

    @app.command("import")
    def import_command(
        src: Annotated[Path, typer.Argument(help="An archive written by 'engramdb export'.")],
        as_user: AsOpt = None,
        data_dir: Annotated[Path | None, data_dir_opt] = None,
    ) -> None:
        """Import an archive into the store (what is there already is skipped; with --as,
        everything becomes that user's)."""
        from engramdb.archive import ImportReport, import_archive
        from engramdb.engine import close_default_engine

        configure(data_dir)

        async def go() -> ImportReport:
            try:
                return await import_archive(src, user=await _actor(as_user))
            finally:
                await close_default_engine()

        started = time.perf_counter()
        report = run(go())
        typer.echo(
            f"imported {src}: {report.datasets_created} new dataset(s), "
            f"{report.documents_written} document(s) written, {report.documents_skipped} "
            f"already there, {report.vectors_embedded} vector(s) embedded, "
            f"{report.session_entries} session entr(ies) ({time.perf_counter() - started:.1f} s)"
        )
