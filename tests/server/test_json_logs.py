"""``engramdb serve`` with LOG_FORMAT=json: every line on stderr, uvicorn's included, is one JSON
object (issue 16, item 4: "structured JSON logs option")."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def test_serve_logs_json_lines(isolated_config: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, LOG_FORMAT="json")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from engramdb.cli import main; main()",
            "serve",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                assert httpx.get(f"{url}/health", timeout=1).status_code == 200
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "engramdb serve did not start"
                time.sleep(0.05)
        assert httpx.get(f"{url}/api/v1/datasets").status_code == 401
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=15)
    lines = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    assert lines, "the server logged nothing"
    for line in lines:
        assert {"timestamp", "level", "logger", "message"} <= set(line)
    assert any(line["logger"].startswith("uvicorn") for line in lines)
    assert any("/health" in line["message"] for line in lines)  # the access log
