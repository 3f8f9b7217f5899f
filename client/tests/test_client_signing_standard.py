"""verify() with the Standard Webhooks header set, beside the Gatehouse one.

Signatures are cross-checked against independent implementations: the
`standardwebhooks` package for `webhook-signature`, and Stripe's signature
scheme (the same HMAC of "<timestamp>.<body>", hex, secret as-is) for
`Gatehouse-Signature`.
"""

from __future__ import annotations

import hmac
import json
import random
import string
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import standardwebhooks
import stripe
from gatehouse_client import (
    Event,
    SignatureError,
    SqliteDedupStore,
    WebhookReceiver,
    compute_standard_signature,
    signature_header,
    standard_signature_header,
    standard_webhooks_key,
    verify,
)

TENANT = "ten_123"
_rng = random.Random(7)


def new_style_secret() -> str:
    """What Gatehouse issues now: `whsec_` and 48 characters of [A-Za-z0-9]."""
    return "whsec_" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(48))


SECRET = new_style_secret()
OTHER_SECRET = new_style_secret()
# Issued before Standard Webhooks: URL-safe text, not base64 ("-" and "_").
OLD_STYLE_SECRET = "whsec_Zm9v-YmFy_" + "x" * 30


def now() -> int:
    # The standardwebhooks and stripe verifiers read the real clock.
    return int(time.time())


def envelope(**overrides: object) -> bytes:
    body: dict[str, object] = {
        "id": "evt_1",
        "type": "application.decision.approved",
        "apiVersion": "v1",
        "occurredAt": "2026-11-22T10:00:00.000Z",
        "tenantId": TENANT,
        "idempotencyKey": "evt_1",
        "environment": "live",
        "data": {
            "clientId": "app_1",
            "externalRef": "crm-1",
            "status": "active",
            "previousStatus": "pending_approval",
            "sequence": 4,
            "action": "approved",
            "actorRole": "mlro",
            "comment": "Welcome — ok",
        },
    }
    body.update(overrides)
    # Unusual spacing and non-ASCII text: verification must use these exact bytes.
    return json.dumps(body, separators=(", ", ":  "), ensure_ascii=False).encode()


def standard_headers(body: bytes, secrets: list[str], timestamp: int) -> dict[str, str]:
    """Signed by the standardwebhooks package, one value per secret (a rotation)."""
    msg_id = json.loads(body)["id"]
    when = datetime.fromtimestamp(timestamp, UTC)
    values = [standardwebhooks.Webhook(s).sign(msg_id, when, body.decode("utf-8")) for s in secrets]
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(values),
        "Content-Type": "application/json",
    }


def gatehouse_headers(body: bytes, secrets: list[str], timestamp: int) -> dict[str, str]:
    parsed = json.loads(body)
    return {
        "Gatehouse-Event-Id": parsed["id"],
        "Gatehouse-Event-Type": parsed["type"],
        "Gatehouse-Timestamp": str(timestamp),
        "Gatehouse-Attempt": "3",
        "Gatehouse-Signature": signature_header(secrets, timestamp, body),
    }


def delivery_headers(body: bytes, secrets: list[str], timestamp: int) -> dict[str, str]:
    """Both header sets, as a Gatehouse delivery carries them."""
    msg_id = json.loads(body)["id"]
    return {
        **gatehouse_headers(body, secrets, timestamp),
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard_signature_header(secrets, msg_id, timestamp, body),
    }


def reason_of(body: bytes, headers: object, secrets: object, **kwargs: object) -> str:
    with pytest.raises(SignatureError) as caught:
        verify(body, headers, secrets, **kwargs)  # type: ignore[arg-type]
    return caught.value.reason


# -- interoperability with the standardwebhooks package -------------------------------------


def test_standardwebhooks_signature_verifies_with_the_sdk() -> None:
    body, ts = envelope(), now()
    event = verify(body, standard_headers(body, [SECRET], ts), SECRET, expected_tenants={TENANT})
    assert isinstance(event, Event)
    assert (event.id, event.type, event.timestamp) == ("evt_1", "application.decision.approved", ts)
    assert event.signature_scheme == "standard-webhooks"
    assert event.attempt is None  # Gatehouse-Attempt is not part of the standard set


