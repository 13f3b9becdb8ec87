"""The README opens with the two fresh-machine commands, and CI runs the second verbatim."""

from __future__ import annotations

import re
from pathlib import Path

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
