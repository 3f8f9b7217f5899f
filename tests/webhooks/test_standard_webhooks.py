"""The Standard Webhooks header set (docs/reference/webhooks.md §10): `webhook-id`,
`webhook-timestamp` and `webhook-signature` on every delivery and test send, verified by the
`standardwebhooks` package and, for `Gatehouse-Signature`, by Stripe's verifier, on real
deliveries from the worker to a loopback receiver, through a secret rotation, and for a
secret issued before the header set (no base64 key: no value in `webhook-signature`)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import httpx
import pytest
import standardwebhooks
import stripe
from sqlalchemy import update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import WebhookSecret
from gatehouse.webhooks import rules
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.support.factories import TenantFixture
from tests.webhooks.conftest import create_endpoint, emit, wait_requests
from tests.webhooks.receiver import Received, Receiver
from tests.webhooks.support import first_verified_delivery, rotate_secret

BODY = b'{"id":"evt_1","type":"webhook.test"}'
# A secret as issued before Standard Webhooks: URL-safe text holding `-` and `_`.
LEGACY_SECRET = "whsec_Ab-cD_efGhIjKlMnOpQrStUvWxYz0123456789-_AbC"


def stripe_header(received: Received) -> str:
    """Gatehouse-Signature rebuilt the way Stripe's library reads it: `t=…,v1=…`."""
    signatures = ",".join(received.headers["gatehouse-signature"].split(" "))
    return f"t={received.headers['gatehouse-timestamp']},{signatures}"


def verify_with_stripe(received: Received, secret: str) -> None:
    stripe.WebhookSignature.verify_header(
        received.body.decode("utf-8"), stripe_header(received), secret, tolerance=300
    )


def verify_with_standard(received: Received, secret: str) -> None:
    standardwebhooks.Webhook(secret).verify(received.body, dict(received.headers))


def test_new_secrets_are_48_alphanumerics_that_decode_as_base64() -> None:
    for _ in range(50):
        secret = rules.new_secret()
        assert secret.startswith("whsec_")
        assert len(secret) == 54
        assert secret[6:].isascii()
        assert secret[6:].isalnum()
        key = rules.standard_key(secret)
        assert key is not None
        assert len(key) == 36
        assert key == base64.b64decode(secret[6:])


def test_standard_key_refuses_what_is_not_base64() -> None:
    assert rules.standard_key(LEGACY_SECRET) is None
    assert rules.standard_key("whsec_") is None
    assert rules.standard_key("whsec_abcde") is None  # 5 characters: no base64 length
    # An older secret that happens to be base64 (no - or _) has a key: padding is optional.
    assert rules.standard_key("whsec_" + "A" * 43) == base64.b64decode("A" * 43 + "=")


def test_signature_values_match_the_specification_and_the_library() -> None:
    secret = rules.new_secret()
    timestamp = int(time.time())
    header = rules.standard_signature_header("evt_1", timestamp, BODY, [secret])
    key = base64.b64decode(secret[6:])
    digest = hmac.new(key, f"evt_1.{timestamp}.".encode() + BODY, hashlib.sha256).digest()
    assert header == "v1," + base64.b64encode(digest).decode()
    headers = rules.delivery_headers(
        event_id="evt_1",
        event_type="webhook.test",
        timestamp=timestamp,
        attempt=1,
        body=BODY,
        active_secrets=[secret],
    )
    assert headers["webhook-id"] == headers["Gatehouse-Event-Id"] == "evt_1"
    assert headers["webhook-timestamp"] == headers["Gatehouse-Timestamp"] == str(timestamp)
    assert headers["webhook-signature"] == header
    standardwebhooks.Webhook(secret).verify(BODY, headers)


