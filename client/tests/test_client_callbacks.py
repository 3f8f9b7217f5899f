"""verify_callback(): passphrase check, parsing, unknown codes kept
(docs/reference/verification.md).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from gatehouse_client import CallbackError, CustomerStatus, verify_callback

PASSPHRASE = "correct horse battery"


def callback(**overrides: object) -> bytes:
    body: dict[str, object] = {
        "id": 42,
        "uuid": "3f2b6c1e-0000-4000-8000-000000000001",
        "email": "ada@example.test",
        "phone": "+4400000000",
        "newStatus": 6,
        "updatedAt": "2026-11-22T10:00:00.000Z",
        "event": "customer_status_changed",
        "expiryWarningFor": [],
        "passphrase": PASSPHRASE,
    }
    body.update(overrides)
    return json.dumps(body).encode()


def test_good_callback_is_parsed() -> None:
    result = verify_callback(callback(), PASSPHRASE)
    assert result.uuid.startswith("3f2b6c1e")
    assert result.id == 42
    assert result.new_status == 6
    assert result.new_status.name == "accepted"
    assert result.new_status.is_accepted
    assert result.is_known_event
    assert result.updated_at == datetime(2026, 11, 22, 10, tzinfo=UTC)
    assert "passphrase" not in result.raw
    assert PASSPHRASE not in repr(result)


def test_wrong_or_missing_passphrase_is_refused_with_401() -> None:
    with pytest.raises(CallbackError) as caught:
        verify_callback(callback(passphrase="correct horse battery!"), PASSPHRASE)
    assert caught.value.reason == "passphrase_mismatch"
    assert caught.value.status_code == 401
    assert PASSPHRASE not in str(caught.value)
    with pytest.raises(CallbackError) as caught:
        verify_callback(callback(passphrase=None), PASSPHRASE)
    assert caught.value.reason == "missing_passphrase"


def test_unknown_status_codes_and_events_are_kept_not_rejected() -> None:
    result = verify_callback(callback(newStatus=42, event="customer_merged"), PASSPHRASE)
    assert isinstance(result.new_status, CustomerStatus)
    assert result.new_status == 42
    assert not result.new_status.is_known
    assert not result.new_status.is_accepted
    assert result.new_status.name is None
    assert result.event == "customer_merged"
    assert not result.is_known_event
    reserved = verify_callback(callback(newStatus=8), PASSPHRASE)
    assert reserved.new_status.name == "enhanced"
    assert not reserved.new_status.is_accepted


def test_expiry_warning_documents_and_extra_fields() -> None:
    result = verify_callback(
        callback(event="expiry_warning", expiryWarningFor=["passport"], newField=1), PASSPHRASE
    )
    assert result.expiry_warning_for == ["passport"]
    assert result.extra == {"newField": 1}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json", "invalid_body"),
        (b"[]", "invalid_body"),
        (callback(uuid=None), "missing_uuid"),
        (callback(newStatus="accepted"), "invalid_status"),
        (callback(newStatus=True), "invalid_status"),
    ],
)
def test_malformed_callbacks_are_refused_with_400(body: bytes, reason: str) -> None:
    with pytest.raises(CallbackError) as caught:
        verify_callback(body, PASSPHRASE)
    assert caught.value.reason == reason
    assert caught.value.status_code == 400


def test_mapping_and_text_bodies_are_accepted() -> None:
    assert verify_callback(json.loads(callback()), PASSPHRASE).new_status == 6
    assert verify_callback(callback().decode(), PASSPHRASE).new_status == 6
