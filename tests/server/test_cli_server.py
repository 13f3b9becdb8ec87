"""``engramdb serve`` and ``engramdb mcp`` from the command line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from engramdb.cli import app
from tests.server.conftest import Account, LiveServer

runner = CliRunner()


@pytest.mark.parametrize("command", ["serve", "mcp", "ui"])
def test_commands_have_help(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0 and "Usage" in result.output
    assert "--port" in result.output


def test_mcp_refuses_an_unknown_transport() -> None:
    result = runner.invoke(app, ["mcp", "--transport", "carrier-pigeon"])
    assert result.exit_code == 2


def test_serve_answers_health_and_requires_keys(isolated_config: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from engramdb.cli import main; main()",
            "serve",
            "--port",
            str(port),
        ],
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"{url}/health", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "engramdb serve did not start"
                time.sleep(0.05)
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert httpx.get(f"{url}/api/v1/datasets").status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_cli_runs_against_a_remote_server(live_server: LiveServer, alice: Account) -> None:
    """``engramdb --remote URL --api-key K ...`` sends the commands to the server: what it
    remembers lands in the server's store as the key's user, not in a local data directory."""
    runner = CliRunner()
    remote = ["--remote", live_server.url, "--api-key", alice.key]
    added = runner.invoke(app, [*remote, "remember", "Owls hunt at night.", "--json"])
    assert added.exit_code == 0, added.output
    found = runner.invoke(app, [*remote, "recall", "owls", "--type", "CHUNKS", "--json"])
    assert found.exit_code == 0, found.output
    assert "Owls hunt at night." in found.output
    with live_server.client(alice) as http:
        listed = http.get("/api/v1/datasets").json()
    assert [d["name"] for d in listed] == ["main_dataset"]
    wrong = runner.invoke(app, ["--remote", live_server.url, "--api-key", "egm_bad", "datasets"])
    assert wrong.exit_code == 2 and "API key" in wrong.output
    # the server's error names the fix in CLI terms here too (its terms travel in the problem)
    llm = runner.invoke(app, [*remote, "recall", "owls", "--type", "RAG_COMPLETION"])
    assert llm.exit_code == 2
    assert "--only-context" in llm.output and "only_context=True" not in llm.output


@pytest.mark.parametrize(("command", "module"), [("serve", "uvicorn"), ("mcp", "mcp")])
def test_a_missing_server_extra_is_one_line_naming_it(
    command: str, module: str, isolated_config: Path
) -> None:
    """After the README's first command (no server extra) the servers say what to install
    instead of a traceback: the extra's modules are hidden from a fresh interpreter."""
    hide = (
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        f"    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] == {module!r}:\n"
        f"            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "import importlib.util\n"
        f"importlib.util.find_spec = lambda n, *a: None if n == {module!r} else _real(n, *a)\n"
    )
    script = (
        "import importlib.util\n_real = importlib.util.find_spec\n"
        + hide
        + f"from engramdb.cli import main\nsys.argv = ['engramdb', {command!r}]\nmain()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'engramdb[server]'" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
