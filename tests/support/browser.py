"""Playwright on Debian's Chromium (``/usr/bin/chromium``; ``playwright install`` is never run)
and a check that a screenshot shows something (its pixels vary), measured in the browser."""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """A headless Chromium (skips the test when Playwright or Chromium is missing)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    path = CHROMIUM if shutil.which(CHROMIUM) else shutil.which("chromium")
    if not path:
        pytest.skip("no Chromium on this machine: apt-get install chromium")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=path,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking"],
        )
        try:
            yield browser
        finally:
            browser.close()


_STATS = """async (src) => {
  const img = new Image();
  img.src = src;
  await img.decode();
  const c = document.createElement("canvas");
  c.width = img.width; c.height = img.height;
  const ctx = c.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, c.width, c.height).data;
  let n = 0, sum = 0, sq = 0;
  const colours = new Set();
  for (let p = 0; p < d.length; p += 4 * 7) {
    const y = 0.299 * d[p] + 0.587 * d[p + 1] + 0.114 * d[p + 2];
    n += 1; sum += y; sq += y * y;
    if (colours.size < 5000) colours.add((d[p] << 16) | (d[p + 1] << 8) | d[p + 2]);
  }
  const mean = sum / n;
  const stddev = Math.sqrt(sq / n - mean * mean);
  return { width: c.width, height: c.height, stddev, colours: colours.size };
}"""


def image_stats(browser: Any, png: bytes) -> dict[str, float]:
    """Width, height, luminance standard deviation and distinct colours of a PNG."""
    page = browser.new_page()
    try:
        src = "data:image/png;base64," + base64.b64encode(png).decode()
        stats: dict[str, float] = page.evaluate(_STATS, src)
        return stats
    finally:
        page.close()


def assert_not_blank(browser: Any, png: bytes) -> dict[str, float]:
    """The screenshot is not one flat colour: it shows drawn content."""
    stats = image_stats(browser, png)
    assert stats["stddev"] > 8 and stats["colours"] > 20, stats
    return stats
