"""Concurrent case work: the application row lock keeps request `seq` and event
`data.sequence` allocation unique, and one proposal is countersigned once."""

from __future__ import annotations

import asyncio

import httpx

from gatehouse.runtime import Runtime
from tests.support.cases import make_application, outbox_events
from tests.support.factories import TenantFixture, make_staff


async def test_concurrent_requests_get_distinct_seq_and_sequence(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    case = await make_application(runtime, tenant.tenant_id)
    body = {"comment": "c", "items": [{"type": "question", "prompt": "p"}]}
    answers = await asyncio.gather(
        *(
            client.post(
                f"/staff/v1/applications/{case.client_id}/info-requests",
                json=body,
                headers=analyst.headers,
            )
            for _ in range(10)
        )
    )
    assert [r.status_code for r in answers] == [201] * 10
    assert sorted(r.json()["seq"] for r in answers) == list(range(1, 11))
    sequences = [e["data"]["sequence"] for e in await outbox_events(runtime, case.client_id)]
    # Ten raised events plus one status change.
    assert sorted(sequences) == list(range(1, 12))


async def test_two_concurrent_countersigns_one_wins(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    first, second = await make_staff(runtime, "mlro"), await make_staff(runtime, "mlro")
    case = await make_application(runtime, tenant.tenant_id)
    path = f"/staff/v1/applications/{case.client_id}/decisions"
    assert (
        await client.post(path, json={"action": "approve"}, headers=analyst.headers)
    ).status_code == 200
    answers = await asyncio.gather(
        client.post(path, json={"action": "countersign"}, headers=first.headers),
        client.post(path, json={"action": "countersign"}, headers=second.headers),
    )
    assert sorted(r.status_code for r in answers) == [200, 400]
    types = [e["type"] for e in await outbox_events(runtime, case.client_id)]
    assert types.count("application.decision.approved") == 1
