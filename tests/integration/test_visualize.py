"""visualize_graph(): the seed's scenario end to end, checked in a real headless Chromium.

The browser test drives Debian's ``chromium`` with plain command-line switches (no DevTools
client, nothing installed at run time): ``--dump-dom`` on ``page.html#engram-selftest`` returns the
DOM after the page's own JavaScript wrote a JSON report (JS errors, node count, the tooltip text
of every node through the same function the hover uses, a simulated hover) into
``<pre id="engram-selftest">``; ``--screenshot`` proves the canvas paints.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import engramdb
from engramdb import visualize_graph
from engramdb.cli import app
from engramdb.errors import DatasetNotFoundError, EngramValidationError
from engramdb.viz.html import EMPTY_MESSAGE

TEXTS = {
    0.5: "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin, "
    "while Tom never moved.",
    0.7: "Alice moved to Paris in 2010, while Bob has always lived in New York.",
    0.3: "Andreas was born in Venice, but later settled in Lisbon.",
}

_DATA_BLOCK = re.compile(
    r'<script type="application/json" id="engram-data">(.*?)</script>', re.DOTALL
)
_SELFTEST = re.compile(r'<pre id="engram-selftest"[^>]*>(.*?)</pre>', re.DOTALL)
BROWSER_TIMEOUT = 90  # seconds per Chromium run


async def _remember_seed() -> None:
    """The seed's three remember() calls (default weight, boosted, dampened)."""
    await engramdb.remember(TEXTS[0.5], dataset_name="importance_demo", self_improvement=False)
    await engramdb.remember(
        TEXTS[0.7], dataset_name="importance_demo", importance_weight=0.7, self_improvement=False
    )
    await engramdb.remember(
        TEXTS[0.3], dataset_name="importance_demo", importance_weight=0.3, self_improvement=False
    )


def _data(page: str) -> dict[str, Any]:
    blocks = _DATA_BLOCK.findall(page)
    assert len(blocks) == 1
    data: dict[str, Any] = json.loads(blocks[0])
    return data


def _weights_by_text(data: dict[str, Any]) -> dict[float, list[dict[str, Any]]]:
    """The chunk of each seed text with its document, keyed by the weight it was stored with."""
    by_id = {row["id"]: row for row in data["nodes"]}
    found: dict[float, list[dict[str, Any]]] = {}
    for weight, text in TEXTS.items():
        chunk = next(r for r in data["nodes"] if r["type"] == "Chunk" and r["text"] == text)
        document = by_id[chunk["properties"]["data_id"]]
        found[weight] = [chunk, document]
    return found


# --- the verb (no browser) ----------------------------------------------------------------


async def test_draws_every_dataset_when_none_is_named(tmp_path: Path) -> None:
    await _remember_seed()
    await engramdb.remember("Carol keeps bees in Oslo.", dataset_name="other")
    target = tmp_path / ".artifacts" / "nested" / "g.html"  # parents are created

    written = await visualize_graph(target)

    assert written == str(target.absolute())
    page = target.read_text(encoding="utf-8")
    data = _data(page)
    assert {row["dataset"] for row in data["nodes"]} == {"importance_demo", "other"}
    for weight, rows in _weights_by_text(data).items():
        for row in rows:
            assert row["importance_weight"] == weight
    # Each chunk is drawn with its is_part_of edge to its document (entity extraction may add
    # more nodes and edges; this test does not depend on them).
    part_of = {(e["source"], e["target"]) for e in data["edges"] if e["relation"] == "is_part_of"}
    for chunk, document in _weights_by_text(data).values():
        assert (chunk["id"], document["id"]) in part_of
    assert "importance_demo" in page and "other" in page


async def test_named_datasets_are_resolved_strictly(tmp_path: Path) -> None:
    await _remember_seed()
    await engramdb.remember("Carol keeps bees in Oslo.", dataset_name="other")

    await visualize_graph(tmp_path / "one.html", datasets=["other"])
    data = _data((tmp_path / "one.html").read_text(encoding="utf-8"))
    assert {row["dataset"] for row in data["nodes"]} == {"other"}

    with pytest.raises(DatasetNotFoundError) as caught:
        await visualize_graph(tmp_path / "missing.html", datasets=["other", "nope"])
    assert caught.value.missing == ["nope"]
    assert not (tmp_path / "missing.html").exists()


