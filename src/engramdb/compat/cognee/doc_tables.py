"""The tables of docs/migrating-from-cognee.md that are derived from the code, not written by hand.

* ``modules``: every cognee module path ``engramdb.compat.cognee`` mirrors, with its names
  (each module's ``__all__``);
* ``refused``: every option of cognee's verbs that engramdb refuses, with what to use instead
  (:data:`engramdb.models.requests.classic.UNSUPPORTED`).

In the document each table sits between ``<!-- generated: NAME -->`` and
``<!-- end generated -->``; ``python -m engramdb.compat.cognee.doc_tables DOCUMENT.md`` rewrites
them, and a test fails when the document and the code disagree.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["TABLES", "render_modules", "render_refused", "update_document"]

_PACKAGE = "engramdb.compat.cognee"
#: Modules of the package that are engramdb's tooling, not cognee paths.
_TOOLING = {"runner", "doc_tables", "__main__"}
_BLOCK = re.compile(
    r"(<!-- generated: (?P<name>[a-z]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S
)


def _names(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(f"`{n}`" for n in sorted(names)) or "(a package)"


def render_modules() -> str:
    """The table of mirrored module paths."""
    import engramdb

    package = importlib.import_module(_PACKAGE)
    extra = sorted(set(package.__all__) - set(engramdb.__all__))
    top = "every public name of `engramdb`" + (f", plus {_names(extra)}" if extra else "")
    rows = ["| module | names |", "|---|---|", f"| `cognee` | {top} |"]
    found = pkgutil.walk_packages(package.__path__, prefix=_PACKAGE + ".")
    for info in sorted(found, key=lambda i: i.name):
        parts = info.name[len(_PACKAGE) + 1 :].split(".")
        if parts[0] in _TOOLING or any(p.startswith("_") for p in parts):
            continue
        module = importlib.import_module(info.name)
        names = getattr(module, "__all__", ())
        if info.ispkg and not names:
            continue  # a namespace step such as cognee.modules
        rows.append(f"| `cognee.{'.'.join(parts)}` | {_names(names)} |")
    return "\n".join(rows) + "\n"


def render_refused() -> str:
    """The table of refused options."""
    from engramdb.models.requests.classic import UNSUPPORTED

    rows = ["| verb | option | accepted value | instead |", "|---|---|---|---|"]
    for verb, options in UNSUPPORTED.items():
        for option, (accepted, instead) in options.items():
            rows.append(f"| {verb} | `{option}` | `{accepted!r}` | {instead} |")
    return "\n".join(rows) + "\n"


TABLES: dict[str, Callable[[], str]] = {"modules": render_modules, "refused": render_refused}


def update_document(text: str) -> str:
    """``text`` with every generated table rendered anew."""

    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in TABLES:
            raise ValueError(f"unknown generated table {name!r}: choose one of {sorted(TABLES)}")
        return match.group(1) + TABLES[name]() + match.group(4)

    return _BLOCK.sub(fill, text)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m engramdb.compat.cognee.doc_tables DOCUMENT.md", file=sys.stderr)
        return 2
    path = Path(argv[0])
    path.write_text(update_document(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
