"""``engramdb users``: users, keys and grants from the command line, end to end."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.main import get_command
from typer.testing import CliRunner

import engramdb
from engramdb.cli import app

runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["users"],
        ["users", "create"],
        ["users", "list"],
        ["users", "grant"],
        ["users", "revoke"],
        ["users", "grants"],
        ["users", "keys"],
        ["users", "keys", "create"],
        ["users", "keys", "list"],
        ["users", "keys", "revoke"],
    ],
)
def test_every_users_command_has_help(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output and len(result.output.splitlines()) > 3


def test_users_group_is_listed() -> None:
    assert "users" in get_command(app).commands  # type: ignore[attr-defined]


def test_users_keys_and_grants_end_to_end() -> None:
    alice = json.loads(_ok("users", "create", "alice@example.com", "--admin", "--json"))
    assert alice["is_admin"] is True
    _ok("users", "create", "bob@example.com")
    assert "bob@example.com" in _ok("users", "list")

    key = _ok("users", "keys", "create", "bob@example.com", "--name", "laptop").strip()
    bob = asyncio.run(engramdb.authenticate(key))
    assert bob.email == "bob@example.com"
    (listed,) = json.loads(_ok("users", "keys", "list", "bob@example.com", "--json"))
    assert listed["name"] == "laptop" and key.split("_")[-1] not in json.dumps(listed)

    # the default user's dataset, shared with Bob from the command line
    done = json.loads(_ok("remember", "Owls hunt at night.", "--dataset", "birds", "--json"))
    dataset_id = done["dataset_id"]
    _ok("users", "grant", dataset_id, "bob@example.com", "read")
    (grant,) = json.loads(_ok("users", "grants", dataset_id, "--json"))
    assert (grant["grantee_id"], grant["permission"]) == (str(bob.id), "read")
    hits = asyncio.run(engramdb.recall("owls", dataset_ids=[dataset_id], user=bob))
    assert hits

    # Bob holds read only: acting as Bob he cannot pass it on (exit code 2, a message)
    refused = runner.invoke(
        app, ["users", "grant", dataset_id, "alice@example.com", "read", "--as", "bob@example.com"]
    )
    assert refused.exit_code == 2 and "permission" in refused.output
    _ok("users", "revoke", dataset_id, "bob@example.com", "read")
    assert json.loads(_ok("users", "grants", dataset_id, "--json")) == []

    _ok("users", "keys", "revoke", listed["id"], "--yes")
    with pytest.raises(engramdb.AuthenticationError):
        asyncio.run(engramdb.authenticate(key))


def test_bad_input_exits_with_a_message() -> None:
    result = runner.invoke(app, ["users", "create", "not-an-address"])
    assert result.exit_code == 2 and "e-mail" in result.output
    result = runner.invoke(app, ["users", "keys", "create", "nobody@example.com"])
    assert result.exit_code == 2 and "users create" in result.output
    result = runner.invoke(app, ["users", "grant", "not-a-uuid", "nobody@example.com", "read"])
    assert result.exit_code == 2
