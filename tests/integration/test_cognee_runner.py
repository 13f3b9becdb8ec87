"""``engramdb run-cognee`` and ``python -m engramdb.compat.cognee`` run an unmodified cognee
program (tests/data/cognee/tutorial.py) on engramdb, in a subprocess, offline."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[1] / "data" / "cognee" / "tutorial.py"


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "LLM_"))}
    env.update(
        ENGRAMDB_DATA_DIR=str(data_dir), EMBEDDING_PROVIDER="fake", EMBEDDING_DIMENSIONS="64"
    )
    return env


def _run(command: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, env=_env(data_dir), timeout=300, check=False
    )


@pytest.mark.parametrize("how", ["cli", "module"])
def test_the_tutorial_runs_unchanged_and_answers_from_its_data(
    how: str, isolated_config: Path
) -> None:
    exe = Path(sys.executable).with_name("engramdb")
    runner = (
        [str(exe), "run-cognee"]
        if how == "cli"
        else [sys.executable, "-m", "engramdb.compat.cognee"]
    )
    done = _run([*runner, str(TUTORIAL), "Who logs the passing ships?"], isolated_config)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("CHUNK:") and "lighthouse keeper of Tern Island" in lines[0]
    assert lines[1:] == ["BIRDS: Herons wade in shallow water to catch fish."]
    # run twice: prune at its start resets what the first run stored
    again = _run([*runner, str(TUTORIAL)], isolated_config)
    assert again.returncode == 0, again.stderr
    assert again.stdout == done.stdout


def test_the_script_sees_its_own_arguments_and_exit_code(tmp_path: Path) -> None:
    script = tmp_path / "argv.py"
    script.write_text(
        "import sys\nimport cognee, cognee.shared.logging_utils as lu\n"
        "print(sys.argv[1:], cognee.__name__, cognee.__spec__.name, lu.__spec__.name)\n"
        "sys.exit(3)\n"
    )
    done = _run(
        [sys.executable, "-m", "engramdb.compat.cognee", str(script), "--flag", "x"], tmp_path
    )
    assert done.returncode == 3, done.stderr
    # the alias is the real module, which keeps its own spec
    assert done.stdout.split() == [
        "['--flag',",
        "'x']",
        "engramdb.compat.cognee",
        "engramdb.compat.cognee",
        "engramdb.compat.cognee.shared.logging_utils",
    ]


def test_a_cognee_path_engramdb_does_not_mirror_fails_by_name(tmp_path: Path) -> None:
    script = tmp_path / "missing.py"
    script.write_text("import cognee.modules.retrieval.utils.brute_force_triplet_search\n")
    done = _run([sys.executable, "-m", "engramdb.compat.cognee", str(script)], tmp_path)
    assert done.returncode == 1
    missing = "engramdb does not provide cognee's module 'cognee.modules.retrieval.utils'"
    assert missing in done.stderr


def test_import_engramdb_installs_no_alias(tmp_path: Path) -> None:
    """Outside the runner ``import cognee`` is whatever is installed (here: nothing, or the real
    cognee), never engramdb's layer."""
    code = (
        "import engramdb, engramdb.compat.cognee\n"
        "try:\n    import cognee\nexcept ModuleNotFoundError:\n    print('absent')\n"
        "else:\n    print(cognee.__name__)\n"
    )
    done = _run([sys.executable, "-c", code], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("absent", "cognee")


def test_the_layer_configures_no_logging_until_setup_logging_is_called() -> None:
    code = (
        "import logging\n"
        "import engramdb.compat.cognee\n"
        "from engramdb.compat.cognee.shared import logging_utils as lu\n"
        "print(len(logging.getLogger().handlers))\n"
        "lu.setup_logging(lu.WARNING); lu.setup_logging(lu.ERROR)\n"
        "root = logging.getLogger()\n"
        "print(len(root.handlers), root.level == lu.ERROR)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "1", "True"]
    assert logging.getLogger("x") is __import__(
        "engramdb.compat.cognee.shared.logging_utils", fromlist=["get_logger"]
    ).get_logger("x")


def test_setup_logging_without_a_level_reads_log_level(tmp_path: Path) -> None:
    code = (
        "import logging\n"
        "from engramdb.compat.cognee.shared.logging_utils import setup_logging\n"
        "logger = setup_logging(name='prog')\n"
        "print(logging.getLevelName(logging.getLogger().level), logger.name)\n"
    )
    env = {**_env(tmp_path), "LOG_LEVEL": "debug"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["DEBUG", "prog"]


def test_a_data_management_program_runs_unchanged(isolated_config: Path) -> None:
    program = TUTORIAL.with_name("data_management.py")
    page = isolated_config / "graph.html"
    exe = Path(sys.executable).with_name("engramdb")
    done = _run([str(exe), "run-cognee", str(program), str(page)], isolated_config)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "STATUS: DATASET_PROCESSING_COMPLETED",
        "CHUNK: Owls sleep during the day.",
        f"PAGE: {page}",
    ]
    assert page.exists()


def test_each_asyncio_run_of_a_program_gets_a_working_memory(tmp_path: Path) -> None:
    """The runner closes the default engine when a program's main coroutine ends (so no pool
    task outlives the loop); a second asyncio.run in the same program opens it again."""
    script = tmp_path / "two_runs.py"
    script.write_text(
        "import asyncio\n"
        "import cognee\n"
        "async def store():\n"
        "    await cognee.remember('Owls hunt at night.', self_improvement=False)\n"
        "async def ask():\n"
        "    found = await cognee.recall('owls', query_type=cognee.SearchType.CHUNKS)\n"
        "    print(found[0].text)\n"
        "asyncio.run(store())\n"
        "asyncio.run(ask())\n"
    )
    done = _run([sys.executable, "-m", "engramdb.compat.cognee", str(script)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "Owls hunt at night."
