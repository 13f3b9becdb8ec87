"""Scope expansion follows the reference's rules."""

from __future__ import annotations

import pytest

from engramdb.retrieval.scopes import expand_scope


@pytest.mark.parametrize(
    ("scope", "session_id", "explicit", "lanes"),
    [
        (None, None, False, ["graph"]),
        (None, "s1", False, ["session", "graph"]),
        (None, "s1", True, ["graph"]),
        ("auto", "s1", False, ["session", "graph"]),
        ("all", None, False, ["graph", "session", "trace", "session_context"]),
        ("session_first", None, False, ["session", "graph"]),
        (["session_first", "trace"], None, False, ["session", "graph", "trace"]),
        (["all", "tools"], None, False, ["graph", "session", "trace", "session_context", "tools"]),
        ("code", None, False, ["code"]),
        (["graph", "graph"], None, False, ["graph"]),
    ],
)
def test_expansion(
    scope: str | list[str] | None, session_id: str | None, explicit: bool, lanes: list[str]
) -> None:
    assert expand_scope(scope, session_id=session_id, explicit_type=explicit) == lanes


def test_auto_and_all_never_select_tools_or_code() -> None:
    for scope in ("auto", "all"):
        lanes = expand_scope(scope, session_id="s", explicit_type=False)
        assert "tools" not in lanes and "code" not in lanes


def test_deprecated_alias() -> None:
    with pytest.warns(DeprecationWarning):
        assert expand_scope("graph_context", session_id=None, explicit_type=False) == ["graph"]


@pytest.mark.parametrize("bad", ["everything", ["graph", "nope"], [], 3])
def test_unknown_scope_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        expand_scope(bad, session_id=None, explicit_type=False)  # type: ignore[arg-type]
