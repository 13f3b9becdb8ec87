"""The web UI at /ui, driven end to end in a real headless Chromium (Playwright on Debian's
``/usr/bin/chromium``) against a real server: sign in with an API key, see the datasets and
their documents, run a recall, open the graph and hover a node, confirm a forget. Screenshots
are checked not to be blank.

Issue 16: "A web UI served by ``engramdb serve`` at ``/ui`` ... sign in with an API key;
datasets and their documents ...; a recall playground ...; the graph explorer; ... forget with
confirmation."
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from engramdb.server.api_docs import DOCS_PATH, UI_PATH
from tests.server.conftest import Account, LiveServer
from tests.support.browser import assert_not_blank, chromium_browser

pytestmark = pytest.mark.slow

TEXTS = [
    "Alice moved to Paris in 2010, while Bob has always lived in New York.",
    "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin.",
]


def _remember(server: LiveServer, account: Account) -> None:
    with server.client(account) as client:
        for i, text in enumerate(TEXTS):
            r = client.post(
                "/api/v1/remember",
                json={
                    "data": text,
                    "dataset_name": "ui_demo",
                    "importance_weight": 0.7 if i == 0 else 0.4,
                    "node_set": ["people"],
                    "self_improvement": False,
                },
            )
            assert r.status_code == 200, r.text


def test_ui_is_served_offline_and_links_the_api_docs(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.url) as client:
        assert client.get(UI_PATH).status_code in (301, 302, 307, 308)
        page = client.get(f"{UI_PATH}/")
        assert page.status_code == 200 and '<div id="app">' in page.text
        assets = re.findall(r'(?:src|href)="\./(assets/[^"]+)"', page.text)
        assert assets and all(client.get(f"{UI_PATH}/{a}").status_code == 200 for a in assets)
        # Nothing is loaded from another host: no absolute URL in the page or its bundles.
        for body in [page.text] + [client.get(f"{UI_PATH}/{a}").text for a in assets]:
            assert not re.search(r"""(src|href)=["']https?://""", body)
        bundle = "".join(client.get(f"{UI_PATH}/{a}").text for a in assets if a.endswith(".js"))
        assert DOCS_PATH in bundle  # the UI links the offline API docs


