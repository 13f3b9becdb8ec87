"""dates.py: parsing absolute dates into intervals and judging them against a question's window."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from engramdb.retrieval.dates import (
    DateInterval,
    TimeWindow,
    dates_from_metadata,
    find_dates,
    judge,
    parse_date,
    parse_time_constraint,
)

D = date


@pytest.mark.parametrize(
    ("value", "start", "end", "granularity"),
    [
        ("2019", D(2019, 1, 1), D(2019, 12, 31), "year"),
        ("July 1969", D(1969, 7, 1), D(1969, 7, 31), "month"),
        ("Feb 2020", D(2020, 2, 1), D(2020, 2, 29), "month"),
        ("8 May 2023", D(2023, 5, 8), D(2023, 5, 8), "day"),
        ("1:56 pm on 8 May, 2023", D(2023, 5, 8), D(2023, 5, 8), "day"),  # LoCoMo session
        ("the 8th of May, 2023", D(2023, 5, 8), D(2023, 5, 8), "day"),
        ("May 8, 2023", D(2023, 5, 8), D(2023, 5, 8), "day"),
        ("2023-05-08", D(2023, 5, 8), D(2023, 5, 8), "day"),
        ("2023-05-08T10:00:00Z", D(2023, 5, 8), D(2023, 5, 8), "day"),
        ("2023-05", D(2023, 5, 1), D(2023, 5, 31), "month"),
        ("01/03/2020", D(2020, 1, 3), D(2020, 1, 3), "day"),  # slashes: month first
        ("13/03/2020", D(2020, 3, 13), D(2020, 3, 13), "day"),  # 13 is no month
        ("1.3.2020", D(2020, 3, 1), D(2020, 3, 1), "day"),  # dots: day first
        ("early 2019", D(2019, 1, 1), D(2019, 4, 30), "month"),
        ("mid-2019", D(2019, 5, 1), D(2019, 8, 31), "month"),
        ("Q3 2021", D(2021, 7, 1), D(2021, 9, 30), "month"),
        ("winter 2019", D(2019, 12, 1), D(2020, 2, 29), "month"),
        (1683540000, D(2023, 5, 8), D(2023, 5, 8), "day"),  # Unix seconds
        (1683540000000, D(2023, 5, 8), D(2023, 5, 8), "day"),  # milliseconds
        ("1683540000", D(2023, 5, 8), D(2023, 5, 8), "day"),
        (datetime(2023, 5, 8, 23, 0, tzinfo=UTC), D(2023, 5, 8), D(2023, 5, 8), "day"),
        (D(2023, 5, 8), D(2023, 5, 8), D(2023, 5, 8), "day"),
    ],
)
def test_parse_date(value: object, start: date, end: date, granularity: str) -> None:
    assert parse_date(value) == DateInterval(start, end, granularity)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value",
    [
        "",
        "yesterday",
        "last week",
        "in May",
        "31 April 2020",
        "2,000",
        "3.5",
        None,
        True,
        [],
        "999",
    ],
)
def test_parse_date_rejects_non_dates(value: object) -> None:
    assert parse_date(value) is None


def test_parse_date_prefers_the_most_specific_date() -> None:
    assert parse_date("2023, on 8 May 2023") == DateInterval.day(D(2023, 5, 8))


def test_find_dates_in_text() -> None:
    text = "In 2019 we moved; on May 8, 2023 we met again. The mayor sold 2,000 maps for 3.50."
    assert find_dates(text) == [DateInterval.year(2019), DateInterval.day(D(2023, 5, 8))]
    assert find_dates("mayday on 12 mayo") == []


def test_dates_from_metadata_reads_the_known_keys_case_insensitively() -> None:
    meta = {"Date": "1:56 pm on 8 May, 2023", "effective_date": "2019", "title": "2001"}
    assert dates_from_metadata(meta) == [DateInterval.day(D(2023, 5, 8)), DateInterval.year(2019)]
    assert dates_from_metadata({"timestamp": 1683540000}) == [DateInterval.day(D(2023, 5, 8))]
    assert dates_from_metadata({"date": "soon"}) == []
    assert dates_from_metadata(None) == []


@pytest.mark.parametrize(
    ("question", "operator", "lo", "hi"),
    [
        ("What happened in 2019?", "in", D(2019, 1, 1), D(2019, 12, 31)),
        ("Who flew before July 1969?", "before", None, D(1969, 6, 30)),
        ("What did she do on 8 May 2023?", "in", D(2023, 5, 8), D(2023, 5, 8)),
        ("on the 8th of May, 2023", "in", D(2023, 5, 8), D(2023, 5, 8)),
        ("What changed between 2020 and 2021?", "between", D(2020, 1, 1), D(2021, 12, 31)),
        ("from 2018 to 2019", "between", D(2018, 1, 1), D(2019, 12, 31)),
        ("Sales after March 2020", "after", D(2020, 4, 1), None),
        ("since 2020-03-01", "since", D(2020, 3, 1), None),
        ("until 2019", "until", None, D(2019, 12, 31)),
        ("prior to 01/03/2020", "before", None, D(2020, 1, 2)),
        ("as of 2021", "since", D(2021, 1, 1), None),
        ("during the year 2000", "in", D(2000, 1, 1), D(2000, 12, 31)),
        ("in mid-2019", "in", D(2019, 5, 1), D(2019, 8, 31)),
    ],
)
def test_parse_time_constraint(
    question: str, operator: str, lo: date | None, hi: date | None
) -> None:
    constraint = parse_time_constraint(question)
    assert constraint is not None
    assert constraint.operator == operator
    assert constraint.window == TimeWindow(lo, hi)


@pytest.mark.parametrize(
    "question",
    ["2019 revenue", "What happened last week?", "in May", "in 3 days", "Who is Alice?"],
)
def test_no_constraint_without_preposition_and_absolute_date(question: str) -> None:
    assert parse_time_constraint(question) is None


IN_2019 = TimeWindow(D(2019, 1, 1), D(2019, 12, 31))
BEFORE_2019 = TimeWindow(None, D(2018, 12, 31))


@pytest.mark.parametrize(
    ("window", "stated", "written", "verdict"),
    [
        # a stated or written date inside the window matches, at any granularity
        (IN_2019, [DateInterval.day(D(2019, 5, 8))], [], "match"),
        (IN_2019, [], [DateInterval.month(2019, 12)], "match"),
        (IN_2019, [], [DateInterval.year(2019)], "match"),
        (TimeWindow(D(2019, 5, 8), D(2019, 5, 8)), [], [DateInterval.year(2019)], "match"),
        # the passage's own dates outside the window contradict it
        (IN_2019, [DateInterval.year(2010)], [DateInterval.year(2023)], "contradicts"),
        # written before the window: cannot describe it
        (IN_2019, [], [DateInterval.year(2018)], "contradicts"),
        # written after the window: may look back at it
        (IN_2019, [], [DateInterval.year(2020)], "possible"),
        (BEFORE_2019, [], [DateInterval.day(D(2019, 4, 10))], "possible"),
        (BEFORE_2019, [], [DateInterval.year(2017)], "match"),
        # no date at all
        (IN_2019, [], [], "possible"),
        # an open window on the left: nothing is written "before" it
        (TimeWindow(None, D(2000, 1, 1)), [], [DateInterval.year(2020)], "possible"),
    ],
)
def test_judge(
    window: TimeWindow, stated: list[DateInterval], written: list[DateInterval], verdict: str
) -> None:
    assert judge(window, stated, written) == verdict


def test_window_contains_is_an_overlap_test() -> None:
    window = TimeWindow(D(2020, 1, 1), D(2021, 12, 31))
    assert window.contains(DateInterval.year(2021))
    assert window.contains(DateInterval(D(2019, 12, 1), D(2020, 2, 29), "month"))
    assert not window.contains(DateInterval.year(2022))
    assert TimeWindow(None, None).contains(DateInterval.year(1500))
