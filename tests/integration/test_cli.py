"""The engramdb command: help on every command, and the verbs end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from engramdb.cli import app

runner = CliRunner()


def _commands() -> list[str]:
    group = get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def test_every_command_is_listed_in_top_level_help() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in ("remember", "recall", "forget", "datasets", "demo"):
        assert name in result.output
    assert set(_commands()) >= {"remember", "recall", "forget", "datasets", "demo"}


def _tree() -> dict[tuple[str, ...], Any]:
    """Every command and sub-command (groups included) by its path, e.g. ``("users", "keys")``."""
    found: dict[tuple[str, ...], Any] = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:
        found[path] = command
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            walk(sub, (*path, name))

    walk(get_command(app), ())
    return found


TREE = _tree()


def test_the_tree_has_the_nested_commands() -> None:
    assert {("remember",), ("session", "show"), ("users", "keys", "revoke")} <= set(TREE)


@pytest.mark.parametrize("path", sorted(TREE), ids=lambda p: " ".join(p) or "engramdb")
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    """Each command (and sub-command) describes itself in its own words: a docstring whose first
    line is a sentence of several words, not typer's empty default nor another command's text,
    shown by ``--help``; and every option and argument says what it is for."""
    command = TREE[path]
    summary = (command.help or "").strip().splitlines()[0] if (command.help or "").strip() else ""
    assert len(summary.split()) >= 3, f"{' '.join(path)!r} has no description of its own"
    others = {
        (c.help or "").strip().splitlines()[0]
        for p, c in TREE.items()
        if p != path and (c.help or "").strip()
    }
    assert summary not in others, f"{' '.join(path)!r} repeats another command's help"
    for param in command.params:
        if param.param_type_name in ("option", "argument") and param.name != "help":
            assert (getattr(param, "help", None) or "").strip(), f"{path}: {param.name} has no help"

    result = runner.invoke(app, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    assert " ".join(summary.split()[:3]) in " ".join(result.output.split())
    if path:
        listing = runner.invoke(app, [*path[:-1], "--help"], terminal_width=200).output
        assert path[-1] in listing


def test_remember_recall_forget_json(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("The red lighthouse stands on the northern cape.")
    out = runner.invoke(app, ["remember", str(notes), "--dataset", "coast", "--json"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.output)
    assert payload["status"] == "completed" and payload["counts"]["documents"] == 1

    out = runner.invoke(
        app, ["recall", "lighthouse", "--type", "CHUNKS_LEXICAL", "-d", "coast", "--json"]
    )
    assert out.exit_code == 0, out.output
    hits = json.loads(out.output)
    assert hits[0]["text"].startswith("The red lighthouse")
    assert hits[0]["metadata"]["document_name"] == "notes.md"

    out = runner.invoke(app, ["datasets", "--json"])
    assert [d["name"] for d in json.loads(out.output)] == ["coast"]

    out = runner.invoke(app, ["forget", "--dataset", "coast", "--yes", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["datasets"] == 1
    out = runner.invoke(app, ["datasets", "--json"])
    assert json.loads(out.output) == []


def test_bad_input_exits_with_a_message_and_code_2() -> None:
    out = runner.invoke(app, ["remember", "some text", "--weight", "1.5"])
    assert out.exit_code == 2
    assert "importance_weight" in out.output
    out = runner.invoke(app, ["recall", "anything"])
    assert out.exit_code == 2
    assert "Run 'engramdb remember' first" in out.output and "remember()" not in out.output


def test_recall_text_output_names_the_document() -> None:
    runner.invoke(app, ["remember", "Owls hunt at night in the forest."])
    out = runner.invoke(app, ["recall", "owls night", "-k", "1"])
    assert out.exit_code == 0, out.output
    assert "[1] distance=" in out.output and "Owls hunt at night" in out.output


def test_installed_entry_point_runs(isolated_config: Path) -> None:
    """The console script installed by pip works (a real subprocess)."""
    exe = Path(sys.executable).with_name("engramdb")
    assert exe.exists(), "the engramdb console script is not installed in this environment"
    env = {**os.environ, "ENGRAMDB_DATA_DIR": str(isolated_config)}
    done = subprocess.run(
        [str(exe), "remember", "Herons wade in shallow water.", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["counts"]["documents"] == 1


@pytest.mark.slow
def test_demo_runs_offline_with_the_default_embedder(isolated_config: Path) -> None:
    """The README's first command: the real ONNX model, no network, no API key."""
    exe = Path(sys.executable).with_name("engramdb")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "LLM_"))}
    env["ENGRAMDB_DATA_DIR"] = str(isolated_config)
    done = subprocess.run(
        [str(exe), "demo"], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    answer = done.stdout.split("Q: In which cities did Andreas live?")[1].splitlines()[1]
    assert "Andreas was born in Venice" in answer
    answer = done.stdout.split("Q: Where does Diana live now?")[1].splitlines()[1]
    assert "Diana currently resides in Berlin" in answer


def test_improve_prints_every_stage_and_is_incremental(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("Ada Lovelace wrote the first program. Charles Babbage designed the engine.")
    out = runner.invoke(
        app, ["remember", str(notes), "--dataset", "history", "--no-improve", "--json"]
    )
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["improve", "history", "--json"])
    assert out.exit_code == 0, out.output
    first = json.loads(out.output)
    stages = {s["stage"]: s for s in first["stages"]}
    assert len(first["stages"]) == 9 and first["stages"][-1]["stage"] == "global_context_index"
    assert stages["global_context_index"]["status"] == "completed"
    assert stages["feedback_weights"]["status"] == "skipped"  # no sessions given
    again = runner.invoke(app, ["improve", "history"])
    assert again.exit_code == 0, again.output
    assert "global_context_index" in again.output and "already_completed" in again.output
