"""The Python example of ``docs/permissions.md`` runs as written."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


async def test_the_permissions_doc_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "docs" / "permissions.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    namespace: dict[str, object] = {}
    source = "async def _example():\n" + textwrap.indent(block, "    ") + "\n    return locals()"
    exec(compile(source, "docs/permissions.md", "exec"), namespace)
    found = await namespace["_example"]()  # type: ignore[operator]
    assert found["results"]  # Bob found Alice's note while he held the grant
    assert "does not have necessary permission: [read]" in capsys.readouterr().out
