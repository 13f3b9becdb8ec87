"""Human output of the listing commands: a table with a header row, drawn by rich.

``--json`` output does not come through here. Off a terminal (a pipe, a file) the table keeps
its natural width, so nothing is cut or wrapped, and rich prints no colour codes.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Sequence

from rich import box
from rich.console import Console
from rich.table import Table

__all__ = ["print_table"]


def print_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Print ``rows`` under ``headers`` on stdout (``None`` cells print as ``-``)."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, highlight=False)
    for header in headers:
        table.add_column(header, no_wrap=True, overflow="fold")
    for row in rows:
        table.add_row(*("-" if cell is None or cell == "" else str(cell) for cell in row))
    if sys.stdout.isatty():
        Console(file=sys.stdout).print(table)
        return
    buffer = io.StringIO()  # off a terminal: natural width, no colour, no trailing blanks
    Console(file=buffer, width=10_000, no_color=True, color_system=None).print(table)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines()))
