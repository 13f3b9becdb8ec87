"""Declining the automatic improve: the admission check, through the public API (improve.md).
Also run on PostgreSQL (tests/postgres/test_api.py)."""

from __future__ import annotations

import pytest

import engramdb
from engramdb import ImproveAdmission, register_improve_admission_check
from engramdb.engine import get_engine
from engramdb.settings import config

FACT = "Ada Lovelace wrote the first program for the Analytical Engine."


async def test_an_admission_check_declines_the_automatic_improve_after_an_ingest() -> None:
    """improve.md: "An application that embeds Cognee can also decline a single automatic
    improve at runtime — when the tenant it serves has no LLM budget left, say — by
    registering an admission check. ... Explicit improve() calls are never gated by it." """
    asked: list[ImproveAdmission] = []

    def no_budget(admission: ImproveAdmission) -> bool:
        asked.append(admission)
        return False

    register_improve_admission_check(no_budget)
    result = await engramdb.remember(FACT, dataset_name="tenant_a")
    assert result.improve == "declined"
    (admission,) = asked
    assert admission.trigger == "ingest" and admission.session_id is None
    assert admission.dataset.name == "tenant_a"
    assert admission.user.id == (await get_engine().resolve_user(None)).id

    explicit = await engramdb.improve("tenant_a")  # never gated
    assert explicit.stage("global_context_index").status == "completed"  # type: ignore[union-attr]
    assert len(asked) == 1

    async def has_budget(admission: ImproveAdmission) -> bool:
        return admission.dataset.name == "tenant_b"

    register_improve_admission_check(has_budget)
    assert (await engramdb.remember(FACT, dataset_name="tenant_a")).improve == "declined"
    assert (await engramdb.remember(FACT, dataset_name="tenant_b")).improve == "completed"

    register_improve_admission_check(None)
    assert (await engramdb.remember(FACT, dataset_name="tenant_a")).improve == "completed"


async def test_a_declined_session_improve_keeps_its_entries_counted() -> None:
    """improve.md: "decline a single automatic improve" and "Entries held back by the debounce
    are not dropped" — a declined session improve keeps its entries counted toward the debounce,
    so the very next write asks again, and the admitted improve bridges what was declined."""
    config.set("improve_debounce_entries", 2)
    await engramdb.remember(FACT, dataset_name="tenant_a", self_improvement=False)
    register_improve_admission_check(lambda admission: False)
    turns = ["The user prefers short answers.", "The user lives in Paris.", "The user is Ada."]
    first, second = [
        await engramdb.remember(t, dataset_name="tenant_a", session_id="chat") for t in turns[:2]
    ]
    assert (first.improve, second.improve) == ("debounced", "declined")

    seen: list[ImproveAdmission] = []
    register_improve_admission_check(lambda admission: seen.append(admission) or True)
    third = await engramdb.remember(turns[2], dataset_name="tenant_a", session_id="chat")
    assert third.improve == "completed"  # 3 entries counted, not 1
    assert [(a.trigger, a.session_id) for a in seen] == [("session", "chat")]
    result = await engramdb.recall(
        "short answers", datasets=["tenant_a"], query_type=engramdb.SearchType.CHUNKS
    )
    assert any("short answers" in str(entry) for entry in result)


async def test_a_failing_check_declines_and_never_fails_remember() -> None:
    """improve.md: the check declines "a single automatic improve"; an automatic improve never
    fails the remember() that triggered it (improve.md, Automatic improve) — a check that raises
    declines instead of spending the budget."""

    def broken(admission: ImproveAdmission) -> bool:
        raise RuntimeError("budget service down")

    register_improve_admission_check(broken)
    result = await engramdb.remember(FACT, dataset_name="tenant_a")
    assert result.status == "completed" and result.improve == "declined"
    with pytest.raises(engramdb.EngramValidationError):
        register_improve_admission_check("yes")  # type: ignore[arg-type]
