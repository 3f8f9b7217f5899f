"""The pure rules of an intake change and a repair (docs/case-work.md "Changing the intake",
"Checking a status")."""

from __future__ import annotations

import pytest

from gatehouse.domain.realignment import (
    CaseFacts,
    LastEntry,
    intake_change_refusal,
    kept_answers,
    repaired_status,
    status_after_intake_change,
)

PROPOSAL = LastEntry("approve", "hold", "stf_a")
RELEASE = LastEntry("release", "hold", "stf_a")


@pytest.mark.parametrize(
    ("status", "last", "owes", "expected"),
    [
        ("pending", PROPOSAL, False, "pending_approval"),  # rule 1
        ("needs_info", PROPOSAL, True, "pending_approval"),  # rule 1 comes first
        ("pending_approval", PROPOSAL, False, "pending_approval"),
        ("needs_info", None, False, "pending"),  # rule 2
        ("needs_info", RELEASE, True, "needs_info"),
        ("pending", RELEASE, True, "needs_info"),  # rule 3
        ("pending", None, False, "pending"),
        ("hold", RELEASE, True, "hold"),  # any other status stays
        ("pending_approval", RELEASE, True, "pending_approval"),
        ("active", None, True, "active"),
        ("rejected", None, False, "rejected"),
    ],
)
def test_repair_rules(status: str, last: LastEntry | None, owes: bool, expected: str) -> None:
    assert repaired_status(CaseFacts(status, last, owes)) == expected


def test_an_intake_change_refuses_decided_cases_and_lapses_a_proposal() -> None:
    assert intake_change_refusal("active") is not None
    assert intake_change_refusal("rejected") is not None
    for status in ("pending", "needs_info", "hold", "pending_approval"):
        assert intake_change_refusal(status) is None
    assert status_after_intake_change("pending_approval") == "pending"
    assert status_after_intake_change("hold") == "hold"
    assert status_after_intake_change("needs_info") == "needs_info"


def test_only_answers_both_forms_ask_for_are_kept() -> None:
    answers = {"name": "Ada", "dob": "1815", "stray": "x"}
    assert kept_answers(answers, ["name", "dob"], ["name", "reg"]) == {"name": "Ada"}
    assert kept_answers(answers, [], ["name"]) == {}
