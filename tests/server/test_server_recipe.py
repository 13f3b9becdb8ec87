"""docs/server.md's start recipe, run as written: the key it prints opens the server it starts
(issue 16: the recipe "creates the users in one data directory and serves another, so the printed
key gets 401")."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Starting a server and creating keys"


def _blocks() -> list[str]:
    text = (ROOT / "docs" / "server.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", section, flags=re.S)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.slow
def test_the_start_recipe_prints_a_key_that_opens_the_server(tmp_path: Path) -> None:
    start, check = _blocks()
    port = _free_port()
    # The two values a test machine cannot use as printed: the data directory and the port.
    assert "/srv/engramdb" in start and "8000" in start and "8000" in check
    script = start.replace("/srv/engramdb", str(tmp_path / "srv")).replace("8000", str(port))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAMDB_", "LLM_"))}
    env.update(EMBEDDING_PROVIDER="fake", HOME=str(tmp_path))  # no ~/.engramdb written
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    server = subprocess.Popen(
        ["bash", "-e", "-c", script],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert server.stdout is not None
        key = ""
        lines: list[str] = []
        while not key:
            line = server.stdout.readline()
            assert line, "the recipe ended before printing a key:\n" + "".join(lines)
            lines.append(line)
            if line.startswith("egm_"):
                key = line.strip()
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "".join(lines)
            time.sleep(0.2)
        if shutil.which("curl") is None:
            pytest.skip("no curl on this machine for the check block")
        done = subprocess.run(
            ["bash", "-c", check.replace("8000", str(port)) + "\necho; echo status=$?"],
            env={**env, "KEY": key},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.stdout.splitlines()[0] == "[]", done.stdout + done.stderr
        wrong = httpx.get(f"{url}/api/v1/datasets", headers={"Authorization": "Bearer egm_x"})
        assert wrong.status_code == 401  # the check really checks the key
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
