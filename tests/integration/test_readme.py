"""The README opens with the two fresh-machine commands, and CI runs the second verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)


def test_readme_starts_with_two_commands() -> None:
    text = (ROOT / "README.md").read_text()
    head = text.split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)\n```", head, flags=re.S)
    assert len(blocks) == 2, "the README must open with exactly two command blocks"
    main_job, tests = blocks
    assert "engramdb demo" in main_job and "pip install" in main_job
    assert "pytest" in tests and "mypy" in tests and "ruff" in tests


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    tests_command = _readme_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests_command in ci.splitlines()


@pytest.mark.parametrize(
    ("doc", "at_least"),
    [
        ("README.md", 2),
        ("docs/migrating-from-cognee.md", 1),
        ("docs/code-graph.md", 1),
        ("docs/export-import.md", 1),
        ("docs/observability.md", 4),
        ("docs/web-ui.md", 1),
    ],
)
def test_every_python_block_runs(tmp_path: Path, doc: str, at_least: int) -> None:
    """Each ```python block of the README and of the migration guide runs as a script, offline
    (fake embedder), in a fresh data dir."""
    import os
    import subprocess
    import sys

    blocks = re.findall(r"```python\n(.*?)\n```", (ROOT / doc).read_text(), flags=re.S)
    assert len(blocks) >= at_least
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ENGRAMDB_", "LLM_", "EMBEDDING_"))
    }
    env.update(EMBEDDING_PROVIDER="fake", EMBEDDING_DIMENSIONS="64")
    for index, block in enumerate(blocks):
        script = tmp_path / f"block{index}.py"
        script.write_text(block)
        env["ENGRAMDB_DATA_DIR"] = str(tmp_path / f"data{index}")
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"{doc} block {index} failed:\n{done.stderr[-2000:]}"
        if doc == "README.md":  # the README's examples show what they found
            assert done.stdout.strip(), f"README block {index} printed nothing"
