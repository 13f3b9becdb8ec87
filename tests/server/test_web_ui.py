"""The web UI at /ui, driven end to end in a real headless Chromium (Playwright on Debian's
``/usr/bin/chromium``) against a real server: sign in with an API key, see the datasets and
their documents by title, remember a pasted text, run a recall in a chosen scope, open the graph
and hover a node, run improve and read the past runs, resolve a conflict, confirm a forget.
Screenshots are checked not to be blank. One browser serves the module's tests.

Issue 16: "A web UI served by ``engramdb serve`` at ``/ui`` ... sign in with an API key;
datasets and their documents ...; a recall playground ...; the graph explorer; ... forget with
confirmation."
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engramdb.server.api_docs import DOCS_PATH, UI_PATH
from engramdb.settings import config
from tests.server.conftest import Account, LiveServer
from tests.support.browser import assert_not_blank, chromium_browser
from tests.support.openai_server import OpenAIServer, Reply

pytestmark = pytest.mark.slow

TEXTS = [
    "Alice moved to Paris in 2010, while Bob has always lived in New York.",
    "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin.",
]
PASTED = "Carol keeps bees on the roof of her house in Lisbon."
PARIS = "Alice Smith lives in Paris."
BERLIN = "Alice Smith lives in Berlin."
WHY = "Alice moved to Berlin in 2023."


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_browser() as b:
        yield b


def _signed_in(browser: Any, server: LiveServer, account: Account) -> tuple[Any, list[str]]:
    """A page of the UI signed in with ``account``'s key, and the page errors it records."""
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}{UI_PATH}/")
    page.fill("input[name=api-key]", account.key)
    page.click("button:has-text('Sign in')")
    page.wait_for_selector(f"text={account.user.email}")
    return page, errors


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


def test_sign_in_datasets_remember_recall_graph_sessions_improve_and_forget(
    live_server: LiveServer, alice: Account, browser: Any, tmp_path: Path
) -> None:
    _remember(live_server, alice)
    with live_server.client(alice) as client:
        r = client.post(
            "/api/v1/sessions/chat-1/entries",
            json={"question": "Where does Alice live?", "answer": "Paris.", "context": ""},
        )
        assert r.status_code == 200, r.text
        (demo,) = client.get("/api/v1/datasets").json()
        titles = [d["title"] for d in client.get(f"/api/v1/datasets/{demo['id']}/data").json()]
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

    # Datasets and their documents, by title (not text_<hash>), with weights and node sets.
    page.wait_for_selector("nav[aria-label=Datasets] >> text=ui_demo")
    page.wait_for_selector("table >> text=people")
    rows = page.locator("tbody tr")
    assert rows.count() == 2
    names = [rows.nth(i).locator("td").first.inner_text() for i in range(2)]
    assert all(t.startswith("“") for t in titles)  # pasted texts are titled by their words
    assert [n.splitlines()[0] for n in names] == titles
    assert "text_" not in page.inner_text("tbody")
    assert "0.7" in page.inner_text("tbody")
    shot = page.screenshot(path=str(tmp_path / "datasets.png"))
    assert_not_blank(browser, shot)

    # Remember by paste: the document then appears in its (new) dataset, by its title.
    page.click("header.top >> text=Remember")
    page.fill("input[name=dataset]", "pasted")
    page.fill("textarea[name=text]", PASTED)
    page.click("form >> button[type=submit]")
    page.wait_for_selector("form .ok", timeout=120_000)
    assert_not_blank(browser, page.screenshot(path=str(tmp_path / "remember.png")))
    page.click("header.top >> text=Datasets")
    page.click("nav[aria-label=Datasets] >> text=pasted")
    page.wait_for_selector("tbody >> text=Carol keeps bees")
    assert page.locator("tbody tr").count() == 1 and "text_" not in page.inner_text("tbody")

    # The recall playground: a search type from the server's OpenAPI, verbose results; the
    # scope chooses the sources read (the graph's chunks, or only the session's entries).
    page.click("header.top >> text=Recall")
    page.wait_for_selector(
        "select[aria-label='Search type'] >> option[value=CHUNKS]", state="attached"
    )
    page.fill("input[name=query]", "Where does Alice live?")
    page.select_option("select[aria-label='Search type']", "CHUNKS")
    page.select_option("select[aria-label=Scope]", "graph")
    page.click("form >> button[type=submit]")
    page.wait_for_selector(".result")
    found = page.inner_text(".results")
    assert "Alice moved to Paris" in found and "Paris." not in found.split()
    assert "importance_weight" in found  # verbose: the score breakdown
    assert_not_blank(browser, page.screenshot(path=str(tmp_path / "recall.png")))
    page.select_option("select[aria-label=Scope]", "session")
    page.fill("input[name=session_id]", "chat-1")
    page.click("form >> button[type=submit]")
    page.wait_for_function(
        "!document.querySelector('.results').innerText.includes('Alice moved to Paris')"
    )
    assert page.locator(".result").count() == 1
    assert page.inner_text(".result .row strong") == "session"  # its source
    assert page.inner_text(".result .text") == "Q: Where does Alice live?\nA: Paris."

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

    # Improve: run it on the dataset; the runs table then lists that run with its stages.
    page.click("header.top >> text=Improve")
    page.select_option("select[aria-label=Dataset]", "ui_demo")
    page.select_option("select[aria-label='Runs of dataset']", "ui_demo")
    page.wait_for_selector("text=No improve runs yet.")
    page.click("text=Run improve")
    page.wait_for_selector("table.runs tbody tr", timeout=120_000)
    with live_server.client(alice) as client:
        (run,) = client.get("/api/v1/improve/runs", params={"dataset": "ui_demo"}).json()
    row = page.locator(f"table.runs tr[data-run='{run['run_id']}']")
    assert page.locator("table.runs tbody tr").count() == 1
    assert row.locator("td").nth(1).inner_text() == "ui_demo"
    assert row.locator("td").nth(2).inner_text() == run["status"]
    stages = row.locator("ul.stages li")
    assert stages.count() == len(run["stages"]) >= 2
    for i, stage in enumerate(run["stages"]):
        text = stages.nth(i).inner_text()
        assert text.startswith(f"{stage['stage']} {stage['status']}"), text
        assert all(f"{k} {v}" in text for k, v in stage["counts"].items()), text
    assert_not_blank(browser, page.screenshot(path=str(tmp_path / "improve.png")))

    # Forget one document: a confirmation dialog first, then it is gone.
    page.click("header.top >> text=Datasets")
    page.wait_for_selector("tbody tr")
    page.locator("tbody tr").first.locator("text=Forget…").click()
    dialog = page.locator("dialog.confirm")
    dialog.wait_for()
    assert f"Forget the document {titles[0]}?" in dialog.inner_text()
    assert "cannot be undone" in dialog.inner_text()
    assert_not_blank(browser, page.screenshot(path=str(tmp_path / "forget.png")))
    dialog.locator("button.danger").click()
    page.wait_for_selector("text=/Forgot \\d+ nodes/")
    page.wait_for_function("document.querySelectorAll('tbody tr').length === 1")
    assert errors == []
    page.close()
    with live_server.client(alice) as client:
        data = client.get(f"/api/v1/datasets/{demo['id']}/data").json()
        assert [d["title"] for d in data] == titles[1:]
        # improve() built the global index's "context of" buckets: hidden unless asked for.
        view = client.get("/api/v1/graph/view").json()
        assert not any(n["properties"].get("internal") for n in view["nodes"])
        assert any("internal node" in notice for notice in view["notices"])
        shown = client.get("/api/v1/graph/view", params={"include_internal": "true"}).json()
        buckets = [n for n in shown["nodes"] if n["properties"].get("internal")]
        assert buckets and all("text_" not in n["label"] for n in buckets)


