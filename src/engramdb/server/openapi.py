"""The OpenAPI document of the REST API, as checked in at ``docs/openapi.json``.

Regenerate after changing a route or a model::

    python -m engramdb.server.openapi docs/openapi.json

A test compares the served document with the checked-in file, so CI catches drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["openapi_text"]


def openapi_text() -> str:
    """The document as stable JSON text (sorted keys, two-space indent, trailing newline)."""
    from engramdb.server import create_app

    return json.dumps(create_app().openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = openapi_text()
    if not argv:
        sys.stdout.write(text)
    else:
        Path(argv[0]).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
