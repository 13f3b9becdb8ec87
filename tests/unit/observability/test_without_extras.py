"""Without the extras everything still works (issue 16, item 4: "behind an extra (no-op when
absent)"): a subprocess with opentelemetry and prometheus_client blocked remembers, recalls and
improves; spans are no-ops and nothing is counted. The server needs FastAPI, which itself
depends on opentelemetry-api, so its run blocks prometheus_client only: /metrics then says which
extra to install."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import sys
blocked = ["prometheus_client"] + (["opentelemetry"] if sys.argv[1] == "library" else [])
for name in blocked:
    sys.modules[name] = None  # an import of it now raises ImportError

import asyncio
import engramdb
from engramdb.observability.metrics import exposition, registry
from engramdb.observability.tracing import span


async def main():
    await engramdb.remember("Owls hunt at night.", dataset_name="zoo")
    found = await engramdb.recall("owls", datasets=["zoo"], query_type="CHUNKS")
    assert found, found
    result = await engramdb.improve("zoo")
    assert len(result.stages) >= 9
    assert await engramdb.wait_for_background_tasks(30)
    with span("engramdb.test") as current:
        assert (current is None) == (sys.argv[1] == "library")
    assert exposition() is None and registry() is None
    if sys.argv[1] == "library":
        print("ok")
        return

    from fastapi.testclient import TestClient
    from engramdb.server import create_app

    engramdb.config.set("engramdb_metrics_token", "t0ken")
    with TestClient(create_app()) as client:
        answer = client.get("/metrics", headers={"Authorization": "Bearer t0ken"})
        assert answer.status_code == 501, answer.text
        assert "engramdb[metrics]" in answer.text
        assert client.get("/health").status_code == 200
    print("ok")


asyncio.run(main())
"""


@pytest.mark.parametrize("mode", ["library", "server"])
def test_everything_works_without_the_observability_packages(tmp_path: Path, mode: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAMDB_", "LOG_"))}
    env.update(
        EMBEDDING_PROVIDER="fake",
        EMBEDDING_DIMENSIONS="64",
        ENGRAMDB_DATA_DIR=str(tmp_path / "data"),
    )
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
