"""bench/cognee_programs.py's "answers from its data" verdict: a completed program counts only
when its printed answers carry phrases of its own data (bench/cognee_program_answers.py)."""

from __future__ import annotations

import re

from bench.cognee_program_answers import ANSWERS
from bench.cognee_programs import EXCLUDED, Outcome, check_answers

SMOKE = "advanced_guides/global_context_index_smoke_demo.py"


def _outcome(output: str, *, completed: bool = True, program: str = SMOKE) -> Outcome:
    return Outcome(program, "engramdb", completed, 1.0, "", output)


def test_an_empty_answer_does_not_count_and_names_what_is_missing() -> None:
    """The issue's done-when: "each does what the program expects (its prints show answers from
    its data, not empty results)"."""
    empty = check_answers(
        _outcome(
            "--- Context WITH global context index ---\n(empty)\n"
            "Global context smoke status: FAILED (prelude missing)\n"
        )
    )
    assert empty.data_answers is False
    assert "Global context smoke status: PASSED" in empty.missing
    answered = check_answers(
        _outcome(
            "--- Context WITH global context index ---\n"
            "source='graph' text='Question: ...\\nWorld summary:\\nDataset: demo'\n"
            "Q2: When is the second meeting?\nA: Meeting 2 is rescheduled for April 9.\n"
            "Global context smoke status: PASSED\n"
        )
    )
    assert answered.data_answers is True and answered.missing == ()


def test_a_program_that_did_not_complete_gets_no_verdict() -> None:
    assert check_answers(_outcome("Traceback ...", completed=False)).data_answers is None


def test_every_declared_program_is_counted_and_every_pattern_compiles() -> None:
    assert not set(ANSWERS) & set(EXCLUDED)
    for patterns in ANSWERS.values():
        for pattern in patterns:
            re.compile(pattern)
