"""The Python example of ``docs/tools.md`` runs as written, on a fresh data directory."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(
    r"```python\n(.*?)\n```", (ROOT / "docs" / "tools.md").read_text(encoding="utf-8"), re.S
)


def test_every_python_block_is_checked_here() -> None:
    assert len(BLOCKS) == 1


async def test_the_tools_doc_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {}
    source = "async def _example():\n" + textwrap.indent(BLOCKS[0], "    ")
    exec(compile(source, "docs/tools.md", "exec"), namespace)
    await namespace["_example"]()  # type: ignore[operator]
    out = capsys.readouterr().out
    assert "'name': 'shop'" in out and "shop.db" not in out
    assert "False" in out and "LLM_API_KEY" in out