def test_sdk_signature_verifies_with_standardwebhooks() -> None:
    body, ts = envelope(), now()
    headers = delivery_headers(body, [SECRET], ts)
    parsed = standardwebhooks.Webhook(SECRET).verify(body, headers)
    assert parsed == json.loads(body)
    # The single value is exactly what the package computes.
    when = datetime.fromtimestamp(ts, UTC)
    assert headers["webhook-signature"] == standardwebhooks.Webhook(SECRET).sign(
        "evt_1", when, body.decode()
    )
    assert headers["webhook-signature"] == "v1," + compute_standard_signature(
        SECRET, "evt_1", ts, body
    )


def test_rotation_two_secrets_two_values_both_ways() -> None:
    body, ts = envelope(), now()
    # The package signs with both active secrets, newest first.
    theirs = standard_headers(body, [OTHER_SECRET, SECRET], ts)
    assert len(theirs["webhook-signature"].split(" ")) == 2
    for held in ([SECRET], [OTHER_SECRET], [OTHER_SECRET, SECRET]):
        assert verify(body, theirs, held).id == "evt_1"
    assert reason_of(body, theirs, [new_style_secret()]) == "signature_mismatch"
    # The SDK's two-value header verifies with the package under either secret.
    ours = delivery_headers(body, [OTHER_SECRET, SECRET], ts)
    assert len(ours["webhook-signature"].split(" ")) == 2
    for secret in (SECRET, OTHER_SECRET):
        assert standardwebhooks.Webhook(secret).verify(body, ours)["id"] == "evt_1"
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        standardwebhooks.Webhook(new_style_secret()).verify(body, ours)
    # Receiver holds old and new secret while the sender signs with the new one only.
    only_new = standard_headers(body, [OTHER_SECRET], ts)
    assert verify(body, only_new, [OTHER_SECRET, SECRET]).id == "evt_1"
    assert reason_of(body, only_new, [SECRET]) == "signature_mismatch"


