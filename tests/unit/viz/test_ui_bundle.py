"""The committed front-end build matches the ui/ sources it was built from.

The web UI (src/engramdb/server/ui_dist/) and the graph renderer
(src/engramdb/viz/assets/graph-renderer.js) are built by scripts/build-ui.sh and committed, so a
pip install needs no npm. The script records the sha256 of the ui/ sources in
ui_dist/SOURCE_HASH; this test recomputes it, so a source change that was not rebuilt fails here
(run scripts/build-ui.sh). A byte-for-byte rebuild is not compared: it needs npm and the
registry, which a test run must not.
"""

from __future__ import annotations

import importlib.util
import re
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _source_hash() -> str:
    spec = importlib.util.spec_from_file_location(
        "ui_source_hash", ROOT / "scripts/ui_source_hash.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    digest: str = module.source_hash()
    return digest


def test_committed_bundle_was_built_from_the_current_sources() -> None:
    recorded = (ROOT / "src/engramdb/server/ui_dist/SOURCE_HASH").read_text().strip()
    assert recorded == _source_hash(), "ui/ changed since the last build: run scripts/build-ui.sh"


def test_bundle_is_in_the_package_and_complete() -> None:
    dist = resources.files("engramdb.server").joinpath("ui_dist")
    index = dist.joinpath("index.html").read_text(encoding="utf-8")
    for asset in re.findall(r'(?:src|href)="\./(assets/[^"]+)"', index):
        assert dist.joinpath(asset).is_file(), asset
    renderer = resources.files("engramdb.viz").joinpath("assets", "graph-renderer.js")
    assert "__engramGraph" in renderer.read_text(encoding="utf-8")
