"""The API docs at /docs and /redoc work with no network: every file they load comes from the
server itself (issue 16: "API docs offline at /docs (assets from a registry package, no CDN)")."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engramdb.server.api_docs import ASSETS_PATH, DOCS_PATH, REDOC_PATH
from tests.server.conftest import LiveServer

_REFS = re.compile(r"""(?:src|href)=["']([^"']+)["']""")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any connection from this process to a host other than 127.0.0.1 fails."""
    real = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"network blocked in this test: {address!r}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield


@pytest.mark.parametrize("page", [DOCS_PATH, REDOC_PATH])
def test_docs_pages_load_only_local_assets(
    live_server: LiveServer, no_network: None, page: str
) -> None:
    with live_server.client() as client:  # no API key: the docs are public like /openapi.json
        answer = client.get(page)
        assert answer.status_code == 200, answer.text
        html = answer.text
        refs = _REFS.findall(html)
        assert refs, "the page loads nothing"
        assert all(r.startswith(ASSETS_PATH + "/") for r in refs), refs
        assert "http://" not in html and "https://" not in html  # no CDN, no web fonts
        for ref in refs:
            asset = client.get(ref)
            assert asset.status_code == 200, ref
            assert len(asset.content) > 1000, ref
        assert "/openapi.json" in html
        assert client.get("/openapi.json").status_code == 200


@pytest.mark.slow
def test_swagger_ui_renders_the_routes_in_an_offline_browser(
    live_server: LiveServer, tmp_path: Path
) -> None:
    """Headless Chromium with every host but 127.0.0.1 unresolvable renders the operations."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no Chromium on this machine: apt-get install chromium")
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--proxy-server=http://127.0.0.1:9",  # anything not local would go nowhere
            "--proxy-bypass-list=127.0.0.1",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=15000",
            "--dump-dom",
            live_server.url + DOCS_PATH,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "/api/v1/remember" in done.stdout and "/api/v1/recall" in done.stdout
    assert 'class="opblock' in done.stdout  # Swagger UI drew the operations