def test_standard_key_is_the_base64_decoding_after_whsec() -> None:
    for secret in (SECRET, OTHER_SECRET, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"):
        assert standard_webhooks_key(secret) == standardwebhooks.Webhook(secret)._whsecret
    assert standard_webhooks_key(SECRET) == standard_webhooks_key(SECRET.removeprefix("whsec_"))
    assert standard_webhooks_key(SECRET) is not None
    assert len(standard_webhooks_key(SECRET) or b"") == 36  # 48 base64 characters
    assert standard_webhooks_key("whsec_" + "A" * 43) == b"\x00" * 32  # unpadded is fine
    for unusable in (OLD_STYLE_SECRET, "whsec_", "whsec_a", "whsec_ab=c", "whsec_ab cd"):
        assert standard_webhooks_key(unusable) is None
    with pytest.raises(ValueError, match="no Standard Webhooks key"):
        compute_standard_signature(OLD_STYLE_SECRET, "evt_1", 1, b"{}")


# -- the Gatehouse set against Stripe's implementation of the same scheme -------------------


def test_stripe_scheme_signature_verifies_as_gatehouse_signature() -> None:
    body, ts = envelope(), now()
    values = []
    for secret in (OTHER_SECRET, OLD_STYLE_SECRET):  # a rotation; the old one is not base64
        stripe_header = stripe.WebhookSignature.generate_signature_header(
            body.decode(), secret, timestamp=ts
        )
        stamp, value = stripe_header.split(",")
        assert stamp == f"t={ts}"
        values.append(value)
    headers = gatehouse_headers(body, [SECRET], ts)
    headers["Gatehouse-Signature"] = " ".join(values)
    for held in ([OTHER_SECRET], [OLD_STYLE_SECRET], [SECRET, OLD_STYLE_SECRET]):
        event = verify(body, headers, held)
        assert event.signature_scheme == "gatehouse"
        assert event.attempt == 3
    assert reason_of(body, headers, [SECRET]) == "signature_mismatch"


def test_gatehouse_signature_verifies_with_stripe() -> None:
    body, ts = envelope(), now()
    headers = gatehouse_headers(body, [SECRET, OLD_STYLE_SECRET], ts)
    values = headers["Gatehouse-Signature"].split(" ")
    stripe_header = ",".join([f"t={headers['Gatehouse-Timestamp']}", *values])
    for secret in (SECRET, OLD_STYLE_SECRET):
        assert stripe.WebhookSignature.verify_header(body, stripe_header, secret, tolerance=300)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(body, stripe_header, OTHER_SECRET, tolerance=300)


# -- which header set is verified -----------------------------------------------------------


def test_both_sets_present_verifies_the_gatehouse_set() -> None:
    body, ts = envelope(), now()
    headers = delivery_headers(body, [SECRET], ts)
    assert verify(body, headers, SECRET).signature_scheme == "gatehouse"
    # The Standard Webhooks set is ignored then: broken, it changes nothing ...
    broken_standard = {**headers, "webhook-signature": "v1,AAAA", "webhook-id": "evt_x"}
    assert verify(body, broken_standard, SECRET).signature_scheme == "gatehouse"
    # ... and valid, it does not rescue a broken Gatehouse set (no fallback).
    broken_gatehouse = {**headers, "Gatehouse-Signature": "v1=" + "0" * 64}
    assert reason_of(body, broken_gatehouse, SECRET) == "signature_mismatch"
    assert reason_of(body, {**headers, "Gatehouse-Event-Type": "x"}, SECRET) == (
        "event_type_mismatch"
    )


def test_old_style_secret_keeps_working_for_gatehouse_deliveries() -> None:
    body, ts = envelope(), now()
    headers = gatehouse_headers(body, [OLD_STYLE_SECRET], ts)
    # What a server that signs both sets sends for a secret that is not base64:
    # a webhook-signature it computed some other way; the SDK never needs it.
    headers.update(
        {"webhook-id": "evt_1", "webhook-timestamp": str(ts), "webhook-signature": "v1,AAAA"}
    )
    assert verify(body, headers, OLD_STYLE_SECRET).signature_scheme == "gatehouse"


def test_old_style_secret_cannot_verify_the_standard_set() -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET], ts)
    assert reason_of(body, headers, [OLD_STYLE_SECRET]) == "no_usable_secret"
    # Held beside a usable secret it is skipped, not an error.
    assert verify(body, headers, [OLD_STYLE_SECRET, SECRET]).id == "evt_1"
    # The standardwebhooks package, lenient, keys the old secret with "-" and "_"
    # dropped; the SDK does not guess a key for it.
    lenient = standard_headers(body, [OLD_STYLE_SECRET], ts)
    assert reason_of(body, lenient, [OLD_STYLE_SECRET]) == "no_usable_secret"


def test_standard_header_names_are_case_insensitive_and_pairs_work() -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET], ts)
    upper = {k.upper(): v for k, v in headers.items()}
    titled = [(k.title(), v) for k, v in headers.items()]
    raw_pairs = [(k.encode(), v.encode()) for k, v in headers.items()]
    for variant in (upper, titled, raw_pairs):
        assert verify(body, variant, SECRET).signature_scheme == "standard-webhooks"  # type: ignore[arg-type]


# -- the checks of the standard set ---------------------------------------------------------


@pytest.mark.parametrize("offset", [-300, 0, 300])
def test_standard_timestamp_at_the_tolerance_edge_is_accepted(offset: int) -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET], ts + offset)
    assert verify(body, headers, SECRET, now=ts).timestamp == ts + offset


@pytest.mark.parametrize("offset", [-301, 301])
def test_standard_timestamp_outside_the_tolerance_fails(offset: int) -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET], ts + offset)
    assert reason_of(body, headers, SECRET, now=ts) == "timestamp_out_of_tolerance"
    assert verify(body, headers, SECRET, now=ts, tolerance=400).id == "evt_1"


@pytest.mark.parametrize("value", ["1.5", "abc", "", "-1", "0x10"])
def test_standard_timestamp_must_be_integer_seconds(value: str) -> None:
    body, ts = envelope(), now()
    headers = {**standard_headers(body, [SECRET], ts), "webhook-timestamp": value}
    assert reason_of(body, headers, SECRET) == "invalid_timestamp"


