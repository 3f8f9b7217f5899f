"""The Standard Webhooks header set on real deliveries from a Gatehouse server
(README: "Webhook receivers"): test sends, captured byte for byte, verified by
the SDK with either header set alone and by the standardwebhooks package,
across a secret rotation."""

from __future__ import annotations

import standardwebhooks
from gatehouse_client import Client, standard_webhooks_key, verify
from receiver_capture import Captured, capturing
from tests.support.factories import TenantFixture
from tests.support.live import free_port


def require_standard_headers(delivery: Captured) -> None:
    assert delivery.header("webhook-signature") is not None, "no Standard Webhooks signature"


def test_test_sends_verify_with_either_header_set_across_a_rotation(
    live_server: str, tenant: TenantFixture
) -> None:
    port = free_port()
    with capturing(port) as receiver, Client(live_server, tenant.api_key) as client:
        endpoint = client.webhooks.create(f"http://127.0.0.1:{port}/hooks", ["*"])
        secret = endpoint.secret or ""
        assert client.webhooks.test(endpoint.id).success
        (first,) = receiver.deliveries
        require_standard_headers(first)

        # A freshly issued secret is whsec_ and 48 of [A-Za-z0-9]: good for both sets.
        assert secret.startswith("whsec_")
        assert len(secret) == 54
        assert secret[6:].isalnum()
        assert standard_webhooks_key(secret) is not None
        assert first.header("webhook-id") == first.header("Gatehouse-Event-Id")
        assert first.header("webhook-timestamp") == first.header("Gatehouse-Timestamp")

        both = verify(first.body, first.headers, secret, expected_tenants=[tenant.tenant_id])
        assert both.signature_scheme == "gatehouse"
        standard = verify(first.body, first.only("webhook-"), secret)
        assert standard.signature_scheme == "standard-webhooks"
        assert standard.id == both.id
        gatehouse = verify(first.body, first.only("gatehouse-"), secret)
        assert gatehouse.signature_scheme == "gatehouse"
        assert standardwebhooks.Webhook(secret).verify(first.body, dict(first.headers))

        rotated = client.webhooks.rotate_secret(endpoint.id)
        assert client.webhooks.test(endpoint.id).success
        second = receiver.deliveries[-1]
        values = (second.header("webhook-signature") or "").split(" ")
        assert len(values) == 2
        assert all(v.startswith("v1,") for v in values)
        for held in ([secret], [rotated.secret], [rotated.secret, secret]):
            assert verify(second.body, second.only("webhook-"), held).id
            assert verify(second.body, second.only("gatehouse-"), held).id
        for key in (secret, rotated.secret):
            assert standardwebhooks.Webhook(key).verify(second.body, dict(second.headers))
