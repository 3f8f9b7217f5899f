"""The page filters `when` and `iso` (web/rendering.py): a time reads the same whether the page
got it as a datetime from a table or as an RFC 3339 string from an API row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from gatehouse.web.rendering import human_time, machine_time, templates

MOMENT = datetime(2026, 11, 22, 10, 0, 5, tzinfo=UTC)


def test_a_datetime_reads_as_people_read_it() -> None:
    assert human_time(MOMENT) == "22 Nov 2026, 10:00 UTC"
    assert machine_time(MOMENT) == "2026-11-22T10:00:05.000Z"


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-22T10:00:05.000Z",
        "2026-11-22T10:00:05Z",
        "2026-11-22T12:00:05+02:00",  # shown in UTC
        " 2026-11-22T10:00:05.000Z ",
    ],
)
def test_an_rfc_3339_string_reads_like_the_datetime(text: str) -> None:
    assert human_time(text) == human_time(MOMENT)
    assert machine_time(text) == machine_time(MOMENT)


def test_an_offset_datetime_is_shown_in_utc() -> None:
    local = MOMENT.astimezone(timezone(timedelta(hours=-5)))
    assert human_time(local) == "22 Nov 2026, 10:00 UTC"


@pytest.mark.parametrize(
    "text", ["tomorrow", "2026-11-22", "2026-11-22T10:00:05", "2026-02-30T00:00:00Z"]
)
def test_other_text_is_shown_as_given(text: str) -> None:
    assert human_time(text) == text
    assert machine_time(text) == text


@pytest.mark.parametrize("empty", [None, ""])
def test_nothing_is_a_dash(empty: str | None) -> None:
    assert human_time(empty) == "—"
    assert machine_time(empty) == ""


def test_the_template_filters_are_these() -> None:
    rendered = templates.env.from_string("{{ t|when }} / {{ t|iso }}").render(
        t="2026-11-22T10:00:05.000Z"
    )
    assert rendered == "22 Nov 2026, 10:00 UTC / 2026-11-22T10:00:05.000Z"
