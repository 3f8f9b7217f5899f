"""verify(): every check of docs/reference/webhooks.md §7.1 (docs/reference/webhooks.md §6 header
names and format).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime

import pytest
from gatehouse_client import Event, SignatureError, signature_header, verify

SECRET = "whsec_" + "a" * 40
OLD_SECRET = "whsec_" + "b" * 40
NOW = 1_800_000_000
TENANT = "ten_123"


def envelope(**overrides: object) -> bytes:
    body = {
        "id": "evt_1",
        "type": "application.status.changed",
        "apiVersion": "v1",
        "occurredAt": "2026-11-22T10:00:00.000Z",
        "tenantId": TENANT,
        "idempotencyKey": "evt_1",
        "data": {
            "clientId": "app_1",
            "externalRef": None,
            "status": "needs_info",
            "previousStatus": "pending",
            "sequence": 3,
            "reason": "info_request",
        },
    }
    body.update(overrides)
    # Deliberately unusual spacing: verification must use these exact bytes.
    return json.dumps(body, separators=(", ", ":  ")).encode()


def headers_for(
    body: bytes, *, secrets: list[str] | None = None, timestamp: int = NOW, **extra: str
) -> dict[str, str]:
    parsed = json.loads(body)
    headers = {
        "Gatehouse-Event-Id": parsed["id"],
        "Gatehouse-Event-Type": parsed["type"],
        "Gatehouse-Timestamp": str(timestamp),
        "Gatehouse-Attempt": "2",
        "Gatehouse-Signature": signature_header(secrets or [SECRET], timestamp, body),
        "Content-Type": "application/json",
    }
    headers.update(extra)
    return headers


def reason_of(body: bytes, headers: object, **kwargs: object) -> str:
    with pytest.raises(SignatureError) as caught:
        verify(body, headers, kwargs.pop("secrets", SECRET), now=NOW, **kwargs)  # type: ignore[arg-type]
    return caught.value.reason


def test_good_signature_returns_typed_event() -> None:
    body = envelope()
    event = verify(body, headers_for(body), SECRET, now=NOW, expected_tenants={TENANT})
    assert isinstance(event, Event)
    assert (event.id, event.type, event.tenant_id) == (
        "evt_1",
        "application.status.changed",
        TENANT,
    )
    assert event.client_id == "app_1"
    assert event.sequence == 3
    assert event.attempt == 2
    assert event.timestamp == NOW
    assert event.status == "needs_info"
    assert not event.status.is_approved


def test_signature_is_hmac_sha256_of_timestamp_dot_raw_body_with_secret_as_is() -> None:
    body = envelope()
    digest = hmac.new(SECRET.encode(), f"{NOW}.".encode() + body, hashlib.sha256).hexdigest()
    headers = headers_for(body)
    headers["Gatehouse-Signature"] = f"v1={digest}"
    assert verify(body, headers, SECRET, now=NOW).id == "evt_1"
    # A secret with its prefix stripped, or a base64-decoded one, is not the key.
    assert reason_of(body, headers, secrets=SECRET.removeprefix("whsec_")) == "signature_mismatch"


def test_reserialized_body_fails() -> None:
    body = envelope()
    headers = headers_for(body)
    reserialized = json.dumps(json.loads(body)).encode()
    assert reserialized != body
    assert reason_of(reserialized, headers) == "signature_mismatch"


def test_body_must_be_bytes() -> None:
    body = envelope()
    with pytest.raises(TypeError):
        verify(body.decode(), headers_for(body), SECRET, now=NOW)  # type: ignore[arg-type]


def test_wrong_secret_and_tampered_body_fail() -> None:
    body = envelope()
    assert reason_of(body, headers_for(body), secrets="whsec_" + "z" * 40) == "signature_mismatch"
    tampered = body.replace(b"needs_info", b"active")
    assert reason_of(tampered, headers_for(body)) == "signature_mismatch"


def test_any_of_several_signatures_against_any_held_secret() -> None:
    body = envelope()
    # During a rotation the sender signs with both secrets, newest first.
    both = headers_for(body, secrets=[SECRET, OLD_SECRET])
    assert verify(body, both, [OLD_SECRET], now=NOW).id == "evt_1"
    assert verify(body, both, [SECRET], now=NOW).id == "evt_1"
    # The receiver may hold two secrets while the sender signs with one.
    old_only = headers_for(body, secrets=[OLD_SECRET])
    assert verify(body, old_only, [SECRET, OLD_SECRET], now=NOW).id == "evt_1"
    assert reason_of(body, old_only, secrets=[SECRET]) == "signature_mismatch"


def test_unknown_signature_schemes_are_ignored() -> None:
    body = envelope()
    headers = headers_for(body)
    good = headers["Gatehouse-Signature"]
    headers["Gatehouse-Signature"] = f"v0=deadbeef {good} v2=abc"
    assert verify(body, headers, SECRET, now=NOW).id == "evt_1"
    headers["Gatehouse-Signature"] = "v0=" + good[3:]
    assert reason_of(body, headers) == "no_v1_signature"
    del headers["Gatehouse-Signature"]
    assert reason_of(body, headers) == "missing_signature"


@pytest.mark.parametrize("offset", [-300, 300, 0])
def test_timestamp_at_the_tolerance_edge_is_accepted(offset: int) -> None:
    body = envelope()
    headers = headers_for(body, timestamp=NOW + offset)
    assert verify(body, headers, SECRET, now=NOW).id == "evt_1"


@pytest.mark.parametrize("offset", [-301, 301, -86_400])
def test_timestamp_outside_the_tolerance_on_either_side_fails(offset: int) -> None:
    body = envelope()
    assert reason_of(body, headers_for(body, timestamp=NOW + offset)) == (
        "timestamp_out_of_tolerance"
    )


def test_tolerance_is_configurable_and_now_accepts_datetime() -> None:
    body = envelope()
    headers = headers_for(body, timestamp=NOW - 100)
    assert reason_of(body, headers, tolerance=60) == "timestamp_out_of_tolerance"
    now = datetime.fromtimestamp(NOW, UTC)
    assert verify(body, headers, SECRET, now=now).id == "evt_1"


@pytest.mark.parametrize("value", ["1800000000.5", "1.8e9", "abc", "", " ", "-1800000000", "0x1"])
def test_non_integer_timestamp_fails(value: str) -> None:
    body = envelope()
    headers = headers_for(body)
    headers["Gatehouse-Timestamp"] = value
    assert reason_of(body, headers) == "invalid_timestamp"


def test_missing_timestamp_fails() -> None:
    body = envelope()
    headers = headers_for(body)
    del headers["Gatehouse-Timestamp"]
    assert reason_of(body, headers) == "missing_timestamp"


def test_header_event_id_must_equal_body_id() -> None:
    body = envelope()
    headers = headers_for(body)
    headers["Gatehouse-Event-Id"] = "evt_2"
    assert reason_of(body, headers) == "event_id_mismatch"
    del headers["Gatehouse-Event-Id"]
    assert reason_of(body, headers) == "event_id_mismatch"


def test_header_event_type_must_equal_body_type() -> None:
    body = envelope()
    headers = headers_for(body)
    headers["Gatehouse-Event-Type"] = "application.decision.approved"
    assert reason_of(body, headers) == "event_type_mismatch"


def test_tenant_must_be_expected() -> None:
    body = envelope()
    headers = headers_for(body)
    assert reason_of(body, headers, expected_tenants={"ten_other"}) == "unexpected_tenant"
    assert verify(body, headers, SECRET, now=NOW, expected_tenants=[TENANT, "x"]).id == "evt_1"
    no_tenant = envelope(tenantId=None)
    assert reason_of(no_tenant, headers_for(no_tenant), expected_tenants={TENANT}) == (
        "unexpected_tenant"
    )


def test_signed_but_not_a_json_object_fails() -> None:
    body = b"[1, 2]"
    headers = {
        "Gatehouse-Timestamp": str(NOW),
        "Gatehouse-Signature": signature_header([SECRET], NOW, body),
    }
    assert reason_of(body, headers) == "invalid_body"


def test_headers_are_case_insensitive_and_pairs_are_accepted() -> None:
    body = envelope()
    lowered = {k.lower(): v for k, v in headers_for(body).items()}
    assert verify(body, lowered, SECRET, now=NOW).id == "evt_1"
    pairs = list(headers_for(body).items())
    assert verify(body, pairs, SECRET, now=NOW).id == "evt_1"


def test_unknown_event_types_and_fields_are_kept() -> None:
    body = envelope(type="application.future.thing", newField={"x": 1})
    event = verify(body, headers_for(body), SECRET, now=NOW)
    assert event.type == "application.future.thing"
    assert not event.is_known_type
    assert event.extra == {"newField": {"x": 1}}


def test_unknown_status_is_never_approval() -> None:
    body = envelope(data={"clientId": "app_1", "status": "approved", "sequence": 1})
    event = verify(body, headers_for(body), SECRET, now=NOW)
    assert event.status == "approved"
    assert event.status is not None
    assert not event.status.is_approved
    assert not event.status.is_known


def test_secrets_are_required() -> None:
    body = envelope()
    with pytest.raises(ValueError, match="at least one nonempty secret"):
        verify(body, headers_for(body), [], now=NOW)
