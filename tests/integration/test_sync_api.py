"""The blocking API (issue 15, item 5): ``engramdb.sync`` and ``Engine.sync()``.

"A sync API: engramdb.sync (or Engine.sync()) with every verb, usable from plain scripts and
threads, including inside a running event loop's worker threads; same request models as the
async API (no second declaration)."
"""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import engramdb
from engramdb import sync
from engramdb.sync import NAMESPACES, SyncInLoopError
from engramdb.verbs import VERBS


def _async_twin(name: str) -> object:
    namespace = VERBS[name].namespace
    if namespace == "engramdb":
        return getattr(engramdb, name)
    module = __import__(namespace, fromlist=[name])
    return getattr(module, name)


def _sync_twin(owner: object, name: str) -> object:
    namespace = VERBS[name].namespace
    if namespace != "engramdb":
        owner = getattr(owner, NAMESPACES[namespace])
    return getattr(owner, name)


@pytest.mark.parametrize("name", sorted(VERBS))
def test_every_verb_has_a_sync_twin_with_the_same_signature(name: str, tmp_path: Path) -> None:
    """Every verb of the table is reachable as ``engramdb.sync.<ns>.<name>`` and as a method of
    ``Engine.sync()``, with exactly the async verb's signature."""
    expected = inspect.signature(_async_twin(name))  # type: ignore[arg-type]
    assert inspect.signature(_sync_twin(sync, name)) == expected  # type: ignore[arg-type]
    with engramdb.Engine(data_dir=tmp_path).sync() as mem:
        assert inspect.signature(_sync_twin(mem, name)) == expected  # type: ignore[arg-type]
        assert not inspect.iscoroutinefunction(_sync_twin(mem, name))


def test_an_engine_sync_remembers_and_recalls_from_a_plain_function(tmp_path: Path) -> None:
    with engramdb.Engine(data_dir=tmp_path).sync() as mem:
        mem.remember("Owls hunt at night.", dataset_name="birds", self_improvement=False)
        found = mem.recall("Who hunts at night?", engramdb.SearchType.CHUNKS, datasets=["birds"])
        assert [r.text for r in found] == ["Owls hunt at night."]
        assert [d.name for d in mem.list_datasets()] == ["birds"]
        assert mem.session.list_sessions() == []
        engine = mem.engine
    assert engine.closed, "leaving the with block closes the engine"


def test_bad_options_raise_the_same_validation_error(tmp_path: Path) -> None:
    with engramdb.Engine(data_dir=tmp_path).sync() as mem:
        with pytest.raises(engramdb.EngramValidationError, match="top_k"):
            mem.recall("anything", top_k=0)
        with pytest.raises(TypeError):
            mem.recall("anything", no_such_option=1)


def test_several_threads_call_one_sync_engine_at_once(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    with engramdb.Engine(data_dir=tmp_path).sync() as mem:

        def work(i: int) -> None:
            try:
                mem.remember(f"Bird number {i} sings at dawn.", self_improvement=False)
                assert mem.recall(f"Bird number {i}", engramdb.SearchType.CHUNKS)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        (dataset,) = mem.list_datasets()
        assert len(mem.datasets.list_data(dataset.id)) == 4


def test_module_functions_work_in_a_worker_thread_while_a_loop_runs() -> None:
    """A worker thread (``asyncio.to_thread``) of a running loop calls the blocking verbs."""

    def worker() -> list[str]:
        sync.remember("Herons wade in shallow water.", self_improvement=False)
        return [r.text for r in sync.recall("Who wades?", engramdb.SearchType.CHUNKS)]

    async def main() -> list[str]:
        return await asyncio.to_thread(worker)

    try:
        assert asyncio.run(main()) == ["Herons wade in shallow water."]
    finally:
        sync.close()


def test_calling_a_sync_verb_inside_a_running_loop_says_to_await(tmp_path: Path) -> None:
    async def main() -> None:
        with pytest.raises(SyncInLoopError, match=r"await engramdb\.recall"):
            sync.recall("anything")
        with pytest.raises(SyncInLoopError, match=r"await engramdb\.session\.get_session"):
            sync.session.get_session("chat-1")
        mem = engramdb.Engine(data_dir=tmp_path).sync()
        with pytest.raises(SyncInLoopError, match="await"):
            mem.list_datasets()
        mem.close()

    asyncio.run(main())


def test_a_plain_script_exits_cleanly_without_closing(tmp_path: Path) -> None:
    """The loop thread and the default engine are closed at interpreter exit."""
    script = tmp_path / "script.py"
    script.write_text(
        "import engramdb\n"
        "engramdb.sync.remember('Owls hunt at night.', self_improvement=False)\n"
        "print(engramdb.sync.recall('owls', engramdb.SearchType.CHUNKS)[0].text)\n"
        "mem = engramdb.Engine(data_dir=r'%s').sync()\n"
        "mem.remember('Herons wade.', self_improvement=False)\n" % (tmp_path / "second")
    )
    import os

    env = {k: v for k, v in os.environ.items()}
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Owls hunt at night."
    assert "Traceback" not in done.stderr and "never awaited" not in done.stderr


def test_archives_export_and_import_without_a_loop(tmp_path: Path) -> None:
    with engramdb.Engine(data_dir=tmp_path / "a").sync() as mem:
        mem.remember("Owls hunt at night.", self_improvement=False)
        assert mem.export_archive(tmp_path / "owls.zip").records["data.jsonl"] == 1
    with engramdb.Engine(data_dir=tmp_path / "b").sync() as mem:
        assert mem.import_archive(tmp_path / "owls.zip").documents_written == 1
        assert [r.text for r in mem.recall("owls", engramdb.SearchType.CHUNKS)] == [
            "Owls hunt at night."
        ]
    try:
        assert sync.import_archive(tmp_path / "owls.zip").documents_written == 1
        assert sync.export_archive(tmp_path / "again.zip").records["data.jsonl"] == 1
    finally:
        sync.close()


def test_a_function_imported_before_close_keeps_working() -> None:
    from engramdb.sync import list_datasets

    sync.close()
    try:
        assert list_datasets() == []
    finally:
        sync.close()


def test_an_unused_sync_engine_closes_its_engine(tmp_path: Path) -> None:
    mem = engramdb.Engine(data_dir=tmp_path).sync()
    mem.close()
    assert mem.engine.closed
    with pytest.raises(engramdb.ConfigurationError, match="closed"):
        mem.list_datasets()
