"""The geometry of the insights page's charts (docs/insights.md "The page"): horizontal bars,
one row per figure, drawn by the template as SVG. Pure: numbers in, coordinates out.

The drawing is 360 units wide, about the width of a phone's screen, so at 390 px its text is
at its own size and on a wide screen it grows with the column; every chart has the same
figures in a table beside it for screen readers and keyboard users.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gatehouse.insights.rules import DURATION_BUCKETS
from gatehouse.insights.schemas import Insights

WIDTH = 360
ROW = 46
LABEL_BASELINE = 16
BAR_TOP = 22
BAR_HEIGHT = 18
# Room kept at the right of the longest bar for its number.
VALUE_ROOM = 64


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: int
    label_y: int
    bar_y: int
    bar_width: float
    value_x: float


@dataclass(frozen=True, slots=True)
class Chart:
    key: str
    title: str
    summary: str
    bars: list[Bar]
    height: int
    width: int = WIDTH
    bar_height: int = BAR_HEIGHT


def bar_chart(key: str, title: str, rows: Sequence[tuple[str, int]]) -> Chart:
    """One bar per (label, value), the longest value filling the width left for bars."""
    top = max((value for _label, value in rows), default=0)
    room = WIDTH - VALUE_ROOM
    bars = []
    for index, (label, value) in enumerate(rows):
        y = index * ROW
        width = 0.0 if top == 0 else round(room * value / top, 1)
        # A bar of zero still shows a hairline, so the row reads as "none" rather than missing.
        drawn = max(width, 1.0)
        bars.append(Bar(label, value, y + LABEL_BASELINE, y + BAR_TOP, drawn, drawn + 6))
    summary = "; ".join(f"{label}: {value}" for label, value in rows)
    return Chart(key, title, summary, bars, max(len(rows), 1) * ROW)


def charts_of(insights: Insights) -> list[Chart]:
    """The page's three charts: the funnel, the time to decision, the ageing of open cases."""
    distribution = insights.durations.distribution
    return [
        bar_chart(
            "funnel",
            "Funnel: applications created in the period, and how far they got",
            [(words, count) for _key, words, count in insights.funnel_stages()],
        ),
        bar_chart(
            "time-to-decision",
            "Time to decision: decided applications by how long the decision took",
            [(label, distribution.get(label, 0)) for label, _low, _high in DURATION_BUCKETS],
        ),
        bar_chart(
            "ageing",
            "Open cases by age: applications not yet decided, by time since creation",
            insights.open_by_age,
        ),
    ]


def duration_words(seconds: int | None) -> str:
    """A duration for people: "3 days 4 hours", "2 hours 5 minutes", "40 seconds"."""
    if seconds is None:
        return "nothing decided"
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute"), (secs, "second")]
    shown = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in parts if n][:2]
    return " ".join(shown) or "0 seconds"