def test_a_secret_without_a_key_signs_only_the_gatehouse_header() -> None:
    timestamp = int(time.time())
    new = rules.new_secret()
    legacy_only = rules.delivery_headers(
        event_id="evt_1",
        event_type="webhook.test",
        timestamp=timestamp,
        attempt=1,
        body=BODY,
        active_secrets=[LEGACY_SECRET],
    )
    assert "webhook-signature" not in legacy_only
    assert legacy_only["webhook-id"] == "evt_1"
    assert legacy_only["Gatehouse-Signature"].startswith("v1=")
    rotating = rules.delivery_headers(
        event_id="evt_1",
        event_type="webhook.test",
        timestamp=timestamp,
        attempt=1,
        body=BODY,
        active_secrets=[new, LEGACY_SECRET],
    )
    assert len(rotating["Gatehouse-Signature"].split(" ")) == 2
    assert len(rotating["webhook-signature"].split(" ")) == 1
    standardwebhooks.Webhook(new).verify(BODY, rotating)


async def test_real_deliveries_verify_with_both_libraries_across_a_rotation(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created, event_id, first = await first_verified_delivery(client, tenant, runtime, receiver)
    first_secret = created["secret"]
    assert first.headers["webhook-id"] == event_id == first.headers["gatehouse-event-id"]
    assert first.headers["webhook-timestamp"] == first.headers["gatehouse-timestamp"]
    assert first.headers["webhook-signature"].startswith("v1,")
    verify_with_standard(first, first_secret)
    verify_with_stripe(first, first_secret)

    second_secret = await rotate_secret(client, tenant, created["id"])
    receiver.secrets = [second_secret, first_secret]
    await emit(runtime, tenant.tenant_id)
    second = (await wait_requests(receiver, 2))[-1]
    assert second.verified, second.refusal
    values = second.headers["webhook-signature"].split(" ")
    assert len(values) == 2
    assert all(value.startswith("v1,") for value in values)
    for secret in (first_secret, second_secret):  # a receiver holding either one verifies
        verify_with_standard(second, secret)
        verify_with_stripe(second, secret)
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        verify_with_standard(second, rules.new_secret())
    with pytest.raises(stripe.SignatureVerificationError):
        verify_with_stripe(second, rules.new_secret())


async def test_test_sends_carry_and_list_the_standard_headers(
    client: httpx.AsyncClient, tenant: TenantFixture, receiver: Receiver
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    answer = await client.post(f"/v1/webhooks/{created['id']}/test", headers=tenant.headers)
    assert answer.status_code == 200, answer.text
    sent = answer.json()["sentHeaders"]
    assert {"webhook-id", "webhook-timestamp", "webhook-signature"} <= set(sent)
    [got] = await wait_requests(receiver, 1)
    assert got.headers["webhook-signature"] == sent["webhook-signature"]
    verify_with_standard(got, created["secret"])
    verify_with_stripe(got, created["secret"])


async def test_an_endpoint_still_on_a_legacy_secret(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    async with runtime.db.write() as session:
        await session.execute(
            update(WebhookSecret)
            .where(WebhookSecret.endpoint_id == created["id"])
            .values(secret_encrypted=runtime.crypto.encrypt_text(LEGACY_SECRET))
        )
    receiver.secrets = [LEGACY_SECRET]
    await emit(runtime, tenant.tenant_id)
    [got] = await wait_requests(receiver, 1)
    assert got.verified, got.refusal
    assert "webhook-signature" not in got.headers
    assert got.headers["webhook-id"] == got.headers["gatehouse-event-id"]
    verify_with_stripe(got, LEGACY_SECRET)
    # Rotating to a new secret brings the Standard Webhooks signature back at once.
    new_secret = await rotate_secret(client, tenant, created["id"])
    receiver.secrets = [new_secret, LEGACY_SECRET]
    await emit(runtime, tenant.tenant_id)
    second = (await wait_requests(receiver, 2))[-1]
    assert len(second.headers["webhook-signature"].split(" ")) == 1
    assert len(second.headers["gatehouse-signature"].split(" ")) == 2
    verify_with_standard(second, new_secret)
    verify_with_stripe(second, LEGACY_SECRET)
