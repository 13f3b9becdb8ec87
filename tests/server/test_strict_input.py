"""Issue 14 item 4: bad input is refused, never coerced or rewritten, and every route says
where a body broke. Each case is a probe that the old code accepted."""

from __future__ import annotations

import pytest

import engramdb
from tests.server.conftest import Account, LiveServer


def test_strings_are_not_taken_for_flags_or_numbers(
    live_server: LiveServer, admin: Account
) -> None:
    with live_server.client(admin) as client:
        made_admin = client.post(
            "/api/v1/users", json={"email": "eve@example.com", "is_admin": "yes"}
        )
        assert made_admin.status_code == 422 and "is_admin" in made_admin.json()["detail"]
        five = client.post("/api/v1/recall", json={"query_text": "q", "top_k": "5"})
        assert five.status_code == 422 and "top_k" in five.json()["detail"]
        emails = [u["email"] for u in client.get("/api/v1/users").json()]
        assert "eve@example.com" not in emails


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("/api/v1/remember", '{"data": "x",'),
        ("/api/v1/recall", '{"query_text": '),
        ("/api/v1/forget", "[1, 2"),
        ("/api/v1/sessions/s/entries", '{"question": "q"'),
    ],
)
def test_malformed_json_says_where_it_broke(
    live_server: LiveServer, alice: Account, route: str, body: str
) -> None:
    with live_server.client(alice) as client:
        answer = client.post(route, content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert detail != "invalid request" and ("JSON" in detail or "line" in detail), detail


async def test_an_email_with_a_nul_is_refused() -> None:
    with pytest.raises(engramdb.EngramValidationError, match="e-mail"):
        await engramdb.create_user("alice\x00@example.com")


@pytest.mark.parametrize("text", ["\u200b\u200b", "\x01\x02\x03", "\u200d \u2060\t"])
async def test_text_a_reader_cannot_see_is_refused_and_nothing_written(text: str) -> None:
    await engramdb.remember("A visible fact.", self_improvement=False)
    with pytest.raises(engramdb.EngramValidationError, match="invisible"):
        await engramdb.remember(["Another fact.", text], self_improvement=False)
    found = await engramdb.recall("fact", engramdb.SearchType.CHUNKS)
    assert [r.text for r in found] == ["A visible fact."]


async def test_a_nul_is_refused_instead_of_silently_dropped() -> None:
    with pytest.raises(engramdb.EngramValidationError, match="NUL character at position 4"):
        await engramdb.remember("code\x00word", self_improvement=False)
