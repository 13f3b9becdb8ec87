"""Without its framework installed, an integration module says which extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("engramdb.integrations.llamaindex", "llama_index", "engramdb[llamaindex]"),
        ("engramdb.integrations.openai_agents", "agents", "engramdb[openai-agents]"),
    ],
)
def test_a_missing_framework_names_the_extra(module: str, framework: str, extra: str) -> None:
    code = (
        "import sys\n"
        f"sys.modules[{framework!r}] = None  # as if the framework were not installed\n"
        "try:\n"
        f"    import {module}\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert f"pip install '{extra}'" in done.stdout
