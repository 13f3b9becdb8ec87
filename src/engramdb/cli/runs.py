"""``engramdb improve-runs``: the improve runs recorded for your datasets, with their stages."""

import json
from collections.abc import Callable
from typing import Annotated, Any

import typer

from engramdb.cli.options import DataDirOpt, JsonOpt, dataset_ref
from engramdb.cli.tables import print_table

__all__ = ["register"]


def register(app: typer.Typer, run: Callable[[Any], Any], configure: Callable[..., None]) -> None:
    """Add the command to ``app`` (``run`` and ``configure`` are the CLI's own)."""

    @app.command("improve-runs")
    def improve_runs(
        dataset: Annotated[
            str | None,
            typer.Argument(
                help="Dataset name (yours) or id (yours or granted read); all if left out."
            ),
        ] = None,
        limit: Annotated[
            int, typer.Option("--limit", "-n", help="Show at most this many runs.")
        ] = 20,
        stages: Annotated[
            bool, typer.Option("--stages", help="Also list each run's stages.")
        ] = False,
        as_json: JsonOpt = False,
        data_dir: DataDirOpt = None,
    ) -> None:
        """List past improve runs, newest first: when, status, and what each stage did."""
        from engramdb.facade import list_improve_runs

        configure(data_dir)
        ref = dataset_ref(dataset) if dataset is not None else None
        found = run(list_improve_runs(ref, limit=limit))
        if as_json:
            typer.echo(json.dumps([r.model_dump(mode="json") for r in found], indent=2))
            return
        if not found:
            typer.echo("no improve runs yet: run 'engramdb improve'")
            return
        if not stages:
            print_table(
                ("started", "dataset", "status", "stages completed", "run id"),
                (
                    (
                        f"{r.started_at:%Y-%m-%d %H:%M:%S}",
                        r.dataset_name,
                        r.status,
                        f"{sum(s.status == 'completed' for s in r.stages)}/{len(r.stages)}",
                        r.run_id,
                    )
                    for r in found
                ),
            )
            return
        print_table(
            ("started", "dataset", "run status", "stage", "stage status", "ms", "reason"),
            (row for r in found for row in _stage_rows(r)),
        )


def _stage_rows(run: Any) -> list[tuple[object, ...]]:
    """One row per stage of ``run`` (an ImproveRun); one row with its error when it has none."""
    head = (f"{run.started_at:%Y-%m-%d %H:%M:%S}", run.dataset_name, run.status)
    if not run.stages:
        return [(*head, None, None, None, run.error)]
    return [
        (*head, s.stage, s.status, round(s.duration_ms), s.reason or s.error) for s in run.stages
    ]
