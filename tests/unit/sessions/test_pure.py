"""The pure parts of sessions: keyword matching, guidance rendering, rating coercion, payload
sanitising, used-element extraction, history rendering and the scope plan."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

import pytest
from pydantic import BaseModel

from engramdb.models.results import ResponseGraphEntry, ResponseSkillEntry
from engramdb.models.sessions import ContextRecord, QARecord
from engramdb.retrieval.scopes import plan_scope
from engramdb.sessions.feedback import (
    RatedTurnAnalysis,
    TurnAnalysis,
    build_messages,
    coerce_rating,
)
from engramdb.sessions.guidance import PER_SECTION_BUDGET, render_guidance
from engramdb.sessions.lanes import _ranked, tokenize
from engramdb.sessions.recording import render_history, turn_from_results, used_elements
from engramdb.sessions.sanitize import MAX_ITEMS, MAX_TEXT, sanitize_value

USER = uuid4()
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def test_tokenize_drops_function_words_and_single_letters() -> None:
    assert tokenize("Where do the Owls hunt? A x") == {"owls", "hunt"}
    assert tokenize("what is it") == set()


def test_ranking_counts_shared_words_and_prefers_newer_on_ties() -> None:
    items = [(1, "owls hunt at night", "old"), (2, "owls sleep by day", "new"), (3, "bats", "x")]
    assert _ranked("owls hunt", items, 10) == ["old", "new"]
    assert _ranked("owls", items, 10) == ["new", "old"]
    assert _ranked("owls", items, 1) == ["new"]
    assert _ranked("the of and", items, 10) == []


def _guidance(seq: int, section: str, content: str, profile: str = "qa") -> ContextRecord:
    return ContextRecord(
        id=uuid4(),
        user_id=USER,
        session_id="s",
        seq=seq,
        context_profile=profile,  # type: ignore[arg-type]
        section=section,
        content=content,
        created_at=T0,
        updated_at=T0,
    )


def test_guidance_block_orders_sections_and_items_and_keeps_profiles_apart() -> None:
    entries = [
        _guidance(1, "preferences", "Use bullet points."),
        _guidance(2, "goals", "Plan a trip to Oslo."),
        _guidance(3, "preferences", "Keep it short."),
        _guidance(4, "tool_rules", "Retry the flight API once.", "agent"),
    ]
    block = render_guidance(entries, "qa")
    lines = block.splitlines()
    assert lines[0] == "## Active session guidance"
    assert lines.index("### Goals") < lines.index("### Preferences")
    assert block.index("Use bullet points.") < block.index("Keep it short.")  # oldest first
    assert "flight API" not in block
    agent = render_guidance(entries, "agent")
    assert "### Tool rules" in agent and "bullet" not in agent
    assert render_guidance([], "qa") == ""


def test_guidance_budget_keeps_the_newest_entries() -> None:
    long = "x" * (PER_SECTION_BUDGET // 2)
    entries = [_guidance(i, "rules", f"{i}{long}") for i in range(1, 5)]
    block = render_guidance(entries, "qa")
    assert f"- 4{long}" in block and f"- 1{long}" not in block


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, 1),
        (5, 5),
        ("4", 4),
        (0, None),
        (6, None),
        (-1, None),
        (100, None),
        ("junk", None),
        (3.7, None),
        (True, None),
        ([4], None),
        ({"rating": 4}, None),
        (None, None),
    ],
)
def test_out_of_range_or_malformed_ratings_are_no_signal(
    value: object, expected: int | None
) -> None:
    assert coerce_rating(value) == expected
    assert RatedTurnAnalysis(previous_answer_rating=value).previous_answer_rating == expected


def test_turn_analysis_tolerates_malformed_candidates() -> None:
    parsed = TurnAnalysis.model_validate(
        {
            "candidate_context_updates": [
                {"section": "rules", "content": "a", "confidence": "x"},
                "junk",
                {},
                {},
                {},
            ]
        }
    )
    assert len(parsed.candidate_context_updates) == 3
    assert parsed.candidate_context_updates[0].confidence == 0.0
    assert (
        TurnAnalysis.model_validate({"candidate_context_updates": "nope"}).candidate_context_updates
        == []
    )
    assert "previous_answer_rating" not in TurnAnalysis.model_json_schema()["properties"]


def test_the_rating_question_is_only_in_the_prompt_when_asked() -> None:
    previous = _qa(question="Where?", answer="There.")
    asked = build_messages("Perfect!", previous, ask_rating=True)
    silent = build_messages("Perfect!", previous, ask_rating=False)
    assert "Previous answer rating" in asked[0]["content"]
    assert "rating" not in silent[0]["content"].lower()
    assert "PREVIOUS ANSWER:\nThere." in silent[1]["content"]


class _Model(BaseModel):
    name: str


def test_sanitize_makes_any_value_bounded_json() -> None:
    cleaned = sanitize_value(
        {
            "api_key": "sk-123",
            "Authorization": "Bearer x",
            "text": "y" * (MAX_TEXT + 10),
            "when": T0,
            "id": UUID(int=1),
            "nan": math.nan,
            "blob": b"abc",
            "model": _Model(name="n"),
            "many": list(range(MAX_ITEMS + 5)),
            "obj": object(),
            "nested": {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}},
        }
    )
    assert cleaned["api_key"] == "[redacted]" and cleaned["Authorization"] == "[redacted]"
    assert len(cleaned["text"]) == MAX_TEXT and cleaned["text"].endswith("…")
    assert cleaned["when"] == T0.isoformat() and cleaned["id"] == str(UUID(int=1))
    assert cleaned["nan"] == "nan" and cleaned["blob"] == "<3 bytes>"
    assert cleaned["model"] == {"name": "n"}
    assert len(cleaned["many"]) == MAX_ITEMS + 1
    assert cleaned["obj"].startswith("<object object")
    assert isinstance(cleaned["nested"]["a"]["b"]["c"]["d"]["e"], str)


def _graph(kind: str, raw: dict[str, Any], text: str = "t", **fields: Any) -> ResponseGraphEntry:
    return ResponseGraphEntry(text=text, kind=kind, search_type="X", raw=raw, **fields)


def test_used_elements_read_every_payload_shape() -> None:
    a, b, c, d, e, f, g = (uuid4() for _ in range(7))
    results = [
        _graph(
            "answer",
            {
                "triplets": [
                    {
                        "source": {"id": str(a)},
                        "target": {"id": str(b)},
                        "edge_id": str(e),
                        "chunk_ids": [str(c)],
                    }
                ],
                "chunks": [{"chunk_id": str(d)}],
                "chunk_ids": [str(c), "not-a-uuid"],
            },
            metadata={
                "evidence": [
                    {"kind": "graph_edge", "artifact_id": str(f)},
                    {"kind": "segment", "artifact_id": str(g)},
                ]
            },
        ),
        _graph("chunk", {"id": str(a)}),
        ResponseSkillEntry(text="skill", skill={"id": str(uuid4())}),
    ]
    nodes, edges = used_elements(results)
    assert nodes == [a, b, c, d, g]
    assert edges == [e, f]


def test_turn_from_results() -> None:
    answer = _graph("answer", {"context": "CTX"}, text="The answer.")
    assert turn_from_results([answer]) == ("CTX", "The answer.")
    chunks = [_graph("chunk", {}, text="one"), _graph("chunk", {}, text="two")]
    assert turn_from_results(chunks) == ("one\n\ntwo", "")
    assert turn_from_results([ResponseSkillEntry(text="s")]) is None


def _qa(**fields: Any) -> QARecord:
    values: dict[str, Any] = {"id": uuid4(), "user_id": USER, "session_id": "s", "created_at": T0}
    values.update(fields)
    return QARecord.model_validate(values)


def test_history_renders_turns_and_notes_oldest_first() -> None:
    history = render_history(
        [
            _qa(question="Where do owls hunt?", answer="In forests."),
            _qa(question="", answer="Budget is 900 euros."),
            _qa(question="Any bats?", answer=""),
        ]
    )
    assert history.splitlines() == [
        "[2024-05-01 12:00 UTC] Question: Where do owls hunt?",
        "Answer: In forests.",
        "",
        "[2024-05-01 12:00 UTC] Note: Budget is 900 euros.",
        "",
        "[2024-05-01 12:00 UTC] Question: Any bats?",
    ]
    assert render_history([]) == ""


@pytest.mark.parametrize(
    ("scope", "session", "pinned", "scoped", "short"),
    [
        (None, "s", False, False, True),  # session_id alone: a session hit skips the graph
        (None, "s", False, True, False),  # with datasets both contribute
        (None, "s", True, False, False),  # a pinned query_type: graph only
        (None, None, False, False, False),
        ("session_first", None, False, True, True),
        (["session_first", "trace"], "s", True, True, True),
        ("all", "s", False, False, False),
        ("session", "s", False, False, False),
    ],
)
def test_scope_plan_short_circuit(
    scope: str | list[str] | None, session: str | None, pinned: bool, scoped: bool, short: bool
) -> None:
    plan = plan_scope(scope, session_id=session, explicit_type=pinned, dataset_scoped=scoped)
    assert plan.short_circuit is short
