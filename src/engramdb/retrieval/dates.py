"""Absolute dates as intervals, and the time constraint a question puts on them.

TEMPORAL retrieval needs to answer one question about every candidate passage: *could it be
from the time the question asks about?* Both sides are reduced to closed day intervals:

* a document or passage date ("2019", "July 1969", "8 May 2023", "1:56 pm on 8 May, 2023",
  "2023-05-08T10:00:00Z", a Unix timestamp) becomes a :class:`DateInterval` whose width is its
  granularity (a year, a month or a day) — "in 2019" must match a document dated 8 May 2019,
  and a document dated only "2019" must not be ruled out by "on 8 May 2019";
* a question ("in 2019", "before July 1969", "between 2020 and 2021", "since 8 May 2023")
  becomes a :class:`TimeWindow`: the closed range of days a matching date may touch, open on
  one side for before/after/since/until.

A date matches a window when the two overlap (:func:`judge` also knows that a document can
look back at earlier times but not ahead). Only
absolute dates are understood — "last week" or "yesterday" need a reference time that a stored
passage does not carry, so they are ignored rather than guessed.

Pure functions only: no I/O, no clock, no settings.
"""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

__all__ = [
    "DATE_METADATA_KEYS",
    "DateInterval",
    "Granularity",
    "TimeConstraint",
    "TimeWindow",
    "Verdict",
    "dates_from_metadata",
    "find_dates",
    "judge",
    "parse_date",
    "parse_time_constraint",
]

Granularity = Literal["year", "month", "day"]

#: ``external_metadata`` keys that hold the date of a document, most specific first.
DATE_METADATA_KEYS: tuple[str, ...] = (
    "date",
    "effective_date",
    "timestamp",
    "datetime",
    "date_time",
    "created_at",
    "created",
    "published",
    "published_at",
    "time",
)

# Years the parser accepts: four digits, 1000-2999 (the router's notion of an absolute year).
_MIN_YEAR, _MAX_YEAR = 1000, 2999

_MONTHS: dict[str, int] = {
    "jan": 1,
    "january": 1,
    "feb": 2,
    "february": 2,
    "mar": 3,
    "march": 3,
    "apr": 4,
    "april": 4,
    "may": 5,
    "jun": 6,
    "june": 6,
    "jul": 7,
    "july": 7,
    "aug": 8,
    "august": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "oct": 10,
    "october": 10,
    "nov": 11,
    "november": 11,
    "dec": 12,
    "december": 12,
}


@dataclass(frozen=True, slots=True, order=True)
class DateInterval:
    """A closed range of days ``[start, end]`` and the granularity it was written with."""

    start: date
    end: date
    granularity: Granularity

    @classmethod
    def year(cls, year: int) -> DateInterval:
        return cls(date(year, 1, 1), date(year, 12, 31), "year")

    @classmethod
    def month(cls, year: int, month: int) -> DateInterval:
        last = calendar.monthrange(year, month)[1]
        return cls(date(year, month, 1), date(year, month, last), "month")

    @classmethod
    def day(cls, value: date) -> DateInterval:
        return cls(value, value, "day")

    def overlaps(self, other: DateInterval) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """The closed range of days a matching date may touch; ``None`` is an open side."""

    lo: date | None
    hi: date | None

    def contains(self, interval: DateInterval) -> bool:
        """True when ``interval`` overlaps the window (a coarse date matches a fine window
        that falls inside it: "2019" could be "8 May 2019")."""
        if self.lo is not None and interval.end < self.lo:
            return False
        return not (self.hi is not None and interval.start > self.hi)


Operator = Literal["in", "before", "after", "since", "until", "between"]


@dataclass(frozen=True, slots=True)
class TimeConstraint:
    """The time a question asks about: the operator, the date(s) it named and the window."""

    operator: Operator
    dates: tuple[DateInterval, ...]
    window: TimeWindow
    #: The matched phrase ("before July 1969"), so callers can strip it from the query.
    phrase: str


# --- single dates ---------------------------------------------------------------------------

