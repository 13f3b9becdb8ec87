"""Errors name verbs and options as terms: one message, spelled by each surface (issue 16: "CLI
messages speak Python ... design it once")."""

from __future__ import annotations

from engramdb.errors import EngramError, LLMNotConfiguredError, RecallPreconditionError
from engramdb.spelling import Term, option, verb


def test_the_message_is_the_python_spelling_and_render_uses_another() -> None:
    error = RecallPreconditionError("Run {0} first, or pass {1}.", [verb("remember"), option("x")])
    assert str(error) == error.message == "Run remember() first, or pass x=True."
    assert error.render(lambda t: f"<{t.verb or t.option}>") == "Run <remember> first, or pass <x>."


def test_a_message_without_terms_keeps_its_braces() -> None:
    error = EngramError("a {literal} brace")
    assert str(error) == "a {literal} brace" and error.render(lambda t: "?") == "a {literal} brace"


def test_terms_travel_in_the_problem_document() -> None:
    error = LLMNotConfiguredError.needed_for(
        "X {needs} an LLM",
        "use {0}",
        terms=[option("query_type", "CHUNKS", python="SearchType.CHUNKS")],
    )
    assert "X {needs} an LLM" in str(error) and str(error).endswith("or use SearchType.CHUNKS")
    problem = error.to_problem()
    assert problem["detail"] == str(error)
    assert problem["terms"] == [
        {"option": "query_type", "value": "CHUNKS", "python_text": "SearchType.CHUNKS"}
    ]
    again = LLMNotConfiguredError.from_problem(problem)
    assert str(again) == str(error)
    assert again.terms == (
        Term(option="query_type", value="CHUNKS", python_text="SearchType.CHUNKS"),
    )
    assert again.render(lambda t: "--type CHUNKS").endswith("or use --type CHUNKS")