def test_sign_in_datasets_recall_graph_sessions_improve_and_forget(
    live_server: LiveServer, alice: Account, tmp_path: Path
) -> None:
    _remember(live_server, alice)
    with live_server.client(alice) as client:
        r = client.post(
            "/api/v1/sessions/chat-1/entries",
            json={"question": "Where does Alice live?", "answer": "Paris.", "context": ""},
        )
        assert r.status_code == 200, r.text
    with chromium_browser() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{live_server.url}{UI_PATH}/")

        # A wrong key is refused with the server's problem text; the right one signs in.
        page.fill("input[name=api-key]", "egm_wrong")
        page.click("button:has-text('Sign in')")
        page.wait_for_selector("[role=alert]")
        page.fill("input[name=api-key]", alice.key)
        page.click("button:has-text('Sign in')")
        page.wait_for_selector("text=alice@example.com")

        # Datasets and their documents, with weights and node sets.
        page.wait_for_selector("nav[aria-label=Datasets] >> text=ui_demo")
        page.wait_for_selector("table >> text=people")
        rows = page.locator("tbody tr")
        assert rows.count() == 2
        assert "0.7" in page.inner_text("tbody")
        shot = page.screenshot(path=str(tmp_path / "datasets.png"))
        assert_not_blank(browser, shot)

        # The recall playground: a search type from the server's OpenAPI, verbose results.
        page.click("header.top >> text=Recall")
        page.wait_for_selector(
            "select[aria-label='Search type'] >> option[value=CHUNKS]", state="attached"
        )
        page.fill("input[name=query]", "Where does Alice live?")
        page.select_option("select[aria-label='Search type']", "CHUNKS")
        page.click("form >> button[type=submit]")
        page.wait_for_selector(".result")
        assert "Alice moved to Paris" in page.inner_text(".results")
        assert "importance_weight" in page.inner_text(".results")  # verbose: the score breakdown
        assert_not_blank(browser, page.screenshot(path=str(tmp_path / "recall.png")))

        # The graph explorer: WebGL drawing, hover shows every stored field.
        page.click("header.top >> text=Graph")
        page.wait_for_function("window.__engramView && window.__engramView.graph.order > 0")
        target = page.evaluate(
            """() => {
              const v = window.__engramView;
              const id = v.search("Alice", 1)[0].id;
              const at = v.sigma.graphToViewport(v.graph.getNodeAttributes(id));
              const stage = document.querySelector("[data-testid=graph-stage]");
              const box = stage.getBoundingClientRect();
              return { id, x: box.left + at.x, y: box.top + at.y };
            }"""
        )
        page.mouse.move(target["x"], target["y"])
        page.wait_for_selector(".graph-tab .tooltip:not([hidden])")
        tip = page.inner_text(".graph-tab .tooltip")
        assert f"id: {target['id']}" in tip and "importance_weight: 0.7" in tip
        assert "text_" not in page.evaluate(
            "() => window.__engramView.graph.mapNodes((n, a) => a.label).join('|')"
        )  # documents carry human names, not text_<hash>
        assert_not_blank(browser, page.screenshot(path=str(tmp_path / "graph.png")))

        # Sessions: the entry recorded over REST, rated here with a comment.
        page.click("header.top >> text=Sessions")
        page.click("nav[aria-label=Sessions] >> text=chat-1")
        page.wait_for_selector("text=Where does Alice live?")
        page.once("dialog", lambda d: d.accept("spot on"))
        page.click("button[title='Rate 5']")
        page.wait_for_selector("text=rating: 5")
        assert "spot on" in page.inner_text("main")

        # Improve: run it on the dataset and see its stages.
        page.click("header.top >> text=Improve")
        page.select_option("select[aria-label=Dataset]", "ui_demo")
        page.click("text=Run improve")
        page.wait_for_selector("main table tbody tr", timeout=120_000)
        assert page.locator("main table tbody tr").count() >= 2
        assert_not_blank(browser, page.screenshot(path=str(tmp_path / "improve.png")))

        # Forget one document: a confirmation dialog first, then it is gone.
        page.click("header.top >> text=Datasets")
        page.wait_for_selector("tbody tr")
        page.locator("tbody tr").first.locator("text=Forget…").click()
        dialog = page.locator("dialog.confirm")
        dialog.wait_for()
        assert "cannot be undone" in dialog.inner_text()
        assert_not_blank(browser, page.screenshot(path=str(tmp_path / "forget.png")))
        dialog.locator("button.danger").click()
        page.wait_for_selector("text=/Forgot \\d+ nodes/")
        page.wait_for_function("document.querySelectorAll('tbody tr').length === 1")
        assert errors == []
    with live_server.client(alice) as client:
        datasets = client.get("/api/v1/datasets").json()
        data = client.get(f"/api/v1/datasets/{datasets[0]['id']}/data").json()
        assert len(data) == 1
        # improve() built the global index's "context of" buckets: hidden unless asked for.
        view = client.get("/api/v1/graph/view").json()
        assert not any(n["properties"].get("internal") for n in view["nodes"])
        assert any("internal node" in notice for notice in view["notices"])
        shown = client.get("/api/v1/graph/view", params={"include_internal": "true"}).json()
        buckets = [n for n in shown["nodes"] if n["properties"].get("internal")]
        assert buckets and all("text_" not in n["label"] for n in buckets)


def test_engramdb_ui_prints_an_address_that_serves_the_ui(isolated_config: Path) -> None:
    """``engramdb ui`` without a browser prints the address; it serves /ui signed in."""
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "engramdb"), "ui", "--no-browser", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/ui/#key=(\S+)", line)
        assert match, line
        base, key = match.groups()
        deadline = time.monotonic() + 30
        while True:
            try:
                page = httpx.get(f"{base}{UI_PATH}/", timeout=5)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the ui server did not start"
                time.sleep(0.2)
        assert page.status_code == 200 and 'id="app"' in page.text
        me = httpx.get(f"{base}/api/v1/users/me", headers={"Authorization": f"Bearer {key}"})
        assert me.status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    # Stopping the server revoked the key it printed. (A new server on the same store.)
    server = LiveServer().start()
    try:
        r = httpx.get(f"{server.url}/api/v1/users/me", headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 401
    finally:
        server.stop()
