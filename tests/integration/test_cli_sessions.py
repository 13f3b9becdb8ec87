"""The engramdb command's session features: --session on recall / remember, and 'session'."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from engramdb.cli import app

runner = CliRunner()


def test_session_commands_have_help() -> None:
    result = runner.invoke(app, ["session", "--help"])
    assert result.exit_code == 0, result.output
    for name in ("list", "show", "feedback", "delete"):
        assert name in result.output
        sub = runner.invoke(app, ["session", name, "--help"])
        assert sub.exit_code == 0 and "Usage" in sub.output
    assert "--session" in runner.invoke(app, ["recall", "--help"]).output


def test_recall_in_a_session_then_rate_the_turn() -> None:
    out = runner.invoke(app, ["remember", "Owls hunt at night in the forest."])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["recall", "Where do owls hunt?", "--session", "chat-1"])
    assert out.exit_code == 0, out.output

    shown = runner.invoke(app, ["session", "show", "chat-1", "--json"])
    (entry,) = json.loads(shown.output)
    assert entry["question"] == "Where do owls hunt?"

    rated = runner.invoke(app, ["session", "feedback", "chat-1", entry["qa_id"], "--score", "5"])
    assert rated.exit_code == 0 and "feedback saved" in rated.output
    shown = runner.invoke(app, ["session", "show", "chat-1"])
    assert "rating=5" in shown.output and "Q: Where do owls hunt?" in shown.output

    bad = runner.invoke(app, ["session", "feedback", "chat-1", entry["qa_id"], "--score", "9"])
    assert bad.exit_code == 2 and "1 to 5" in bad.output

    hit = runner.invoke(app, ["recall", "owls hunting", "--session", "chat-1"])
    assert f"session turn {entry['qa_id']}" in hit.output

    assert "chat-1" in runner.invoke(app, ["session", "list"]).output
    assert "deleted" in runner.invoke(app, ["session", "delete", "chat-1", "--yes"]).output
    assert "no entries" in runner.invoke(app, ["session", "show", "chat-1"]).output


def test_remember_into_a_session() -> None:
    out = runner.invoke(app, ["remember", "Budget is 900 euros.", "--session", "trip"])
    assert out.exit_code == 0, out.output
    assert "1 note(s) in session 'trip'" in out.output
    shown = runner.invoke(app, ["session", "show", "trip", "--json"])
    assert [e["answer"] for e in json.loads(shown.output)] == ["Budget is 900 euros."]