def test_conflicts_are_listed_and_resolved_and_the_review_shows_in_the_runs(
    live_server: LiveServer,
    alice: Account,
    browser: Any,
    openai_server: OpenAIServer,
    tmp_path: Path,
) -> None:
    # Two dated facts about one attribute; improve's review (the local LLM server) calls them
    # conflicting without naming a current one.
    with live_server.client(alice) as client:
        for text, date in ((PARIS, "2020-01-01"), (BERLIN, "2023-05-01")):
            body = {"data": text, "external_metadata": {"effective_date": date}}
            r = client.post("/api/v1/remember", json={**body, "self_improvement": False})
            assert r.status_code == 200, r.text
        for key, value in (("llm_endpoint", openai_server.base_url), ("llm_api_key", "k")):
            config.set(key, value)
        config.set("llm_max_retries", 0)
        verdict = {"group": 1, "conflicting": True, "current_fact": None, "explanation": WHY}
        reply = openai_server.chat_document(json.dumps({"verdicts": [verdict]}))
        openai_server.enqueue("chat/completions", Reply.json(reply))
        body = {"dataset": "main_dataset", "build_global_context_index": False}
        r = client.post("/api/v1/improve", json=body, timeout=120)
        assert r.status_code == 200, r.text
        (conflict,) = client.get("/api/v1/conflicts", params={"status": "open"}).json()
    chosen_fact = conflict["facts"][-1]  # not the first: a click must pick the fact it is on
    page, errors = _signed_in(browser, live_server, alice)

    # The runs table shows the review stage with what it found.
    page.click("header.top >> text=Improve")
    page.wait_for_selector("table.runs tbody tr")
    review = page.locator("table.runs ul.stages li", has_text="review_conflicts")
    assert review.inner_text().startswith("review_conflicts completed")
    assert "conflicts 1" in review.inner_text()

    # The open conflict with its facts; choosing one resolves it.
    page.click("header.top >> text=Conflicts")
    card = page.locator("main section.card", has_text="Alice Smith · live_in")
    card.wait_for()
    assert WHY in card.inner_text()
    assert "effective 2020-01-01" in card.inner_text() and "conflicting" in card.inner_text()
    assert_not_blank(browser, page.screenshot(path=str(tmp_path / "conflicts.png")))
    card.locator("li", has_text=chosen_fact["text"]).locator("button").click()
    page.wait_for_selector("text=No conflicts.")
    page.select_option("select[aria-label=Status]", "resolved")
    chosen = page.locator("main section.card li", has_text=chosen_fact["text"])
    chosen.locator("text=chosen").wait_for()
    assert "current" in chosen.inner_text()
    assert errors == []
    page.close()
    with live_server.client(alice) as client:
        (resolved,) = client.get("/api/v1/conflicts", params={"status": "resolved"}).json()
        assert resolved["resolved_fact_id"] == chosen_fact["edge_id"]


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
