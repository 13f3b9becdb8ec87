"""The Python examples of ``docs/permissions.md`` run as written, each on a fresh data
directory."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(
    r"```python\n(.*?)\n```", (ROOT / "docs" / "permissions.md").read_text(encoding="utf-8"), re.S
)


def test_every_python_block_is_checked_here() -> None:
    assert len(BLOCKS) == 2


async def _run(block: str) -> dict[str, object]:
    namespace: dict[str, object] = {}
    source = "async def _example():\n" + textwrap.indent(block, "    ") + "\n    return locals()"
    exec(compile(source, "docs/permissions.md", "exec"), namespace)
    return await namespace["_example"]()  # type: ignore[operator,no-any-return]


async def test_the_permissions_doc_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    found = await _run(BLOCKS[0])
    assert found["results"]  # Bob found Alice's note while he held the grant
    assert "does not have necessary permission: [read]" in capsys.readouterr().out


async def test_the_tenants_and_roles_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import engramdb

    found = await _run(BLOCKS[1])
    assert "Monday" in str(found["found"])  # Bob read it through his role
    assert "does not have necessary permission: [read]" in capsys.readouterr().out
    with pytest.raises(engramdb.PermissionDeniedError):  # the revoke took effect
        await engramdb.recall(
            "beamline",
            dataset_ids=[found["notes"].dataset_id],
            user=found["bob"],  # type: ignore[attr-defined]
        )