async def test_before_anything_was_ingested_the_page_says_the_memory_is_empty(
    tmp_path: Path,
) -> None:
    written = await visualize_graph(tmp_path / "empty.html")
    page = Path(written).read_text(encoding="utf-8")
    assert EMPTY_MESSAGE in page
    assert _data(page)["nodes"] == []
    with pytest.raises(DatasetNotFoundError):
        await visualize_graph(tmp_path / "named.html", datasets=["importance_demo"])


async def test_default_path_is_graph_html_in_the_current_directory() -> None:
    await _remember_seed()
    written = Path(await visualize_graph())
    assert written == Path.cwd() / "graph.html"
    assert written.is_absolute() and written.is_file()
    # A directory gets graph.html inside it; a second run replaces the file.
    assert Path(await visualize_graph(Path.cwd())) == written


async def test_large_graphs_are_bounded_and_the_page_says_so(tmp_path: Path) -> None:
    await _remember_seed()
    full = _data(Path(await visualize_graph(tmp_path / "full.html")).read_text(encoding="utf-8"))
    total = len(full["nodes"])
    assert total >= 6 and len(full["edges"]) >= 3

    written = await visualize_graph(tmp_path / "g.html", max_nodes=4, max_edges=1)
    page = Path(written).read_text(encoding="utf-8")
    data = _data(page)
    assert len(data["nodes"]) == 4 and len(data["edges"]) <= 1
    assert f"Showing the 4 most important of {total} nodes" in page
    assert "Edges cut at the 1 heaviest (max_edges=1)" in page
    # The kept edge joins two kept nodes: a cut leaves no edge to a node that is not drawn.
    kept = {row["id"] for row in data["nodes"]}
    assert all(e["source"] in kept and e["target"] in kept for e in data["edges"])


