"""POST /v1/sandbox/applications/{clientId}/simulate: every action on every state, as the
case rules say (domain/status.py, domain/info_requests.py); history, audit and events of
the real paths (docs/sandbox.md)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from gatehouse.domain import sandbox as sandbox_rules
from gatehouse.domain.status import (
    APPROVE,
    COUNTERSIGN,
    EVENT_STATUS_CHANGED,
    CaseState,
    DecisionMove,
    MoveNotAllowed,
    after_info_request_raised,
    after_request_responded,
    decide,
)
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Decision, InfoRequestItem
from gatehouse.storage.tables.core import AuditEntry, Event
from tests.sandbox.conftest import provision, simulate, simulated
from tests.support.cases import application_row, outbox_events
from tests.support.factories import StaffFixture, TenantFixture

STATES = (
    "fresh",
    "submitted",
    "needs_info",
    "responded",
    "hold",
    "pending_approval",
    "active",
    "rejected",
    "locked",
)
ACTIONS = sandbox_rules.SIMULATE_ACTIONS
ANALYST_ID = sandbox_rules.simulated_staff_id("analyst")
MLRO_ID = sandbox_rules.simulated_staff_id("mlro")


async def reach(
    client: httpx.AsyncClient, tenant: TenantFixture, analyst: StaffFixture, state: str
) -> str:
    """A new application of the sandbox tenant brought to `state` through the real routes."""
    client_id = await provision(client, tenant, f"{state}.{new_id('x')[-8:]}@example.test")
    if state == "submitted":
        await simulated(client, tenant, client_id, "submit")
    elif state == "needs_info":
        await simulated(client, tenant, client_id, "request_info")
    elif state == "responded":
        await simulated(client, tenant, client_id, "request_info")
        await simulated(client, tenant, client_id, "respond")
    elif state == "hold":
        await simulated(client, tenant, client_id, "hold")
    elif state == "pending_approval":
        proposed = await client.post(
            f"/staff/v1/applications/{client_id}/decisions",
            json={"action": "approve"},
            headers=analyst.headers,
        )
        assert proposed.status_code == 200, proposed.text
    elif state == "active":
        await simulated(client, tenant, client_id, "approve")
    elif state == "rejected":
        await simulated(client, tenant, client_id, "reject", rejectionReason="No")
    elif state == "locked":
        locked = await client.post(f"/v1/applications/{client_id}/lock", headers=tenant.headers)
        assert locked.status_code == 200, locked.text
    return client_id


async def owed_items(runtime: Runtime, client_id: str) -> int:
    async with runtime.db.read() as session:
        from gatehouse.storage.tables.applications import InfoRequest

        count = await session.scalar(
            select(func.count())
            .select_from(InfoRequestItem)
            .join(InfoRequest, InfoRequest.id == InfoRequestItem.request_id)
            .where(
                InfoRequest.application_id == client_id,
                InfoRequest.status == "open",
                InfoRequestItem.status.in_(("open", "reopened")),
            )
        )
    return int(count or 0)


def _events_of(moves: list[DecisionMove]) -> list[str]:
    types: list[str] = []
    for move in moves:
        if move.event_type is not None:
            types.append(move.event_type)
        if move.status_changed:
            types.append(EVENT_STATUS_CHANGED)
    return types


def expected_outcome(
    action: str, state: CaseState, *, submitted: bool, locked: bool, owed: int
) -> tuple[str, list[str]] | None:
    """(status after, event types) by the case rules, or None when the state refuses."""
    status = state.status
    try:
        if action == "submit":
            if submitted or locked:
                return None
            return status, ["application.submitted"]
        if action == "respond":
            if locked or not owed:
                return None
            after = after_request_responded(status, 0)
            changed = [EVENT_STATUS_CHANGED] if after != status else []
            return after, ["application.info_request.responded", *changed]
        if action == "request_info":
            after = after_info_request_raised(status)
            changed = [EVENT_STATUS_CHANGED] if after != status else []
            return after, ["application.info_request.raised", *changed]
        if action == "approve":
            proposal = decide(state, APPROVE, actor_id=ANALYST_ID, actor_role="analyst")
            proposed = CaseState(
                proposal.to_status, proposal.status_before_proposal, proposal.proposed_by
            )
            signed = decide(proposed, COUNTERSIGN, actor_id=MLRO_ID, actor_role="mlro")
            return signed.to_status, _events_of([proposal, signed])
        move = decide(
            state, action, actor_id=ANALYST_ID, actor_role="analyst", rejection_reason="x"
        )
        return move.to_status, _events_of([move])
    except MoveNotAllowed:
        return None


async def _counts(runtime: Runtime, client_id: str) -> tuple[int, int, int]:
    async with runtime.db.read() as session:
        events = await session.scalar(
            select(func.count()).select_from(Event).where(Event.application_id == client_id)
        )
        decisions = await session.scalar(
            select(func.count()).select_from(Decision).where(Decision.application_id == client_id)
        )
        audit = await session.scalar(
            select(func.count()).select_from(AuditEntry).where(AuditEntry.target == client_id)
        )
    return int(events or 0), int(decisions or 0), int(audit or 0)


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("state", STATES)
async def test_every_action_on_every_state(
    client: httpx.AsyncClient,
    runtime: Runtime,
    sandbox_tenant: TenantFixture,
    analyst: StaffFixture,
    state: str,
    action: str,
) -> None:
    client_id = await reach(client, sandbox_tenant, analyst, state)
    row = await application_row(runtime, client_id)
    before_events = await outbox_events(runtime, client_id)
    before_counts = await _counts(runtime, client_id)
    expected = expected_outcome(
        action,
        CaseState(row.status, row.status_before_proposal, row.proposed_by),
        submitted=row.submitted_at is not None,
        locked=row.locked,
        owed=await owed_items(runtime, client_id),
    )

    response = await simulate(client, sandbox_tenant, client_id, action)

    if expected is None:
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "failed-precondition"
        after = await application_row(runtime, client_id)
        assert (after.status, after.updated_at) == (row.status, row.updated_at)
        assert await _counts(runtime, client_id) == before_counts
        return
    status, event_types = expected
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["clientId"] == client_id
    assert view["status"] == status
    assert (await application_row(runtime, client_id)).status == status
    new_events = (await outbox_events(runtime, client_id))[len(before_events) :]
    assert [e["type"] for e in new_events] == event_types
    # Sequences continue the application's own numbering, as on the real paths.
    assert [e["data"]["sequence"] for e in new_events] == list(
        range(len(before_events) + 1, len(before_events) + 1 + len(event_types))
    )
    assert all(e["environment"] == "sandbox" for e in new_events)


async def test_approve_is_a_proposal_and_a_countersignature(
    client: httpx.AsyncClient, runtime: Runtime, sandbox_tenant: TenantFixture
) -> None:
    client_id = await provision(client, sandbox_tenant, "walk@example.test", externalRef="w-1")
    view = await simulated(client, sandbox_tenant, client_id, "approve", comment="Welcome")
    assert view["status"] == "active"
    assert view["decision"]["action"] == "approved"
    assert view["decision"]["byRole"] == "mlro"
    assert view["decision"]["comment"] == "Welcome"

    history = await client.get(
        f"/v1/applications/{client_id}/decisions", headers=sandbox_tenant.headers
    )
    assert [
        (d["action"], d["byRole"], d["fromStatus"], d["toStatus"]) for d in history.json()["data"]
    ] == [
        ("approved", "mlro", "pending_approval", "active"),
        ("approve", "analyst", "pending", "pending_approval"),
    ]
    async with runtime.db.read() as session:
        staff_ids = list(
            (
                await session.scalars(
                    select(Decision.by_staff_id)
                    .where(Decision.application_id == client_id)
                    .order_by(Decision.at, Decision.id)
                )
            ).all()
        )
        audit = list(
            (
                await session.execute(
                    select(AuditEntry.actor, AuditEntry.action)
                    .where(AuditEntry.target == client_id)
                    .order_by(AuditEntry.at, AuditEntry.id)
                )
            ).all()
        )
    # Four eyes: two different simulated people.
    assert staff_ids == [ANALYST_ID, MLRO_ID]
    key_actor = f"sandbox:{sandbox_tenant.key_id}"
    assert (key_actor, "application.decision.approve") in audit
    assert (key_actor, "application.decision.countersign") in audit
    events = await outbox_events(runtime, client_id)
    assert [(e["type"], e["data"].get("actorRole")) for e in events] == [
        ("application.decision.proposed", "analyst"),
        ("application.status.changed", None),
        ("application.decision.approved", "mlro"),
        ("application.status.changed", None),
    ]
    assert all(e["data"]["externalRef"] == "w-1" for e in events)


async def test_request_info_with_items_and_respond_answers_them_all(
    client: httpx.AsyncClient, runtime: Runtime, sandbox_tenant: TenantFixture
) -> None:
    client_id = await provision(client, sandbox_tenant, "items@example.test")
    items = [
        {"type": "document", "prompt": "Upload your passport"},
        {"type": "question", "prompt": "Source of funds?"},
    ]
    raised = await simulated(
        client, sandbox_tenant, client_id, "request_info", comment="Two things", items=items
    )
    assert raised["status"] == "needs_info"
    assert raised["openInfoRequest"]["openItems"] == 2
    requests = (
        await client.get(
            f"/v1/applications/{client_id}/info-requests", headers=sandbox_tenant.headers
        )
    ).json()["data"]
    assert [(i["type"], i["prompt"]) for i in requests[0]["items"]] == [
        (i["type"], i["prompt"]) for i in items
    ]
    assert requests[0]["comment"] == "Two things"

    answered = await simulated(client, sandbox_tenant, client_id, "respond", comment="Here")
    assert answered["status"] == "pending"
    requests = (
        await client.get(
            f"/v1/applications/{client_id}/info-requests", headers=sandbox_tenant.headers
        )
    ).json()["data"]
    assert requests[0]["status"] == "responded"
    assert {i["status"] for i in requests[0]["items"]} == {"answered"}
    events = await outbox_events(runtime, client_id)
    assert [e["type"] for e in events][-2:] == [
        "application.info_request.responded",
        "application.status.changed",
    ]
    assert events[-1]["data"]["reason"] == "info_request"
    # Nothing left to answer: the state refuses a second respond.
    again = await simulate(client, sandbox_tenant, client_id, "respond")
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "failed-precondition"


async def test_request_info_without_items_raises_one_default_item(
    client: httpx.AsyncClient, sandbox_tenant: TenantFixture
) -> None:
    client_id = await provision(client, sandbox_tenant, "default@example.test")
    await simulated(client, sandbox_tenant, client_id, "request_info")
    requests = (
        await client.get(
            f"/v1/applications/{client_id}/info-requests", headers=sandbox_tenant.headers
        )
    ).json()["data"]
    assert len(requests) == 1
    assert len(requests[0]["items"]) == 1
    assert requests[0]["comment"] == sandbox_rules.DEFAULT_REQUEST_COMMENT


async def test_reject_keeps_the_reason_or_gives_the_default(
    client: httpx.AsyncClient, runtime: Runtime, sandbox_tenant: TenantFixture
) -> None:
    first = await provision(client, sandbox_tenant, "r1@example.test")
    given = await simulated(
        client, sandbox_tenant, first, "reject", rejectionReason="Sanctions match"
    )
    assert given["status"] == "rejected"
    assert given["rejectionReason"] == "Sanctions match"
    second = await provision(client, sandbox_tenant, "r2@example.test")
    default = await simulated(client, sandbox_tenant, second, "reject")
    assert default["rejectionReason"] == sandbox_rules.DEFAULT_REJECTION_REASON
    [*_, rejected, _changed] = await outbox_events(runtime, second)
    assert rejected["type"] == "application.decision.rejected"
    assert rejected["data"]["rejectionReason"] == sandbox_rules.DEFAULT_REJECTION_REASON


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "teleport"}, "action"),
        ({}, "action"),
        ({"action": 3}, "action"),
        ({"action": "request_info", "items": []}, "items"),
        ({"action": "request_info", "items": [{"type": "song", "prompt": "Sing"}]}, "items.0.type"),
        ({"action": "hold", "comment": "x" * 4001}, "comment"),
    ],
)
async def test_invalid_bodies_are_invalid_argument(
    client: httpx.AsyncClient,
    runtime: Runtime,
    sandbox_tenant: TenantFixture,
    body: dict[str, Any],
    field: str,
) -> None:
    client_id = await provision(client, sandbox_tenant, "bad@example.test")
    response = await client.post(
        f"/v1/sandbox/applications/{client_id}/simulate", json=body, headers=sandbox_tenant.headers
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid-argument"
    assert error["details"][0]["field"] == field
    assert (await application_row(runtime, client_id)).status == "pending"


async def test_erased_and_suspended_are_refused_like_other_writes(
    client: httpx.AsyncClient, runtime: Runtime, sandbox_tenant: TenantFixture
) -> None:
    from tests.api.support import erase, set_tenant_status

    erased = await provision(client, sandbox_tenant, "gone@example.test")
    await erase(runtime, erased)
    response = await simulate(client, sandbox_tenant, erased, "hold")
    assert response.status_code == 410

    client_id = await provision(client, sandbox_tenant, "paused@example.test")
    await set_tenant_status(runtime, sandbox_tenant.tenant_id, "suspended")
    response = await simulate(client, sandbox_tenant, client_id, "hold")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission-denied"
    assert (await application_row(runtime, client_id)).status == "pending"


async def test_scope_applications_write_is_needed(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    from tests.support.factories import make_tenant

    reader = await make_tenant(runtime, ["applications:read"], environment="sandbox")
    response = await simulate(client, reader, "app_whatever", "submit")
    assert response.status_code == 403
    assert "applications:write" in response.json()["error"]["message"]
    assert "ratelimit-limit" in response.headers


async def test_an_idempotency_key_replays_the_first_outcome(
    client: httpx.AsyncClient, runtime: Runtime, sandbox_tenant: TenantFixture
) -> None:
    client_id = await provision(client, sandbox_tenant, "again@example.test")
    key = {"Idempotency-Key": "sbx-hold-1"}
    first = await simulate(client, sandbox_tenant, client_id, "hold", headers=key)
    assert first.status_code == 200, first.text
    events = await outbox_events(runtime, client_id)
    again = await simulate(client, sandbox_tenant, client_id, "hold", headers=key)
    assert again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert await outbox_events(runtime, client_id) == events  # the hold did not run again
    # Without the key the same step is a second attempt, which the state refuses.
    refused = await simulate(client, sandbox_tenant, client_id, "hold")
    assert refused.status_code == 400
    # The same key with another body is refused.
    other = await simulate(client, sandbox_tenant, client_id, "release", headers=key)
    assert other.status_code == 400
    assert other.json()["error"]["details"][0]["field"] == "Idempotency-Key"


async def test_simulated_steps_count_against_the_keys_limit(
    database_url: str, runtime: Runtime, sandbox_tenant: TenantFixture
) -> None:
    """Each simulated step spends one request of the key's window, like every /v1 write;
    once it is spent the step is 429 and does not run."""
    from gatehouse.app import create_app
    from tests.conftest import make_settings

    limited = Runtime.build(make_settings(database_url, rate_limit_per_key=3))
    try:
        transport = httpx.ASGITransport(app=create_app(limited.settings, limited))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            client_id = await provision(c, sandbox_tenant, "limited@example.test")
            held = await simulate(c, sandbox_tenant, client_id, "hold")
            assert held.status_code == 200, held.text
            assert (held.headers["ratelimit-limit"], held.headers["ratelimit-remaining"]) == (
                "3",
                "1",
            )
            released = await simulate(c, sandbox_tenant, client_id, "release")
            assert released.headers["ratelimit-remaining"] == "0"
            refused = await simulate(c, sandbox_tenant, client_id, "hold")
            assert refused.status_code == 429
            assert refused.json()["error"]["code"] == "resource-exhausted"
            assert "retry-after" in refused.headers
    finally:
        await limited.close()
    assert (await application_row(runtime, client_id)).status == "pending"
