"""`POST /v1/webhooks/{id}/test`: one synchronous signed `webhook.test` (docs/reference/webhooks.md
§4.10).

The envelope is built and signed like a real event (a fresh `evt_` id,
`data` holding only `endpointId`), posted once, and nothing of it is stored:
no event, no delivery, no change to `consecutiveFailures`.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import orjson

from gatehouse.ids import new_id
from gatehouse.outbound.transport import post_json
from gatehouse.timeutil import format_ts
from gatehouse.webhooks import rules
from gatehouse.webhooks.outbox import API_VERSION

SNIPPET_BYTES = 200


def probe_envelope(tenant_id: str, endpoint_id: str, now: datetime, environment: str) -> bytes:
    event_id = new_id("evt")
    envelope = {
        "id": event_id,
        "type": rules.TEST_EVENT_TYPE,
        "apiVersion": API_VERSION,
        "occurredAt": format_ts(now),
        "tenantId": tenant_id,
        "environment": environment,
        "idempotencyKey": event_id,
        "data": {"endpointId": endpoint_id},
    }
    return orjson.dumps(envelope)


def snippet(body_prefix: bytes) -> str:
    """At most 200 bytes of the answer as text (a cut multi-byte character is dropped)."""
    return body_prefix[:SNIPPET_BYTES].decode("utf-8", errors="ignore")


async def send_test(
    *,
    url: str,
    tenant_id: str,
    endpoint_id: str,
    secrets: list[str],
    now: datetime,
    allow_private: bool,
    environment: str,
) -> dict[str, Any]:
    """`{success, httpStatus, latencyMs, responseSnippet, sentHeaders, error}`; the envelope
    carries the tenant's `environment` like every other."""
    body = probe_envelope(tenant_id, endpoint_id, now, environment)
    event_id = orjson.loads(body)["id"]
    headers = rules.delivery_headers(
        event_id=event_id,
        event_type=rules.TEST_EVENT_TYPE,
        timestamp=int(time.time()),
        attempt=1,
        body=body,
        active_secrets=secrets,
    )
    result = await post_json(
        url, body, headers, allow_private=allow_private, keep_body=SNIPPET_BYTES
    )
    return {
        "success": result.success,
        "httpStatus": result.status,
        "latencyMs": round(result.latency_ms),
        "responseSnippet": snippet(result.body_prefix) if result.status is not None else None,
        "sentHeaders": headers,
        "error": result.error,
    }
