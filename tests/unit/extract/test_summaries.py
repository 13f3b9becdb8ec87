"""Extractive summaries: central sentences, original order, bounded, never empty."""

from __future__ import annotations

import pytest

from engramdb.extract.summaries import extractive_summary

NEWS = (
    "The city council met on Monday. "
    "The council approved a new budget for public libraries and library staff. "
    "It was sunny. "
    "Libraries will open longer, the council said, and the budget adds library staff. "
    "Lunch was served."
)


def test_blank_text_gives_empty_summary() -> None:
    assert extractive_summary("") == ""
    assert extractive_summary("  \n\t ") == ""


@pytest.mark.parametrize("text", ["Hi", "!!!", "?", "12", "😂", "a", "x" * 5000, "é\n\n\n"])
def test_never_empty_for_non_blank_text(text: str) -> None:
    summary = extractive_summary(text)
    assert summary
    assert len(summary) <= 400


def test_picks_central_sentences_in_original_order() -> None:
    summary = extractive_summary(NEWS, max_sentences=2)
    assert summary == (
        "The council approved a new budget for public libraries and library staff. "
        "Libraries will open longer, the council said, and the budget adds library staff."
    )


def test_one_sentence_text_is_its_own_summary() -> None:
    text = "Andreas was born in Venice, but later settled in Lisbon."
    assert extractive_summary(text) == text


def test_respects_limits() -> None:
    for max_sentences in (1, 2, 3):
        summary = extractive_summary(NEWS, max_sentences=max_sentences)
        assert summary.count(". ") + 1 <= max_sentences
    for max_chars in (1, 10, 50, 100):
        summary = extractive_summary(NEWS, max_chars=max_chars)
        assert 0 < len(summary) <= max_chars
    long_sentence = "word " * 500
    cut = extractive_summary(long_sentence, max_chars=60)
    assert len(cut) <= 60 and cut.endswith("…")


def test_nonsense_limits_are_clamped() -> None:
    assert extractive_summary(NEWS, max_sentences=0, max_chars=0)


def test_deterministic() -> None:
    assert len({extractive_summary(NEWS) for _ in range(5)}) == 1


def test_chat_speaker_prefixes_do_not_dominate() -> None:
    chat = (
        "Caroline: Hey Mel!\n"
        "Melanie: Hey Caroline! Good to see you!\n"
        "Caroline: I went to a transgender support group yesterday and the support group "
        "stories were inspiring.\n"
        "Melanie: Wow, cool!\n"
        "Caroline: The support group gave me courage."
    )
    summary = extractive_summary(chat, max_sentences=1)
    assert "support group" in summary
