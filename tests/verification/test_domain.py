"""The pure rules of `gatehouse.domain.verification` (docs/reference/verification.md
§5.1, §3, §5.2).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gatehouse.domain import verification as rules

NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)
FACTS = rules.CustomerFacts(id=7, uuid="u-1", email="a@b.c", phone="+1", status=6, updated_at=NOW)


def test_status_names_and_emitted_codes() -> None:
    assert {2, 5, 6, 7, 9, 10} == rules.EMITTED_STATUSES
    assert rules.status_name(6) == "Accepted"
    assert rules.status_name(9) == "Conflict"
    assert rules.status_name(10) == "Duplicate"
    assert rules.status_name(99) == "Unknown"
    for code in (2, 5, 6, 7, 9, 10):
        assert rules.is_settable(code)
    for code in (1, 3, 4, 8, 0, 11, True, 6.0, "6", None):
        assert not rules.is_settable(code)


def test_document_types_are_snake_case() -> None:
    assert rules.document_type("passport") == "passport"
    assert rules.document_type("emiratesId") == "emirates_id"
    assert rules.document_type("egyptNationalId") == "egypt_national_id"
    assert rules.document_type("egypt_national_id") == "egypt_national_id"
    assert rules.document_type("Passport") is None
    assert rules.document_type(3) is None


def test_payload_has_exactly_the_spec_fields_in_order() -> None:
    payload = rules.with_passphrase(
        rules.callback_payload(FACTS, rules.EVENT_STATUS_CHANGED), "secret-phrase"
    )
    assert list(payload) == list(rules.PAYLOAD_KEYS)
    assert payload == {
        "id": 7,
        "uuid": "u-1",
        "email": "a@b.c",
        "phone": "+1",
        "newStatus": 6,
        "updatedAt": "2026-11-22T10:00:00.000Z",
        "event": "customer_status_changed",
        "expiryWarningFor": [],
        "passphrase": "secret-phrase",
    }


def test_expiry_warning_for_is_empty_except_on_expiry_warning() -> None:
    warned = ["passport"]
    assert rules.callback_payload(FACTS, rules.EVENT_CREATED, warned)["expiryWarningFor"] == []
    assert (
        rules.callback_payload(FACTS, rules.EVENT_EXPIRY_WARNING, warned)["expiryWarningFor"]
        == warned
    )


def test_reserved_codes_and_unknown_events_are_never_built() -> None:
    for code in (1, 3, 4, 8):
        with pytest.raises(ValueError, match=f"status {code} is never sent"):
            rules.callback_payload(
                rules.CustomerFacts(1, "u", "e@x", "p", code, NOW), rules.EVENT_STATUS_CHANGED
            )
    with pytest.raises(ValueError, match="unknown event 'customer_deleted'"):
        rules.callback_payload(FACTS, "customer_deleted")


def test_retry_schedule_is_one_plus_three_scaled() -> None:
    assert rules.MAX_ATTEMPTS == 4
    assert [rules.retry_delay(n, 1.0) for n in (1, 2, 3)] == [10.0, 20.0, 40.0]
    assert [rules.retry_delay(n, 0.5) for n in (1, 2, 3)] == [5.0, 10.0, 20.0]
    assert rules.retry_delay(4, 1.0) is None
    assert rules.retry_delay(0, 1.0) is None


def test_success_is_any_2xx() -> None:
    assert all(rules.is_success(code) for code in (200, 201, 202, 204, 299))
    assert not any(rules.is_success(code) for code in (None, 199, 300, 301, 401, 500))


def doc(days: float, *, warned: bool = False, handled: bool = False) -> rules.DocumentState:
    return rules.DocumentState("passport", NOW + timedelta(days=days), warned, handled)


def test_warning_window() -> None:
    assert rules.needs_warning(doc(30), NOW)
    assert rules.needs_warning(doc(0.001), NOW)
    assert not rules.needs_warning(doc(30.0001), NOW)
    assert not rules.needs_warning(doc(10, warned=True), NOW)
    assert not rules.needs_warning(doc(0), NOW)  # expired: moved to Draft instead
    assert not rules.needs_warning(doc(-1), NOW)


def test_expiry_acts_once() -> None:
    assert rules.has_expired(doc(0), NOW)
    assert rules.has_expired(doc(-3), NOW)
    assert not rules.has_expired(doc(0.001), NOW)
    assert not rules.has_expired(doc(-3, handled=True), NOW)


def test_warned_types_are_distinct_in_order() -> None:
    documents = [
        rules.DocumentState("emirates_id", NOW, False, False),
        rules.DocumentState("passport", NOW, False, False),
        rules.DocumentState("emirates_id", NOW, False, False),
    ]
    assert rules.warned_types(documents) == ["emirates_id", "passport"]