@pytest.mark.parametrize(
    "kwargs",
    [{"max_nodes": 0}, {"max_edges": -1}, {"max_nodes": True}, {"datasets": "importance_demo"}],
)
async def test_bad_arguments_are_refused(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    await _remember_seed()
    with pytest.raises(EngramValidationError):
        await visualize_graph(tmp_path / "g.html", **kwargs)


async def test_bad_path_is_refused() -> None:
    with pytest.raises(EngramValidationError):
        await visualize_graph("")
    with pytest.raises(EngramValidationError):
        await visualize_graph(42)  # type: ignore[arg-type]


def test_cli_visualize_prints_the_path_written(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["remember", TEXTS[0.7], "-d", "importance_demo", "-w", "0.7"])
    assert out.exit_code == 0, out.output
    target = tmp_path / "out" / "g.html"
    out = runner.invoke(app, ["visualize", "--output", str(target), "-d", "importance_demo"])
    assert out.exit_code == 0, out.output
    assert out.output.strip() == str(target.absolute())
    assert _data(target.read_text(encoding="utf-8"))["nodes"]
    out = runner.invoke(app, ["visualize", "--output", str(target), "-d", "nope"])
    assert out.exit_code == 2 and "nope" in out.output


# --- the page in a real browser -------------------------------------------------------------


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine: apt-get install chromium")


def _run_chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One headless run, offline and bounded in time."""
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=5000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=BROWSER_TIMEOUT,
        check=False,
    )


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


@pytest.mark.slow
async def test_seed_graph_renders_in_headless_chromium(tmp_path: Path) -> None:
    browser = _chromium()
    await _remember_seed()
    written = Path(await visualize_graph(tmp_path / ".artifacts" / "g.html"))
    data = _data(written.read_text(encoding="utf-8"))
    url = written.as_uri() + "#engram-selftest"

    dom = _run_chromium(browser, tmp_path / "profile-dom", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    match = _SELFTEST.search(dom.stdout)
    assert match and match.group(1).strip(), (
        "the page wrote no self-test report (its script did not run to the end)\n"
        + dom.stderr[-2000:]
    )
    report = json.loads(html.unescape(match.group(1)))

    assert report["errors"] == []
    assert report["ready"] is True
    assert report["nodeCount"] == len(data["nodes"]) >= 6  # 3 documents, 3 chunks (+ entities)
    assert report["edgeCount"] == len(data["edges"]) >= 3
    assert report["iterations"] > 0
    assert report["painted"] > 100  # the canvas is not blank
    tooltips: dict[str, str] = report["tooltips"]
    assert set(tooltips) == {row["id"] for row in data["nodes"]}
    for weight, rows in _weights_by_text(data).items():
        for row in rows:  # the chunk and its document
            tip = tooltips[row["id"]]
            assert f"importance_weight: {weight}" in tip, tip
            for field in ("id:", "type:", "name:", "dataset: importance_demo", "feedback_weight:"):
                assert field in tip
            assert "data_ids: " + ", ".join(row["data_ids"]) in tip
            for key in row["properties"]:
                assert f"properties.{key}:" in tip
    alice = _weights_by_text(data)[0.7][0]
    assert "text: Alice moved to Paris" in tooltips[alice["id"]]
    # Zoom, pan, node drag and the legend toggle ran through their event handlers.
    assert report["interactions"] == {
        "zoomed": True,
        "panned": True,
        "dragged": True,
        "hidType": True,
        "showedTypeAgain": True,
    }
    # A pointer event over a node opened the tooltip with that node's fields.
    hover = report["hover"]
    assert hover["visible"] is True
    assert "importance_weight" in hover["text"] and hover["id"] in hover["text"]
    assert set(report["edgeTooltips"]) == {row["id"] for row in data["edges"]}
    for edge in data["edges"]:
        assert f"relation: {edge['relation']}" in report["edgeTooltips"][edge["id"]]

    shot = tmp_path / "g.png"
    run = _run_chromium(
        browser,
        tmp_path / "profile-shot",
        f"--screenshot={shot}",
        "--window-size=1200,800",
        "--hide-scrollbars",
        url,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    png = shot.read_bytes()
    assert _png_size(png) == (1200, 800)
    assert len(png) > 20_000  # a drawn graph with labels, legend and tooltip, not a blank page


@pytest.mark.slow
def test_hostile_text_is_inert_in_a_real_browser(tmp_path: Path) -> None:
    """Stored text that looks like markup stays data: the script runs, tooltips show it verbatim."""
    from uuid import uuid4

    from engramdb.models.records import Edge, Node
    from engramdb.viz import render_graph_html

    browser = _chromium()
    hostile = "</script><script>window.__pwned = 1</script><!-- <b>x</b> & \u2028"
    dataset = uuid4()
    a = Node(id=uuid4(), dataset_id=dataset, type="Chunk", name=hostile, text=hostile)
    b = Node(
        id=uuid4(), dataset_id=dataset, type="</style><b>", name="<!--", properties={hostile: 1}
    )
    edge = Edge(id=uuid4(), dataset_id=dataset, source_id=a.id, target_id=b.id, relation=hostile)
    page = tmp_path / "hostile.html"
    page.write_text(
        render_graph_html([a, b], [edge], title=hostile, dataset_names={dataset: hostile}),
        encoding="utf-8",
    )

    dom = _run_chromium(
        browser, tmp_path / "profile", "--dump-dom", page.as_uri() + "#engram-selftest"
    )
    match = _SELFTEST.search(dom.stdout)
    assert match, dom.stderr[-2000:]
    report = json.loads(html.unescape(match.group(1)))
    assert report["errors"] == [] and report["ready"] is True
    assert report["nodeCount"] == 2 and report["edgeCount"] == 1
    assert f"name: {hostile}" in report["tooltips"][str(a.id)]
    assert f"properties.{hostile}: 1" in report["tooltips"][str(b.id)]
    assert f"relation: {hostile}" in report["edgeTooltips"][str(edge.id)]
    # The DOM holds the page's own two script elements and nothing injected.
    assert dom.stdout.lower().count("<script") == 2
