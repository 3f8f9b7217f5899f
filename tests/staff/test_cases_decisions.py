"""Staff decisions over HTTP (docs/reference/staff-api.md "Decision actions", §6;
docs/reference/tenant-api.md §3.1; docs/reference/webhooks.md §5.2).
"""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Decision
from tests.support.cases import CaseFixture, application_row, make_application, outbox_events
from tests.support.factories import StaffFixture, TenantFixture, make_staff


@pytest.fixture
async def case(runtime: Runtime, tenant: TenantFixture) -> CaseFixture:
    return await make_application(runtime, tenant.tenant_id, external_ref="ref-1")


@pytest.fixture
async def analyst(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "analyst")


@pytest.fixture
async def mlro(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "mlro")


async def decide(
    client: httpx.AsyncClient, who: StaffFixture, client_id: str, **body: object
) -> httpx.Response:
    return await client.post(
        f"/staff/v1/applications/{client_id}/decisions", json=body, headers=who.headers
    )


async def test_approve_then_countersign_by_another_mlro(
    client: httpx.AsyncClient,
    runtime: Runtime,
    case: CaseFixture,
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    proposed = await decide(client, analyst, case.client_id, action="approve", comment="Good")
    assert proposed.status_code == 200, proposed.text
    body = proposed.json()
    assert body["clientId"] == case.client_id
    assert body["tenantId"] == case.tenant_id
    assert body["status"] == "pending_approval"
    assert body["decision"]["action"] == "approve"
    assert body["decision"]["fromStatus"] == "pending"
    assert body["decision"]["toStatus"] == "pending_approval"
    assert body["decision"]["byRole"] == "analyst"
    assert body["decision"]["comment"] == "Good"
    assert analyst.email not in proposed.text

    signed = await decide(client, mlro, case.client_id, action="countersign")
    assert signed.status_code == 200, signed.text
    assert signed.json()["status"] == "active"
    assert signed.json()["decision"]["action"] == "approved"
    assert signed.json()["decision"]["byRole"] == "mlro"

    sent = await outbox_events(runtime, case.client_id)
    assert [e["type"] for e in sent] == [
        "application.decision.proposed",
        "application.status.changed",
        "application.decision.approved",
        "application.status.changed",
    ]
    assert [e["data"]["sequence"] for e in sent] == [1, 2, 3, 4]
    proposed_event, changed, approved, changed_again = (e["data"] for e in sent)
    assert proposed_event["action"] == "approve"
    assert proposed_event["actorRole"] == "analyst"
    assert proposed_event["comment"] == "Good"
    assert proposed_event["status"] == "pending_approval"
    assert proposed_event["previousStatus"] == "pending"
    assert proposed_event["externalRef"] == "ref-1"
    assert changed == {
        "clientId": case.client_id,
        "externalRef": "ref-1",
        "status": "pending_approval",
        "previousStatus": "pending",
        "reason": "decision",
        "sequence": 2,
    }
    assert approved["action"] == "approved"
    assert approved["actorRole"] == "mlro"
    assert approved["comment"] is None
    assert changed_again["previousStatus"] == "pending_approval"
    assert changed_again["status"] == "active"
    assert all(e["tenantId"] == case.tenant_id for e in sent)
    assert all(e["idempotencyKey"] == e["id"] for e in sent)


async def test_the_proposer_cannot_countersign(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture
) -> None:
    boss = await make_staff(runtime, "super_admin")
    assert (await decide(client, boss, case.client_id, action="approve")).status_code == 200
    refused = await decide(client, boss, case.client_id, action="countersign")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission-denied"
    assert (await application_row(runtime, case.client_id)).status == "pending_approval"


async def test_an_analyst_cannot_countersign_or_reject_a_proposal(
    client: httpx.AsyncClient, case: CaseFixture, analyst: StaffFixture, runtime: Runtime
) -> None:
    other = await make_staff(runtime, "analyst")
    await decide(client, analyst, case.client_id, action="approve")
    for action in ("countersign", "reject_proposal"):
        refused = await decide(client, other, case.client_id, action=action)
        assert refused.status_code == 403, action
        assert refused.json()["error"]["code"] == "permission-denied"


async def test_countersign_without_a_proposal_is_failed_precondition(
    client: httpx.AsyncClient, case: CaseFixture, mlro: StaffFixture, runtime: Runtime
) -> None:
    for action in ("countersign", "reject_proposal", "release"):
        refused = await decide(client, mlro, case.client_id, action=action)
        assert refused.status_code == 400, action
        assert refused.json()["error"]["code"] == "failed-precondition"
    assert await outbox_events(runtime, case.client_id) == []


async def test_approve_twice_is_failed_precondition(
    client: httpx.AsyncClient, case: CaseFixture, analyst: StaffFixture, mlro: StaffFixture
) -> None:
    await decide(client, analyst, case.client_id, action="approve")
    again = await decide(client, mlro, case.client_id, action="approve")
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "failed-precondition"


async def test_reject_proposal_returns_to_the_previous_status(
    client: httpx.AsyncClient,
    runtime: Runtime,
    case: CaseFixture,
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    assert (await decide(client, analyst, case.client_id, action="hold")).json()["status"] == "hold"
    await decide(client, analyst, case.client_id, action="approve")
    back = await decide(client, mlro, case.client_id, action="reject_proposal", comment="No")
    assert back.status_code == 200
    assert back.json()["status"] == "hold"
    assert back.json()["decision"]["action"] == "proposal_rejected"
    sent = await outbox_events(runtime, case.client_id)
    rejected = [e for e in sent if e["type"] == "application.decision.proposal_rejected"]
    assert len(rejected) == 1
    assert rejected[0]["data"]["action"] == "proposal_rejected"
    assert rejected[0]["data"]["actorRole"] == "mlro"
    assert rejected[0]["data"]["comment"] == "No"
    assert sent[-1]["type"] == "application.status.changed"
    assert sent[-1]["data"]["status"] == "hold"
    # The proposal is gone: countersigning now fails.
    again = await decide(client, mlro, case.client_id, action="countersign")
    assert again.status_code == 400


async def test_reject_requires_a_reason_and_shows_it(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    missing = await decide(client, analyst, case.client_id, action="reject")
    assert missing.status_code == 400
    assert missing.json()["error"]["code"] == "invalid-argument"
    assert missing.json()["error"]["details"][0]["field"] == "rejectionReason"
    assert await outbox_events(runtime, case.client_id) == []

    rejected = await decide(
        client, analyst, case.client_id, action="reject", rejectionReason="Sanctions hit"
    )
    assert rejected.status_code == 200
    assert rejected.json()["status"] == "rejected"
    assert rejected.json()["rejectionReason"] == "Sanctions hit"
    assert rejected.json()["decision"]["action"] == "reject"
    event = (await outbox_events(runtime, case.client_id))[0]
    assert event["type"] == "application.decision.rejected"
    assert event["data"]["rejectionReason"] == "Sanctions hit"
    assert event["data"]["action"] == "reject"

    # Moving on from rejected drops the reason from the read.
    proposed = await decide(client, analyst, case.client_id, action="approve")
    assert "rejectionReason" not in proposed.json()


async def test_hold_and_release(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    held = await decide(client, analyst, case.client_id, action="hold", comment="Wait")
    assert held.json()["status"] == "hold"
    assert (await decide(client, analyst, case.client_id, action="hold")).status_code == 400
    released = await decide(client, analyst, case.client_id, action="release")
    assert released.status_code == 200
    assert released.json()["status"] == "pending"
    assert released.json()["decision"]["action"] == "release"
    types = [e["type"] for e in await outbox_events(runtime, case.client_id)]
    assert types == [
        "application.decision.hold",
        "application.status.changed",
        "application.status.changed",
    ]


@pytest.mark.parametrize(
    "body",
    [{"action": "approved"}, {"action": "delete"}, {}, {"action": 5}, {"action": None}],
)
async def test_bad_actions_are_invalid_argument(
    client: httpx.AsyncClient, case: CaseFixture, analyst: StaffFixture, body: dict[str, object]
) -> None:
    response = await client.post(
        f"/staff/v1/applications/{case.client_id}/decisions", json=body, headers=analyst.headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"


async def test_malformed_json_is_invalid_argument(
    client: httpx.AsyncClient, case: CaseFixture, analyst: StaffFixture
) -> None:
    response = await client.post(
        f"/staff/v1/applications/{case.client_id}/decisions",
        content=b"{not json",
        headers={**analyst.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["field"] == "body"


async def test_decision_history_rows_and_updated_at(
    client: httpx.AsyncClient,
    runtime: Runtime,
    case: CaseFixture,
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    before = (await application_row(runtime, case.client_id)).updated_at
    await decide(client, analyst, case.client_id, action="approve", comment="c1")
    await decide(client, mlro, case.client_id, action="countersign", comment="c2")
    async with runtime.db.read() as session:
        rows = list(
            (
                await session.execute(
                    select(Decision)
                    .where(Decision.application_id == case.client_id)
                    .order_by(Decision.at, Decision.id)
                )
            ).scalars()
        )
    assert [(r.action, r.from_status, r.to_status, r.by_role, r.comment) for r in rows] == [
        ("approve", "pending", "pending_approval", "analyst", "c1"),
        ("approved", "pending_approval", "active", "mlro", "c2"),
    ]
    assert rows[0].by_staff_id == analyst.staff_id
    assert (await application_row(runtime, case.client_id)).updated_at >= before


async def test_missing_application_is_404(client: httpx.AsyncClient, analyst: StaffFixture) -> None:
    response = await decide(client, analyst, "app_missing", action="hold")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not-found"


async def test_staff_token_required(
    client: httpx.AsyncClient, case: CaseFixture, tenant: TenantFixture
) -> None:
    anonymous = await client.post(
        f"/staff/v1/applications/{case.client_id}/decisions", json={"action": "hold"}
    )
    assert anonymous.status_code == 401
    with_api_key = await client.post(
        f"/staff/v1/applications/{case.client_id}/decisions",
        json={"action": "hold"},
        headers=tenant.headers,
    )
    assert with_api_key.status_code == 401
    assert with_api_key.json()["error"]["code"] == "unauthorized"