def test_missing_standard_headers() -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET], ts)
    no_ts = {k: v for k, v in headers.items() if k != "webhook-timestamp"}
    assert reason_of(body, no_ts, SECRET) == "missing_timestamp"
    no_id = {k: v for k, v in headers.items() if k != "webhook-id"}
    assert reason_of(body, no_id, SECRET) == "missing_event_id"
    no_sig = {k: v for k, v in headers.items() if k != "webhook-signature"}
    assert reason_of(body, no_sig, SECRET) == "missing_signature"
    assert reason_of(body, {}, SECRET) == "missing_timestamp"


def test_unknown_versions_and_malformed_values_are_ignored() -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET], ts)
    good = headers["webhook-signature"]
    headers["webhook-signature"] = f"v1a,c2lnbmF0dXJl v2,{good[3:]} v1,not*base64 v1 {good}"
    assert verify(body, headers, SECRET).id == "evt_1"
    headers["webhook-signature"] = f"v1a,{good[3:]} v1=abc"
    assert reason_of(body, headers, SECRET) == "no_v1_signature"


def test_id_timestamp_and_body_are_all_signed() -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET], ts)
    assert reason_of(body, {**headers, "webhook-id": "evt_2"}, SECRET) == "signature_mismatch"
    moved = {**headers, "webhook-timestamp": str(ts - 1)}
    assert reason_of(body, moved, SECRET) == "signature_mismatch"
    reserialized = json.dumps(json.loads(body)).encode()
    assert reason_of(reserialized, headers, SECRET) == "signature_mismatch"
    tampered = body.replace(b'"active"', b'"reject"')
    assert reason_of(tampered, headers, SECRET) == "signature_mismatch"


def test_signed_id_must_equal_the_body_id_and_tenant_be_expected() -> None:
    body, ts = envelope(), now()
    msg_id = "evt_other"  # a validly signed webhook-id that is not this event's id
    headers = {
        "webhook-id": msg_id,
        "webhook-timestamp": str(ts),
        "webhook-signature": standard_signature_header([SECRET], msg_id, ts, body),
    }
    assert reason_of(body, headers, SECRET) == "event_id_mismatch"
    good = standard_headers(body, [SECRET], ts)
    assert reason_of(body, good, SECRET, expected_tenants={"ten_other"}) == "unexpected_tenant"
    untyped = envelope(type=None)
    signed = standard_headers(untyped, [SECRET], ts)
    assert reason_of(untyped, signed, SECRET) == "event_type_mismatch"
    not_json = b"[1]"
    signed_list = {
        "webhook-id": "evt_1",
        "webhook-timestamp": str(ts),
        "webhook-signature": standard_signature_header([SECRET], "evt_1", ts, not_json),
    }
    assert reason_of(not_json, signed_list, SECRET) == "invalid_body"


def test_every_signature_is_compared_against_every_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body, ts = envelope(), now()
    headers = standard_headers(body, [SECRET, OTHER_SECRET], ts)
    calls: list[int] = []
    real = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)
    verify(body, headers, [SECRET, OTHER_SECRET])
    assert len(calls) == 4  # 2 secrets x 2 values, no early exit on the first match


def test_receiver_accepts_standard_only_deliveries(tmp_path: Path) -> None:
    body, ts = envelope(), now()
    store = SqliteDedupStore(tmp_path / "inbox.db")
    receiver = WebhookReceiver([OTHER_SECRET, SECRET], store, expected_tenants=[TENANT])
    headers = standard_headers(body, [SECRET], ts)
    first = receiver.receive(body, list(headers.items()))
    assert first.status_code == 200
    assert not first.duplicate
    assert first.event is not None
    assert first.event.signature_scheme == "standard-webhooks"
    assert receiver.receive(body, headers).duplicate
    bad = {
        **headers,
        "webhook-signature": standard_signature_header([new_style_secret()], "evt_1", ts, body),
    }
    assert receiver.receive(body, bad).status_code == 401
    store.close()
