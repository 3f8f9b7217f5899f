"""Pure rules of the reviewer's workstation (domain/workstation.py): the acknowledgement of
unsatisfied checklist items, reminders, notes, search patterns, waiting-on and ages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gatehouse.domain.status import InvalidInput
from gatehouse.domain.workstation import (
    Acknowledgement,
    acknowledgement_for,
    age_words,
    check_note,
    is_client_id,
    like_pattern,
    reminder_due,
    search_text,
    unsatisfied_required,
    waiting_on,
)

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
CHECKLIST = [
    {"key": "passport", "label": "Passport", "required": True, "satisfied": False},
    {"key": "form", "label": "Application form", "required": True, "satisfied": True},
    {"key": "selfie", "label": "Selfie", "required": False, "satisfied": False},
    {"key": "poa", "label": "Proof of address", "required": True, "satisfied": False},
]


def test_unsatisfied_required_items_only() -> None:
    assert [item["key"] for item in unsatisfied_required(CHECKLIST)] == ["passport", "poa"]


def test_a_proposal_with_unsatisfied_items_records_the_reason_and_the_items() -> None:
    ack = acknowledgement_for(
        "approve", unsatisfied_required(CHECKLIST), "  Seen in person  ", required=True
    )
    assert ack == Acknowledgement("Seen in person", ("passport", "poa"))


def test_the_dashboard_needs_a_reason_and_names_the_items_in_words() -> None:
    with pytest.raises(InvalidInput) as caught:
        acknowledgement_for("approve", unsatisfied_required(CHECKLIST), "   ", required=True)
    assert caught.value.field == "acknowledgeUnsatisfied"
    assert "Passport, Proof of address" in caught.value.message
    assert "acknowledgeUnsatisfied" not in caught.value.message


def test_the_api_without_a_reason_proposes_as_before() -> None:
    missing = unsatisfied_required(CHECKLIST)
    assert acknowledgement_for("approve", missing, None, required=False) is None


@pytest.mark.parametrize("action", ["countersign", "reject", "hold", "release", "reject_proposal"])
def test_a_reason_on_another_action_is_ignored(action: str) -> None:
    assert acknowledgement_for(action, unsatisfied_required(CHECKLIST), "x", required=True) is None


def test_nothing_unsatisfied_needs_no_acknowledgement() -> None:
    satisfied = [{"key": "a", "label": "A", "required": True, "satisfied": True}]
    nothing = unsatisfied_required(satisfied)
    assert acknowledgement_for("approve", nothing, None, required=True) is None
    assert acknowledgement_for("approve", nothing, "why", required=True) is None


def test_an_overlong_reason_is_refused() -> None:
    with pytest.raises(InvalidInput):
        acknowledgement_for("approve", unsatisfied_required(CHECKLIST), "x" * 2001, required=False)


def test_reminder_due_after_n_days_waiting_and_n_days_after_the_last_reminder() -> None:
    days = 3
    since = NOW - timedelta(days=3)
    assert reminder_due("needs_info", since, None, NOW, days)
    assert not reminder_due("needs_info", NOW - timedelta(days=2, hours=23), None, NOW, days)
    assert not reminder_due("pending", since - timedelta(days=10), None, NOW, days)
    assert not reminder_due("needs_info", since, NOW - timedelta(days=1), NOW, days)
    assert reminder_due("needs_info", since, NOW - timedelta(days=3), NOW, days)


def test_a_note_is_trimmed_nonempty_and_bounded() -> None:
    assert check_note("  Called the director.  ") == "Called the director."
    for bad in ("", "   ", None, 5):
        with pytest.raises(InvalidInput) as caught:
            check_note(bad)
        assert caught.value.field == "text"
    assert check_note("x" * 4000) == "x" * 4000
    with pytest.raises(InvalidInput):
        check_note("x" * 4001)


def test_search_patterns_match_wildcards_literally() -> None:
    assert search_text("  ACME Ltd ") == "acme ltd"
    assert search_text("   ") is None
    assert like_pattern("50%_off\\") == "%50\\%\\_off\\\\%"


def test_a_client_id_is_recognised_by_its_shape() -> None:
    assert is_client_id("app_0mwu8qz8vobfkqbn03zf2c2fu")
    for other in ("app_0mwu8qz8vobfkqbn03zf2c2f", "APP_0mwu8qz8vobfkqbn03zf2c2fu", "acme app"):
        assert not is_client_id(other)


def test_waiting_on() -> None:
    assert waiting_on("needs_info") == "applicant"
    assert {waiting_on(s) for s in ("pending", "pending_approval", "hold")} == {"staff"}
    assert waiting_on("active") is None
    assert waiting_on("rejected") is None


def test_age_words() -> None:
    assert age_words(timedelta(seconds=-5)) == "just now"
    assert age_words(timedelta(minutes=12, seconds=59)) == "12 min"
    assert age_words(timedelta(hours=5, minutes=59)) == "5 h"
    assert age_words(timedelta(days=3, hours=23)) == "3 d"
