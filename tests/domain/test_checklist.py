"""Intake configuration and checklist evaluation (docs/reference/tenant-api.md §5.13, §5;
docs/reference/staff-api.md).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gatehouse.domain.checklist import (
    ConfigurationError,
    Evidence,
    evaluate,
    is_usable_configuration,
    sort_key,
    validate_checklist,
    validate_form_fields,
)

T1 = datetime(2026, 1, 1, tzinfo=UTC)
T2 = datetime(2026, 1, 2, tzinfo=UTC)


def test_valid_checklist_is_canonicalised() -> None:
    items = validate_checklist(
        [
            {"key": "passport", "label": "Passport", "kind": "document", "extra": 1},
            {"key": "idv", "label": "Identity", "kind": "verification", "required": False},
        ]
    )
    assert items == [
        {"key": "passport", "label": "Passport", "kind": "document", "required": True},
        {"key": "idv", "label": "Identity", "kind": "verification", "required": False},
    ]
    assert validate_checklist(None) == []


@pytest.mark.parametrize(
    "checklist",
    [
        "nope",
        [1],
        [{"key": "a", "label": "A", "kind": "photo"}],
        [{"key": "", "label": "A", "kind": "form"}],
        [{"key": "a", "label": "", "kind": "form"}],
        [{"key": "a", "label": "A", "kind": "form", "required": "yes"}],
        [{"key": "a", "label": "A", "kind": "form"}, {"key": "a", "label": "B", "kind": "form"}],
    ],
)
def test_invalid_checklists(checklist: object) -> None:
    with pytest.raises(ConfigurationError):
        validate_checklist(checklist)
    assert not is_usable_configuration(checklist, [])


def test_form_fields() -> None:
    assert validate_form_fields([{"key": "name", "label": "Name", "type": "text"}])[0]["required"]
    with pytest.raises(ConfigurationError):
        validate_form_fields([{"key": "name", "label": "Name", "type": "hologram"}])


def test_sort_key_null_order_is_zero_and_ties_by_creation() -> None:
    keys = [sort_key(None, 3), sort_key(-1, 4), sort_key(0, 1), sort_key(2, 2)]
    assert sorted(keys) == [(-1, 4), (0, 1), (0, 3), (2, 2)]


def test_evaluate_each_kind() -> None:
    checklist = [
        {"key": "passport", "label": "Passport", "kind": "document", "required": True},
        {"key": "utility", "label": "Bill", "kind": "document", "required": False},
        {"key": "form", "label": "Form", "kind": "form", "required": True},
        {"key": "idv", "label": "IDV", "kind": "verification", "required": True},
    ]
    evidence = Evidence(documents={"passport": T1}, submitted_at=T2, verified_at=None)
    result = {item["key"]: item for item in evaluate(checklist, evidence)}
    assert result["passport"]["satisfied"]
    assert result["passport"]["satisfiedAt"] == T1
    assert not result["utility"]["satisfied"]
    assert result["utility"]["required"] is False
    assert result["form"]["satisfiedAt"] == T2
    assert result["idv"] == {
        "key": "idv",
        "label": "IDV",
        "kind": "verification",
        "required": True,
        "satisfied": False,
        "satisfiedAt": None,
    }
    verified = evaluate(checklist, Evidence({}, None, T1))
    assert [i["satisfied"] for i in verified] == [False, False, False, True]
