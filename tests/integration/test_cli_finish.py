"""What a CLI user sees (issue 16, "The CLI feels finished"): tables with headers, grants by
e-mail, confirmations for destructive commands, ``--version``, help without ``<bool>`` tags,
messages in CLI terms, exit codes, and ingest progress from the start."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

import engramdb
from engramdb.cli import app
from engramdb.engine import set_engine
from engramdb.facade import remember_with_progress
from tests.support.openai_server import OpenAIServer, Reply

runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args), terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_version() -> None:
    assert _ok("--version").strip() == f"engramdb {version('engramdb')}"


def test_help_shows_no_type_tag_on_flags() -> None:
    out = _ok("forget", "--help")
    assert "--everything" in out and "--yes" in out
    assert "<bool>" not in out
    assert "<str>" in out  # options that take a value still say so


def test_listings_are_tables_with_headers_and_grants_name_emails() -> None:
    _ok("remember", "Owls hunt at night.", "--dataset", "birds")
    lines = _ok("datasets").splitlines()
    assert lines[0].split() == ["dataset", "id", "created", "embedding", "model"]
    assert "\t" not in "".join(lines) and any(line.startswith("birds ") for line in lines)

    _ok("users", "create", "bob@example.com")
    users = _ok("users", "list").splitlines()
    assert users[0].split() == ["e-mail", "id", "roles"]
    dataset_id = json.loads(_ok("datasets", "--json"))[0]["id"]
    _ok("users", "grant", dataset_id, "bob@example.com", "read")
    grants = _ok("users", "grants", dataset_id).splitlines()
    assert grants[0].split() == ["grantee", "permission"]
    assert grants[-1].split() == ["bob@example.com", "read"]  # the e-mail, not a UUID

    _ok("recall", "owls", "--session", "chat-1", "--type", "CHUNKS")
    sessions = _ok("session", "list").splitlines()
    assert sessions[0].split()[:2] == ["session", "last"] and "chat-1" in sessions[-1]


def test_improve_runs_lists_past_runs_by_dataset_name_or_id() -> None:
    _ok("remember", "Owls hunt at night.", "--dataset", "birds", "--no-improve")
    assert "no improve runs yet" in _ok("improve-runs")
    _ok("improve", "birds", "--no-conflicts")
    dataset_id = json.loads(_ok("datasets", "--json"))[0]["id"]
    for ref in ("birds", dataset_id):
        (run,) = json.loads(_ok("improve-runs", ref, "--json"))
        assert run["dataset_id"] == dataset_id and run["status"] == "completed"
    table = _ok("improve-runs").splitlines()
    assert table[0].split()[:3] == ["started", "dataset", "status"]


def test_destructive_commands_refuse_without_yes_off_a_terminal(tmp_path: Path) -> None:
    """No TTY, no --yes: exit 1, the message says to pass --yes, and nothing is deleted."""
    _ok("remember", "Owls hunt at night.", "--dataset", "birds")
    _ok("recall", "owls", "--session", "chat-1", "--type", "CHUNKS")
    _ok("users", "create", "bob@example.com")
    key = json.loads(_ok("users", "keys", "create", "bob@example.com", "--json"))
    data_id = json.loads(_ok("remember", "Herons wade.", "-d", "birds", "--json"))["data_ids"][0]
    _ok("backup", str(tmp_path / "b.sqlite3"))
    set_engine(None)  # backup closes this process's engine (one command per process normally)

    for command in (
        ["forget", "--dataset", "birds"],
        ["forget", "--everything"],
        ["forget", "--data-id", data_id],
        ["session", "delete", "chat-1"],
        ["users", "keys", "revoke", key["id"]],
        ["restore", str(tmp_path / "b.sqlite3")],
    ):
        refused = runner.invoke(app, command)
        assert refused.exit_code == 1, (command, refused.output)
        assert "pass --yes" in refused.output, command

    assert [d["name"] for d in json.loads(_ok("datasets", "--json"))] == ["birds"]
    assert len(json.loads(_ok("recall", "herons", "-t", "CHUNKS_LEXICAL", "--json"))) == 1
    assert "chat-1" in _ok("session", "list")
    listed = json.loads(_ok("users", "keys", "list", "bob@example.com", "--json"))
    assert listed[0]["revoked_at"] is None

    assert json.loads(_ok("forget", "--data-id", data_id, "--yes", "--json"))["data_records"] == 1
    assert json.loads(_ok("forget", "--dataset", "birds", "--yes", "--json"))["datasets"] == 1


def test_messages_name_commands_and_flags_not_python_calls(
    openai_server: OpenAIServer,
) -> None:
    out = runner.invoke(app, ["forget"])
    assert out.exit_code == 2
    assert "'engramdb forget' needs exactly one of --everything, --dataset <name or id> or " in (
        " ".join(out.output.split())
    )
    out = runner.invoke(app, ["recall", "anything"])
    assert out.exit_code == 2
    assert "Run 'engramdb remember' first" in out.output and "remember()" not in out.output

    _ok("remember", "Owls hunt at night.", "--no-improve")
    out = runner.invoke(app, ["recall", "owls", "--type", "RAG_COMPLETION"])
    assert out.exit_code == 2
    text = " ".join(out.output.split())
    assert "pass --only-context to get the prompt, or use --type CHUNKS" in text
    assert "only_context=True" not in text and "SearchType" not in text
    # and the flag it names exists
    prompt = json.loads(
        _ok("recall", "owls", "--type", "RAG_COMPLETION", "--only-context", "--json")
    )
    assert prompt and "Owls hunt at night." in prompt[0]["text"]


def test_the_sdk_keeps_its_python_spelling() -> None:
    """One message per error: the SDK reads the same error in Python terms."""
    with pytest.raises(engramdb.RecallPreconditionError, match=r"Run remember\(\) first"):
        import asyncio

        asyncio.run(engramdb.recall("anything"))


def test_recall_exits_1_on_a_build_failed_marker(openai_server: OpenAIServer) -> None:
    """recall.md: a failed first build answers a build_failed marker; the CLI exits non-zero."""
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    openai_server.set_default("chat/completions", lambda r: Reply.error(402, "no credit left"))
    failed = runner.invoke(app, ["remember", "Grace Hopper served in the Navy.", "-d", "navy"])
    assert failed.exit_code == 2
    out = runner.invoke(app, ["recall", "Who served?", "-d", "navy"])
    assert out.exit_code == 1 and "Memory build failed" in out.output
    as_json = runner.invoke(app, ["recall", "Who served?", "-d", "navy", "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.output)[0]["status"] == "build_failed"


async def test_progress_is_reported_from_the_start_and_within_one_large_file(
    tmp_path: Path,
) -> None:
    big = tmp_path / "big.md"
    big.write_text(
        "\n\n".join(
            f"Paragraph {i} says the heron number {i} waded in river {i}." * 8 for i in range(300)
        )
    )
    small = [tmp_path / f"s{i}.md" for i in range(3)]
    for i, path in enumerate(small):
        path.write_text(f"Small note {i} about owls.")
    calls: list[tuple[str, int, int]] = []
    result = await remember_with_progress(
        [str(big), *map(str, small)],
        "rivers",
        self_improvement=False,
        progress=lambda stage, done, total: calls.append((stage, done, total)),
    )
    chunks = result.counts["chunks"]
    assert chunks > 64
    assert calls[0] == ("documents", 0, 4)  # before any work: the total is known
    assert calls[1] == ("chunks", 0, chunks)
    first_doc = calls.index(("documents", 1, 4))
    moving = [done for stage, done, _ in calls[:first_doc] if stage == "chunks"]
    assert len(set(moving)) >= 3 and moving == sorted(moving)  # moves inside the big file
    assert calls[-1][1:] == (4, 4) or ("chunks", chunks, chunks) in calls


def test_the_installed_command_prints_its_version() -> None:
    exe = Path(sys.executable).with_name("engramdb")
    done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("engramdb ")


def _on_a_terminal(
    args: list[str], answer: str, data_dir: Path
) -> subprocess.CompletedProcess[str]:
    """Run the installed command with a pseudo-terminal as stdin and type ``answer``."""
    import os
    import pty

    exe = Path(sys.executable).with_name("engramdb")
    master, slave = pty.openpty()
    try:
        os.write(master, answer.encode() + b"\n")
        env = {**os.environ, "ENGRAMDB_DATA_DIR": str(data_dir), "EMBEDDING_PROVIDER": "fake"}
        return subprocess.run(
            [str(exe), *args], stdin=slave, capture_output=True, text=True, env=env, timeout=120
        )
    finally:
        os.close(slave)
        os.close(master)


def test_on_a_terminal_forget_asks_and_no_is_the_default(isolated_config: Path) -> None:
    _ok("remember", "Owls hunt at night.", "--dataset", "birds")
    no = _on_a_terminal(["forget", "--dataset", "birds"], "", isolated_config)  # just Enter
    assert no.returncode == 1 and "Delete dataset 'birds'" in no.stdout + no.stderr
    assert "aborted" in no.stderr
    assert [d["name"] for d in json.loads(_ok("datasets", "--json"))] == ["birds"]
    yes = _on_a_terminal(["forget", "--dataset", "birds"], "y", isolated_config)
    assert yes.returncode == 0, yes.stderr
    assert "deleted 1 dataset(s)" in yes.stdout
    assert json.loads(_ok("datasets", "--json")) == []
