"""The LangGraph and LangChain integrations behind their extras: ``import engramdb`` never needs
a framework, and an integration imported without its framework says which extra to install.
Issue 15: "Each under engramdb.integrations.<name>, behind an extra that names the framework."
"""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("engramdb.integrations.langgraph", "langgraph", "langgraph"),
        ("engramdb.integrations.langchain", "langchain_core", "langchain"),
    ],
)
def test_without_the_framework_the_import_names_the_extra(
    module: str, framework: str, extra: str
) -> None:
    """``import engramdb`` never needs a framework; an integration without it says what to
    install."""
    import subprocess
    import sys

    code = (
        f"import sys; sys.modules[{framework!r}] = None\n"
        "import engramdb, engramdb.integrations\n"
        f"import {module}\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert f"pip install 'engramdb[{extra}]'" in done.stderr
