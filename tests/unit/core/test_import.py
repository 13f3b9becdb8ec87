"""Importing engramdb is cheap: no model, no database, no heavy libraries."""

from __future__ import annotations

import subprocess
import sys


def test_import_loads_no_heavy_modules() -> None:
    code = (
        "import sys, engramdb; "
        "heavy = [m for m in ('onnxruntime', 'tokenizers', 'numpy', 'sqlite3', 'openai', 'httpx') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_public_names_resolve() -> None:
    import engramdb

    for name in engramdb.__all__:
        assert getattr(engramdb, name) is not None