_MONTH_RE = (
    r"(?P<{name}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_YEAR_RE = r"(?P<{name}>[12]\d{{3}})(?![\d])(?![.,]\d)"
_DAY_RE = r"(?P<{name}>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"


def _m(name: str) -> str:
    return _MONTH_RE.format(name=name)


def _y(name: str) -> str:
    return _YEAR_RE.format(name=name)


def _d(name: str) -> str:
    return _DAY_RE.format(name=name)


# One alternation per written form, most specific first; every group name is unique so a match
# tells which form it was. Word boundaries keep "2019" out of "120190" and "may" out of "mayor".
_DATE_FORMS = rf"""
    (?P<iso>(?P<iy>[12]\d{{3}})-(?P<im>0?[1-9]|1[0-2])
        (?:-(?P<id>0?[1-9]|[12]\d|3[01])
            (?:[T\s]\d{{1,2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?
        )?)(?![\d])(?!-\d)
  | (?P<num>(?P<na>\d{{1,2}})(?P<sep>[./-])(?P<nb>\d{{1,2}})(?P=sep)(?P<ny>[12]\d{{3}}))(?!\d)
  | (?P<dmy>(?:the\s+)?{_d("dd")}(?:\s+of)?[\s\-]+{_m("dm")},?[\s\-]+{_y("dy")})
  | (?P<mdy>{_m("mm")}[\s\-]+{_d("md")},?[\s\-]+{_y("my")})
  | (?P<monyear>{_m("mo")},?[\s\-]+(?:of\s+)?{_y("moy")})
  | (?P<part>(?P<pw>early|mid|late|spring|summer|autumn|fall|winter|q[1-4])
        (?:\s+of)?[\s\-]+{_y("py")})
  | (?P<year>{_y("yy")})
"""
_DATE_RE = re.compile(rf"(?<![\w-])(?:{_DATE_FORMS})(?![\w])", re.IGNORECASE | re.VERBOSE)

# Parts of a year a question or a text may name ("early 2019", "summer 2020", "Q3 2021").
_YEAR_PARTS: dict[str, tuple[int, int]] = {
    "early": (1, 4),
    "mid": (5, 8),
    "late": (9, 12),
    "spring": (3, 5),
    "summer": (6, 8),
    "autumn": (9, 11),
    "fall": (9, 11),
    "q1": (1, 3),
    "q2": (4, 6),
    "q3": (7, 9),
    "q4": (10, 12),
}


def _valid_year(year: int) -> bool:
    return _MIN_YEAR <= year <= _MAX_YEAR


def _day(year: int, month: int, day: int) -> DateInterval | None:
    try:
        return DateInterval.day(date(year, month, day))
    except ValueError:  # 31 April, 29 February of a common year
        return None


def _months(year: int, first: int, last: int) -> DateInterval:
    """Months ``first..last`` of ``year`` (``last`` may be 14 for a winter into next year)."""
    end_year, end_month = (year + 1, last - 12) if last > 12 else (year, last)
    end = date(end_year, end_month, calendar.monthrange(end_year, end_month)[1])
    return DateInterval(date(year, first, 1), end, "month")


def _interval(match: re.Match[str]) -> DateInterval | None:
    """The interval one :data:`_DATE_RE` match denotes, or None when it is no real date."""
    g = match.group
    if g("iso"):
        year, month = int(g("iy")), int(g("im"))
        if not _valid_year(year):
            return None
        return _day(year, month, int(g("id"))) if g("id") else DateInterval.month(year, month)
    if g("num"):
        a, b, year = int(g("na")), int(g("nb")), int(g("ny"))
        # Dotted dates are day-first (European); slashes and dashes are month-first unless the
        # first number cannot be a month.
        day_first = g("sep") == "." or a > 12
        day, month = (a, b) if day_first else (b, a)
        return _day(year, month, day) if _valid_year(year) and 1 <= month <= 12 else None
    if g("dmy"):
        return _day(int(g("dy")), _MONTHS[g("dm").lower().rstrip(".")], int(g("dd")))
    if g("mdy"):
        return _day(int(g("my")), _MONTHS[g("mm").lower().rstrip(".")], int(g("md")))
    if g("monyear"):
        return DateInterval.month(int(g("moy")), _MONTHS[g("mo").lower().rstrip(".")])
    if g("part"):
        year, part = int(g("py")), g("pw").lower()
        if part == "winter":  # the winter that starts in December of that year
            return _months(year, 12, 14)
        first, last = _YEAR_PARTS[part]
        return _months(year, first, last)
    if g("year"):
        return DateInterval.year(int(g("yy")))
    return None


def find_dates(text: str) -> list[DateInterval]:
    """Every absolute date written in ``text``, in order of appearance.

    Recognised: ISO dates ("2023-05-08", "2023-05", also inside a timestamp), numeric dates
    ("01/03/2020" month-first, "1.3.2020" day-first, "13/03/2020" day-first since 13 is no
    month), "8 May 2023" / "8th of May, 2023", "May 8, 2023", "July 1969", "early/mid/late
    2019", seasons and quarters ("summer 2020", "Q3 2021") and bare years 1000-2999. A bare
    number is only taken as a year when it is not a decimal or a thousands group ("2,000") —
    a quantity like "2000 meters" still reads as a year here, which is harmless for matching
    stored text but is why the question side (:func:`parse_time_constraint`) needs a time
    preposition. Impossible days ("31 April 2020") are skipped.
    """
    found: list[DateInterval] = []
    for match in _DATE_RE.finditer(text):
        interval = _interval(match)
        if interval is not None:
            found.append(interval)
    return found


def parse_date(value: object) -> DateInterval | None:
    """One date from a metadata value: a string, a ``date``/``datetime`` or a Unix timestamp.

    A string yields its most specific date (a day beats a month beats a year; the first one on
    ties), so "1:56 pm on 8 May, 2023" is 8 May 2023 and "2019" is the year 2019. Numbers are
    read as Unix timestamps in seconds (milliseconds when too large for seconds), in UTC.
    Anything else, or a string without an absolute date, gives None.
    """
    if isinstance(value, datetime):
        return DateInterval.day(value.date())
    if isinstance(value, date):
        return DateInterval.day(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _from_timestamp(float(value))
    if not isinstance(value, str):
        return None
    text = value.strip()
    if re.fullmatch(r"-?\d{9,13}(?:\.\d+)?", text):  # a timestamp written as a string
        return _from_timestamp(float(text))
    found = find_dates(text)
    if not found:
        return None
    rank = {"day": 0, "month": 1, "year": 2}
    return min(found, key=lambda d: rank[d.granularity])  # min is stable: first on ties


def _from_timestamp(seconds: float) -> DateInterval | None:
    if not math.isfinite(seconds):
        return None
    if abs(seconds) >= 1e11:  # milliseconds
        seconds /= 1000.0
    try:
        moment = datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return DateInterval.day(moment.date()) if _valid_year(moment.year) else None


def dates_from_metadata(metadata: Mapping[str, Any] | None) -> list[DateInterval]:
    """The dates a document's ``external_metadata`` states, from :data:`DATE_METADATA_KEYS`
    (case-insensitive keys), in key order; values that are not dates are ignored."""
    if not metadata:
        return []
    lowered = {str(k).lower(): v for k, v in metadata.items()}
    out: list[DateInterval] = []
    for key in DATE_METADATA_KEYS:
        if key in lowered:
            parsed = parse_date(lowered[key])
            if parsed is not None and parsed not in out:
                out.append(parsed)
    return out


# --- the question's constraint ----------------------------------------------------------------


def _prefixed(prefix: str) -> str:
    """:data:`_DATE_FORMS` with every group renamed, so it can appear twice in one pattern."""
    return _DATE_FORMS.replace("(?P<", f"(?P<{prefix}").replace("(?P=", f"(?P={prefix}")


_PREPOSITIONS: dict[str, Operator] = {
    "in": "in",
    "on": "in",
    "during": "in",
    "around": "in",
    "before": "before",
    "prior to": "before",
    "earlier than": "before",
    "after": "after",
    "later than": "after",
    "since": "since",
    "from": "since",
    "as of": "since",
    "starting": "since",
    "until": "until",
    "till": "until",
    "by": "until",
    "up to": "until",
    "through": "until",
}
_PREPOSITION_RE = "|".join(
    re.escape(p).replace(r"\ ", r"\s+") for p in sorted(_PREPOSITIONS, key=len, reverse=True)
)
_CONSTRAINT_RE = re.compile(
    rf"""
    \b(?P<between>between|from)\s+(?P<a>{_prefixed("a_")})
        \s+(?:and|to|until|till|through|-)\s+(?P<b>{_prefixed("b_")})
  | \b(?P<prep>{_PREPOSITION_RE})\s+(?:the\s+year\s+)?(?P<c>{_prefixed("c_")})
    """,
    re.IGNORECASE | re.VERBOSE,
)


def _first_date(text: str) -> DateInterval | None:
    found = find_dates(text)
    return found[0] if found else None


def parse_time_constraint(query: str) -> TimeConstraint | None:
    """The absolute time a question asks about, or None when it names none.

    Operators, with the window a matching date must overlap (``D`` is the named date's
    interval, ``A``/``B`` the two dates of a range):

    * in / on / during / around D → ``[D.start, D.end]``
    * before / prior to / earlier than D → ``(-inf, D.start - 1 day]``
    * after / later than D → ``[D.end + 1 day, +inf)``
    * since / from / as of / starting D → ``[D.start, +inf)``
    * until / till / by / up to / through D → ``(-inf, D.end]``
    * between A and B, from A to B → ``[min start, max end]``

    Only the first constraint in the question is used. A date without a preposition ("2019
    revenue") is no constraint, so a question that merely mentions a year keeps the hybrid
    behaviour.
    """
    match = _CONSTRAINT_RE.search(query)
    if match is None:
        return None
    if match.group("between"):
        first, second = _first_date(match.group("a")), _first_date(match.group("b"))
        if first is None or second is None:
            return None
        lo, hi = min(first.start, second.start), max(first.end, second.end)
        return TimeConstraint("between", (first, second), TimeWindow(lo, hi), match.group(0))
    named = _first_date(match.group("c"))
    if named is None:
        return None
    operator = _PREPOSITIONS[" ".join(match.group("prep").lower().split())]
    window = _window(operator, named)
    return TimeConstraint(operator, (named,), window, match.group(0))


def _window(operator: Operator, named: DateInterval) -> TimeWindow:
    if operator == "before":
        return TimeWindow(None, named.start - timedelta(days=1))
    if operator == "after":
        return TimeWindow(named.end + timedelta(days=1), None)
    if operator == "since":
        return TimeWindow(named.start, None)
    if operator == "until":
        return TimeWindow(None, named.end)
    return TimeWindow(named.start, named.end)


Verdict = Literal["match", "possible", "contradicts"]


def judge(
    window: TimeWindow,
    stated: Iterable[DateInterval] = (),
    written: Iterable[DateInterval] = (),
) -> Verdict:
    """Whether a passage can be about the time ``window`` covers.

    ``stated`` are dates the passage itself writes ("In March 2019 we moved"): they say when
    its events happened. ``written`` are the dates its document was written or took effect
    (``external_metadata``, a dated header): text looks back, so a document written *after*
    the window may still describe it, while one written *before* the window starts cannot.

    * ``"match"``: a stated or written date lies in the window;
    * ``"contradicts"``: stated dates exist and none lies in the window, or (no stated dates)
      every written date ends before the window starts;
    * ``"possible"``: no date says either way (undated, or written after the window).
    """
    stated, written = list(stated), list(written)
    if any(window.contains(d) for d in (*stated, *written)):
        return "match"
    if stated:
        return "contradicts"
    if written and all(window.lo is not None and d.end < window.lo for d in written):
        return "contradicts"
    return "possible"
