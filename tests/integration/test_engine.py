"""The public Engine: explicit memories side by side, released on close, and the default
engine replaced (and closed) when the configuration changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.settings import config


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_two_engines_on_two_data_directories_work_side_by_side(tmp_path: Path) -> None:
    async with (
        engramdb.Engine(data_dir=tmp_path / "a") as first,
        engramdb.Engine(data_dir=tmp_path / "b") as second,
    ):
        await first.remember("Owls hunt at night.", self_improvement=False)
        await second.remember("Herons wade in shallow water.", self_improvement=False)
        owls = await first.recall("Who hunts at night?", engramdb.SearchType.CHUNKS)
        herons = await second.recall("Who hunts at night?", engramdb.SearchType.CHUNKS)
        assert [r.text for r in owls] == ["Owls hunt at night."]
        assert [r.text for r in herons] == ["Herons wade in shallow water."]
    assert (tmp_path / "a" / "engramdb.sqlite3").is_file()
    assert (tmp_path / "b" / "engramdb.sqlite3").is_file()


async def test_a_closed_engine_refuses_work_and_releases_its_files(tmp_path: Path) -> None:
    before = _open_fds()
    mem = engramdb.Engine(data_dir=tmp_path)
    await mem.remember("Owls hunt at night.", self_improvement=False)
    assert _open_fds() > before
    await mem.close()
    assert _open_fds() <= before
    with pytest.raises(engramdb.ConfigurationError, match="closed"):
        await mem.recall("owls")


async def test_close_waits_for_background_runs(tmp_path: Path) -> None:
    mem = engramdb.Engine(data_dir=tmp_path)
    started = await mem.remember(
        "Herons wade in shallow water.", run_in_background=True, self_improvement=False
    )
    assert started.status == "running"
    await mem.close()
    assert started._task is not None and started._task.done()
    async with engramdb.Engine(data_dir=tmp_path) as again:
        found = await again.recall("herons", engramdb.SearchType.CHUNKS)
    assert [r.text for r in found] == ["Herons wade in shallow water."]


async def test_config_set_closes_the_engine_it_replaces(tmp_path: Path) -> None:
    await engramdb.remember("Owls hunt at night.", self_improvement=False)
    baseline = None
    for cycle in range(200):
        config.set("recall_warmup_shortcircuit", cycle % 2 == 0)
        await engramdb.recall("owls", engramdb.SearchType.CHUNKS)
        if cycle == 10:
            baseline = _open_fds()
    assert baseline is not None
    assert _open_fds() <= baseline + 2, "descriptors grow with config.set + recall cycles"


async def test_the_engine_methods_validate_like_the_module_verbs(tmp_path: Path) -> None:
    async with engramdb.Engine(data_dir=tmp_path) as mem:
        with pytest.raises(TypeError, match="bogus"):
            await mem.recall("q", bogus=1)
        with pytest.raises(engramdb.EngramValidationError, match="top_k"):
            await mem.recall("q", top_k="5")
    assert get_engine() is not mem
