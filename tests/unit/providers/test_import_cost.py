"""Importing engramdb must not import the heavy provider dependencies."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("onnxruntime", "tokenizers", "httpx")


def _modules_after(statement: str) -> dict[str, bool]:
    report = f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    code = f"{statement}; import json, sys; {report}"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: dict[str, bool] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def test_importing_the_embedding_package_imports_no_heavy_dependency() -> None:
    loaded = _modules_after(
        "import engramdb, engramdb.providers.embedding; "
        "from engramdb.providers.embedding import OnnxEmbedder, OpenAICompatibleEmbedder"
    )
    assert loaded == dict.fromkeys(HEAVY, False)


def test_constructing_embedders_imports_no_heavy_dependency() -> None:
    loaded = _modules_after(
        "from engramdb.providers.embedding import OnnxEmbedder, OpenAICompatibleEmbedder; "
        "OnnxEmbedder(); OpenAICompatibleEmbedder('http://127.0.0.1:9/v1', 'm', dimension=4)"
    )
    assert loaded == dict.fromkeys(HEAVY, False)
