"""The case page's timeline merge (cases/timeline.py): newest first, each kind labelled,
equal times in a stable order, paged, and the page parameter bounded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gatehouse.cases.timeline import (
    MAX_PAGE,
    PAGE_SIZE,
    EntryKind,
    TimelineEntry,
    merge,
    page_number,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def entries(kind: EntryKind, minutes: list[int]) -> list[TimelineEntry]:
    return [TimelineEntry(T0 + timedelta(minutes=m), kind, f"{kind}{m}") for m in minutes]


def test_sources_merge_newest_first_with_labels() -> None:
    timeline = merge(
        [
            entries(EntryKind.STATUS, [5, 1]),
            entries(EntryKind.NOTE, [3]),
            entries(EntryKind.AUDIT, [5, 4, 0]),
        ],
        1,
    )
    assert [e.title for e in timeline.entries] == [
        "status5",
        "audit5",
        "audit4",
        "note3",
        "status1",
        "audit0",
    ]
    assert {e.label for e in timeline.entries} == {"Status", "Internal note", "Audit"}
    assert not timeline.has_more


def test_long_cases_are_paged() -> None:
    many = entries(EntryKind.EVENT, list(range(PAGE_SIZE * 2 + 3)))
    first = merge([many], 1)
    assert len(first.entries) == PAGE_SIZE
    assert first.has_more
    assert first.entries[0].title == f"event{PAGE_SIZE * 2 + 2}"
    third = merge([many], 3)
    assert [e.title for e in third.entries] == ["event2", "event1", "event0"]
    assert not third.has_more


def test_the_page_parameter_is_bounded() -> None:
    assert page_number(None) == 1
    assert page_number("") == 1
    assert page_number("0") == 1
    assert page_number("-2") == 1
    assert page_number("x") == 1
    assert page_number("\uff13") == 1  # a full-width digit is not a page
    assert page_number("2") == 2
    assert page_number("999") == MAX_PAGE
    assert page_number("9" * 400) == 1
