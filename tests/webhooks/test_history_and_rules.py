"""Delivery history paging, strict URL checks at registration, and the pure rules."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from gatehouse.runtime import Runtime
from gatehouse.webhooks import rules
from tests.support.factories import TenantFixture
from tests.webhooks.conftest import create_endpoint, emit

NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


async def test_history_is_newest_first_and_cursor_paged(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    path = f"/v1/webhooks/{created['id']}/deliveries"
    event_ids = [await emit(runtime, tenant.tenant_id) for _ in range(5)]
    first = await client.get(path, params={"limit": 2}, headers=tenant.headers)
    assert first.status_code == 200
    page = first.json()
    assert set(page) == {"data", "nextCursor", "hasMore"}
    assert page["hasMore"] is True
    assert page["nextCursor"]
    assert set(page["data"][0]) == {
        "id",
        "eventId",
        "eventType",
        "status",
        "attempts",
        "createdAt",
        "lastAttemptAt",
        "nextAttemptAt",
        "lastHttpStatus",
        "lastError",
    }
    seen = [d["eventId"] for d in page["data"]]
    cursor = page["nextCursor"]
    while cursor:
        more = (
            await client.get(path, params={"limit": 2, "cursor": cursor}, headers=tenant.headers)
        ).json()
        seen += [d["eventId"] for d in more["data"]]
        cursor = more["nextCursor"]
        if not more["hasMore"]:
            assert cursor is None
    assert seen == list(reversed(event_ids))
    filtered = (await client.get(path, params={"status": "dead"}, headers=tenant.headers)).json()
    assert filtered == {"data": [], "nextCursor": None, "hasMore": False}
    # A cursor is bound to the filters it was issued with.
    refused = await client.get(
        path, params={"status": "pending", "cursor": page["nextCursor"]}, headers=tenant.headers
    )
    assert refused.status_code == 400


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "abc"},
        {"status": "failed"},
        {"cursor": "forged.cursor"},
        {"bogus": "1"},
    ],
)
async def test_history_query_validation(
    client: httpx.AsyncClient, tenant: TenantFixture, params: dict[str, str]
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    response = await client.get(
        f"/v1/webhooks/{created['id']}/deliveries", params=params, headers=tenant.headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"


def test_nominal_schedule_and_jitter_bounds() -> None:
    nominal = [rules.nominal_delay(n) for n in range(1, 12)]
    assert nominal == [30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 21600]
    assert sum(nominal) == 14 * 3600 + 31 * 60 + 30  # docs/reference/webhooks.md §6.3: 14h 31m 30s
    rng = random.Random(7)
    for attempts in range(1, 12):
        d = rules.nominal_delay(attempts)
        for _ in range(200):
            delay = rules.jittered_delay(attempts, 0.5, rng)
            assert d / 2 * 0.5 <= delay <= d * 0.5


def test_next_step_cap_bound_and_retry_after() -> None:
    fail = rules.Attempted(status=500, error="HTTP 500")
    step = rules.next_step(
        fail, attempts_made=1, first_attempt_at=NOW, now=NOW, max_attempts=12, scale=1.0
    )
    assert step.status == "pending"
    assert step.retry_at is not None
    assert timedelta(seconds=15) <= step.retry_at - NOW <= timedelta(seconds=30)
    assert (
        rules.next_step(
            fail, attempts_made=12, first_attempt_at=NOW, now=NOW, max_attempts=12, scale=1.0
        ).status
        == "dead"
    )
    # 20 attempts: the 24 h bound from the first attempt ends the delivery first.
    late = NOW + timedelta(hours=21, minutes=1)  # any 3-6 h delay passes 24 h
    assert (
        rules.next_step(
            fail, attempts_made=15, first_attempt_at=NOW, now=late, max_attempts=20, scale=1.0
        ).status
        == "dead"
    )
    gone = rules.Attempted(status=410, error="HTTP 410")
    assert (
        rules.next_step(
            gone, attempts_made=1, first_attempt_at=NOW, now=NOW, max_attempts=12, scale=1.0
        ).status
        == "dead"
    )
    busy = rules.Attempted(status=429, error="HTTP 429", retry_after="120")
    step = rules.next_step(
        busy, attempts_made=1, first_attempt_at=NOW, now=NOW, max_attempts=12, scale=1.0
    )
    assert step.retry_at == NOW + timedelta(seconds=120)
    dated = rules.Attempted(
        status=503, error="HTTP 503", retry_after="Sun, 22 Nov 2026 10:05:00 GMT"
    )
    step = rules.next_step(
        dated, attempts_made=1, first_attempt_at=NOW, now=NOW, max_attempts=12, scale=1.0
    )
    assert step.retry_at == NOW + timedelta(minutes=5)
    # Not honoured on other statuses, nor beyond the bound, nor when invalid.
    for status, value in [(500, "120"), (429, "999999"), (429, "soon")]:
        step = rules.next_step(
            rules.Attempted(status=status, error="x", retry_after=value),
            attempts_made=1,
            first_attempt_at=NOW,
            now=NOW,
            max_attempts=12,
            scale=1.0,
        )
        assert step.retry_at is not None
        assert step.retry_at - NOW <= timedelta(seconds=30)


def test_signature_header_and_filters() -> None:
    header = rules.signature_header(1700000000, b'{"a":1}', ["whsec_new", "whsec_old"])
    parts = header.split(" ")
    assert len(parts) == 2
    assert all(p.startswith("v1=") and len(p) == 67 for p in parts)
    import hashlib
    import hmac

    expected = hmac.new(b"whsec_new", b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
    assert parts[0] == "v1=" + expected
    assert rules.filter_matches(["application.decision.*"], "application.decision.hold")
    assert not rules.filter_matches(["application.decision.*"], "application.submitted")
    assert rules.filter_matches(["*"], "application.info_request.closed")
    secret = rules.new_secret()
    assert secret.startswith("whsec_")
    assert 32 <= len(secret) - 6 <= 64


async def test_dashboard_health_helper_and_staff_list(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    from gatehouse.webhooks import dead_deliveries, endpoint_health
    from tests.support.factories import make_staff

    healthy = await create_endpoint(client, tenant, "http://127.0.0.1:9/a")
    broken = await create_endpoint(client, tenant, "http://127.0.0.1:9/b")
    await emit(runtime, tenant.tenant_id)
    await client.post(f"/v1/webhooks/{broken['id']}/disable", headers=tenant.headers)
    async with runtime.db.read() as session:
        health = {h.endpoint_id: h for h in await endpoint_health(session, tenant.tenant_id)}
        dead = await dead_deliveries(session, tenant.tenant_id)
    assert health[healthy["id"]].pending_deliveries == 1
    assert health[healthy["id"]].status == "enabled"
    assert health[broken["id"]].dead_deliveries == 1
    assert health[broken["id"]].as_dict()["disabledReason"] == "manual"
    assert [d.endpoint_id for d in dead] == [broken["id"]]

    admin = await make_staff(runtime, "admin")
    listed = await client.get(
        "/staff/v1/deliveries", params={"tenantId": tenant.tenant_id}, headers=admin.headers
    )
    assert listed.status_code == 200
    body = listed.json()
    assert set(body) == {"data", "nextCursor", "hasMore"}
    assert {d["endpointId"] for d in body["data"]} == {healthy["id"], broken["id"]}
    assert all(d["tenantId"] == tenant.tenant_id for d in body["data"])
    only_dead = await client.get(
        "/staff/v1/deliveries", params={"status": "dead"}, headers=admin.headers
    )
    assert [d["endpointId"] for d in only_dead.json()["data"]] == [broken["id"]]
    # Replaying to a disabled endpoint is refused until it is enabled again.
    refused = await client.post(
        f"/staff/v1/deliveries/{only_dead.json()['data'][0]['id']}/replay", headers=admin.headers
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "failed-precondition"
