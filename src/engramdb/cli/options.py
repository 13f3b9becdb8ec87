"""Options and arguments every CLI command spells the same way (declared once here)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from uuid import UUID

import typer

__all__ = ["DataDirOpt", "JsonOpt", "dataset_ref"]

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
DataDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Data directory (default: ENGRAMDB_DATA_DIR or ~/.engramdb).",
    ),
]


def dataset_ref(dataset: str) -> str | UUID:
    """A dataset argument as the API takes it: a UUID names a dataset by id, else by name."""
    try:
        return UUID(dataset)
    except ValueError:
        return dataset
