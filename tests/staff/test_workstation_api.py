"""The reviewer's workstation on the staff API (docs/reference/staff-api.md §12): internal notes,
assignment, the acknowledgement of unsatisfied checklist items on a proposal, reminders, and the
age of the current state (`status_changed_at`) kept by every status change."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Decision
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.workstation import CaseNote
from gatehouse.timeutil import parse_ts
from tests.support.cases import (
    CaseFixture,
    application_row,
    make_application,
    make_login_link,
    outbox_events,
)
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant


@pytest.fixture
async def analyst(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "analyst")


@pytest.fixture
async def mlro(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "mlro")


@pytest.fixture
async def case(runtime: Runtime, tenant: TenantFixture) -> CaseFixture:
    """An application of the tenant's intake, whose required passport is not uploaded."""
    return await make_application(runtime, tenant.tenant_id, label_id=tenant.label_id)


async def audit_actions(runtime: Runtime, client_id: str) -> list[tuple[str, str, str]]:
    async with runtime.db.read() as session:
        rows = await session.execute(
            select(AuditEntry.action, AuditEntry.target, AuditEntry.actor)
            .where(AuditEntry.application_id == client_id)
            .order_by(AuditEntry.at, AuditEntry.id)
        )
        return [tuple(row) for row in rows.all()]  # type: ignore[misc]


# Notes.


async def test_notes_are_added_and_listed_newest_first_with_their_author(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    path = f"/staff/v1/applications/{case.client_id}/notes"
    texts = [f"Note number {n}" for n in range(3)]
    made = []
    for text in texts:
        answer = await client.post(path, json={"text": f"  {text} "}, headers=analyst.headers)
        assert answer.status_code == 201, answer.text
        made.append(answer.json())
    assert made[0]["text"] == texts[0]
    assert made[0]["authorStaffId"] == analyst.staff_id
    assert made[0]["authorEmail"] == analyst.email
    assert made[0]["clientId"] == case.client_id
    first = await client.get(path, params={"limit": 2}, headers=analyst.headers)
    assert first.status_code == 200
    body = first.json()
    assert [n["text"] for n in body["data"]] == [texts[2], texts[1]]
    assert body["hasMore"] is True
    rest = await client.get(
        path, params={"limit": 2, "cursor": body["nextCursor"]}, headers=analyst.headers
    )
    assert [n["text"] for n in rest.json()["data"]] == [texts[0]]
    assert rest.json()["hasMore"] is False
    assert [a for a, _, _ in await audit_actions(runtime, case.client_id)].count(
        "application.note.add"
    ) == 3
    # A note is staff-only: it moves nothing the tenant reads.
    row = await application_row(runtime, case.client_id)
    assert row.updated_at < parse_ts(made[-1]["createdAt"]) or row.updated_at == row.created_at


async def test_a_note_is_refused_in_words_when_empty_or_too_long(
    client: httpx.AsyncClient, case: CaseFixture, analyst: StaffFixture
) -> None:
    path = f"/staff/v1/applications/{case.client_id}/notes"
    for text in ("", "   ", None, 7, "x" * 4001):
        answer = await client.post(path, json={"text": text}, headers=analyst.headers)
        assert answer.status_code == 400, text
        error = answer.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"][0]["field"] == "text"
    listed = await client.get(path, headers=analyst.headers)
    assert listed.json()["data"] == []


async def test_notes_of_unknown_and_erased_applications(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    admin = await make_staff(runtime, "admin")
    unknown = await client.post(
        "/staff/v1/applications/app_nope/notes", json={"text": "x"}, headers=analyst.headers
    )
    assert unknown.status_code == 404
    path = f"/staff/v1/applications/{case.client_id}/notes"
    assert (await client.post(path, json={"text": "Private"}, headers=analyst.headers)).is_success
    proposed = await decide(
        client, analyst, case.client_id, action="approve", acknowledgeUnsatisfied="Seen"
    )
    assert proposed.status_code == 200, proposed.text
    erased = await client.post(
        f"/staff/v1/applications/{case.client_id}/erase", headers=admin.headers
    )
    assert erased.status_code == 200
    # Erasure takes staff free text about the applicant too: the notes' rows, and the reason
    # given for the proposal (the keys of the items stay: they name no one).
    async with runtime.db.read() as session:
        left = await session.scalars(
            select(CaseNote.id).where(CaseNote.application_id == case.client_id)
        )
        assert left.all() == []
    [row] = await history_rows(runtime, case.client_id)
    assert (row.acknowledgement, row.acknowledged_items) == (None, ["passport"])
    assert (await client.get(path, headers=analyst.headers)).status_code == 404
    assert (await client.post(path, json={"text": "x"}, headers=analyst.headers)).status_code == 410


async def test_notes_need_a_staff_token(
    client: httpx.AsyncClient, case: CaseFixture, tenant: TenantFixture
) -> None:
    path = f"/staff/v1/applications/{case.client_id}/notes"
    assert (await client.get(path)).status_code == 401
    assert (await client.get(path, headers=tenant.headers)).status_code == 401


# Assignment.


async def test_claim_hand_over_and_unassign_are_audited(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    case: CaseFixture,
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    path = f"/staff/v1/applications/{case.client_id}/assignment"
    read = f"/v1/applications/{case.client_id}"
    before = (await client.get(read, headers=tenant.headers)).json()
    events_before = await outbox_events(runtime, case.client_id)
    later = runtime.now() + timedelta(hours=1)
    runtime.clock = lambda: later
    claimed = await client.post(path, json={"staffId": analyst.staff_id}, headers=analyst.headers)
    assert claimed.status_code == 200, claimed.text
    assert claimed.json() == {"clientId": case.client_id, "assignedTo": analyst.staff_id}
    again = await client.post(path, json={"staffId": analyst.staff_id}, headers=analyst.headers)
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "failed-precondition"
    handed = await client.post(path, json={"staffId": mlro.staff_id}, headers=analyst.headers)
    assert handed.json()["assignedTo"] == mlro.staff_id
    assert (await application_row(runtime, case.client_id)).assigned_to == mlro.staff_id
    freed = await client.post(path, json={"staffId": None}, headers=mlro.headers)
    assert freed.json()["assignedTo"] is None
    assert (await application_row(runtime, case.client_id)).assigned_to is None
    trail = [entry for entry in await audit_actions(runtime, case.client_id)]
    assert [(action, target) for action, target, _ in trail] == [
        ("application.assign", analyst.staff_id),
        ("application.assign", mlro.staff_id),
        ("application.unassign", case.client_id),
    ]
    assert [actor for _, _, actor in trail] == [
        f"staff:{analyst.staff_id}",
        f"staff:{analyst.staff_id}",
        f"staff:{mlro.staff_id}",
    ]
    # Assignment is for staff only: the tenant's read (updatedAt too) and its events stay.
    assert (await client.get(read, headers=tenant.headers)).json() == before
    assert await outbox_events(runtime, case.client_id) == events_before


async def test_a_case_is_handed_only_to_an_active_colleague(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    path = f"/staff/v1/applications/{case.client_id}/assignment"
    admin = await make_staff(runtime, "super_admin")
    leaver = await make_staff(runtime, "analyst")
    gone = await client.post(f"/staff/v1/staff/{leaver.staff_id}/deactivate", headers=admin.headers)
    assert gone.status_code == 200, gone.text
    for bad in ("stf_nobody", leaver.staff_id, "", 5):
        answer = await client.post(path, json={"staffId": bad}, headers=analyst.headers)
        assert answer.status_code == 400, bad
        assert answer.json()["error"]["code"] == "invalid-argument"
    assert (await application_row(runtime, case.client_id)).assigned_to is None


# The acknowledgement of unsatisfied required checklist items.


async def decide(
    client: httpx.AsyncClient, who: StaffFixture, client_id: str, **body: object
) -> httpx.Response:
    return await client.post(
        f"/staff/v1/applications/{client_id}/decisions", json=body, headers=who.headers
    )


async def history_rows(runtime: Runtime, client_id: str) -> list[Decision]:
    async with runtime.db.read() as session:
        rows = await session.execute(
            select(Decision).where(Decision.application_id == client_id).order_by(Decision.at)
        )
        return list(rows.scalars())


async def test_the_api_proposes_without_the_field_as_before(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    proposed = await decide(client, analyst, case.client_id, action="approve")
    assert proposed.status_code == 200, proposed.text
    assert proposed.json()["status"] == "pending_approval"
    [row] = await history_rows(runtime, case.client_id)
    assert row.acknowledgement is None
    assert row.acknowledged_items is None
    actions = [a for a, _, _ in await audit_actions(runtime, case.client_id)]
    assert "application.decision.acknowledge_unsatisfied" not in actions


async def test_the_acknowledgement_is_recorded_in_history_and_audit_never_for_tenants(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    case: CaseFixture,
    analyst: StaffFixture,
) -> None:
    reason = "Passport seen in person at the branch"
    proposed = await decide(
        client, analyst, case.client_id, action="approve", acknowledgeUnsatisfied=reason
    )
    assert proposed.status_code == 200, proposed.text
    [row] = await history_rows(runtime, case.client_id)
    assert (row.acknowledgement, row.acknowledged_items) == (reason, ["passport"])
    trail = await audit_actions(runtime, case.client_id)
    assert ("application.decision.acknowledge_unsatisfied", row.id) in [
        (action, target) for action, target, _ in trail
    ]
    for path in ("", "/decisions"):
        read = await client.get(f"/v1/applications/{case.client_id}{path}", headers=tenant.headers)
        assert reason not in read.text
    assert reason not in str(await outbox_events(runtime, case.client_id))


async def test_an_acknowledgement_with_nothing_unsatisfied_or_another_action_is_ignored(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
) -> None:
    plain = await make_application(runtime, tenant.tenant_id)  # no intake: nothing required
    held = await decide(client, analyst, plain.client_id, action="hold", acknowledgeUnsatisfied="x")
    assert held.status_code == 200
    proposed = await decide(
        client, analyst, plain.client_id, action="approve", acknowledgeUnsatisfied="x"
    )
    assert proposed.status_code == 200
    assert all(row.acknowledgement is None for row in await history_rows(runtime, plain.client_id))


async def test_an_overlong_acknowledgement_is_invalid(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    refused = await decide(
        client, analyst, case.client_id, action="approve", acknowledgeUnsatisfied="x" * 2001
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["details"][0]["field"] == "acknowledgeUnsatisfied"
    assert (await application_row(runtime, case.client_id)).status == "pending"


# The age of the current state.


async def test_every_status_change_stamps_status_changed_at(
    client: httpx.AsyncClient,
    runtime: Runtime,
    case: CaseFixture,
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    """Decisions, information requests (raise, answer, reopen, close, cancel), release: after
    each step `status_changed_at` is the time of the last application.status.changed event,
    and a step that leaves the status alone leaves it alone."""
    start = runtime.now()
    moments = iter(start + timedelta(minutes=n) for n in range(1, 100))
    runtime.clock = lambda: next(moments)

    async def check() -> None:
        row = await application_row(runtime, case.client_id)
        changes = [
            e
            for e in await outbox_events(runtime, case.client_id)
            if e["type"] == "application.status.changed"
        ]
        expected = parse_ts(changes[-1]["occurredAt"]) if changes else row.created_at
        assert row.status_changed_at == expected, row.status

    async def raise_request(prompts: list[str]) -> dict[str, Any]:
        raised = await client.post(
            f"/staff/v1/applications/{case.client_id}/info-requests",
            json={
                "comment": "Please",
                "items": [{"type": "question", "prompt": p} for p in prompts],
            },
            headers=analyst.headers,
        )
        assert raised.status_code == 201, raised.text
        body: dict[str, Any] = raised.json()
        return body

    await check()
    assert (await decide(client, analyst, case.client_id, action="hold")).is_success
    await check()
    assert (await decide(client, analyst, case.client_id, action="release")).is_success
    await check()
    request = await raise_request(["One?"])
    await check()
    second = await raise_request(["Two?"])
    await check()  # needs_info again: no change, the stamp stays
    cancelled = await client.post(
        f"/staff/v1/info-requests/{second['requestId']}/cancel", headers=analyst.headers
    )
    assert cancelled.is_success
    await check()
    # The applicant answers the first request: responded, and the case back to pending.
    token = await make_login_link(runtime, case)
    assert (await client.post(f"/portal/login/{token}")).status_code == 303
    item = request["items"][0]["itemId"]
    answered = await client.post(
        f"/portal/api/info-requests/{request['requestId']}/items/{item}/answer",
        json={"answer": "Because"},
    )
    assert answered.json()["status"] == "responded", answered.text
    assert (await application_row(runtime, case.client_id)).status == "pending"
    await check()
    reopened = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/items/{item}/reopen",
        headers=analyst.headers,
    )
    assert reopened.is_success
    await check()
    closed = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/close", headers=analyst.headers
    )
    assert closed.is_success
    await check()
    assert (await decide(client, analyst, case.client_id, action="approve")).is_success
    await check()
    turned_down = await decide(client, mlro, case.client_id, action="reject_proposal")
    assert turned_down.is_success
    await check()
    assert (
        await decide(client, analyst, case.client_id, action="reject", rejectionReason="No")
    ).is_success
    await check()
    assert (await application_row(runtime, case.client_id)).status_changed_at > start


# Reminders.


async def raise_one(client: httpx.AsyncClient, who: StaffFixture, client_id: str) -> dict[str, Any]:
    raised = await client.post(
        f"/staff/v1/applications/{client_id}/info-requests",
        json={
            "comment": "Two things",
            "items": [
                {"type": "question", "prompt": "Who owns the company?"},
                {"type": "document", "prompt": "Proof of address"},
            ],
        },
        headers=who.headers,
    )
    assert raised.status_code == 201, raised.text
    body: dict[str, Any] = raised.json()
    return body


async def test_a_reminder_sends_the_request_fields_and_changes_nothing_tenants_read(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    case: CaseFixture,
    analyst: StaffFixture,
) -> None:
    request = await raise_one(client, analyst, case.client_id)
    before = (await client.get(f"/v1/applications/{case.client_id}", headers=tenant.headers)).json()
    later = runtime.now() + timedelta(hours=1)
    runtime.clock = lambda: later
    reminded = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/remind", headers=analyst.headers
    )
    assert reminded.status_code == 200, reminded.text
    assert reminded.json() == request  # the request, unchanged (updatedAt too)
    after = (await client.get(f"/v1/applications/{case.client_id}", headers=tenant.headers)).json()
    assert after == before
    sent = await outbox_events(runtime, case.client_id)
    reminder = sent[-1]
    assert reminder["type"] == "application.info_request.reminder"
    assert [e["type"] for e in sent].count("application.status.changed") == 1  # the raise only
    data = reminder["data"]
    assert data["status"] == data["previousStatus"] == "needs_info"
    assert (data["requestId"], data["requestSeq"], data["round"]) == (request["requestId"], 1, 1)
    assert data["openItems"] == 2
    assert data["comment"] == "Two things"
    assert [i["prompt"] for i in data["items"]] == ["Who owns the company?", "Proof of address"]
    assert data["clientId"] == case.client_id
    assert "loginUrl" not in str(reminder)
    assert "/portal/login/" not in str(reminder)
    assert ("info_request.remind", request["requestId"], f"staff:{analyst.staff_id}") in (
        await audit_actions(runtime, case.client_id)
    )


async def test_only_an_open_request_can_be_reminded_about(
    client: httpx.AsyncClient, runtime: Runtime, case: CaseFixture, analyst: StaffFixture
) -> None:
    request = await raise_one(client, analyst, case.client_id)
    closed = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/close", headers=analyst.headers
    )
    assert closed.is_success
    refused = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/remind", headers=analyst.headers
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "failed-precondition"
    unknown = await client.post("/staff/v1/info-requests/ir_nope/remind", headers=analyst.headers)
    assert unknown.status_code == 404
    types = [e["type"] for e in await outbox_events(runtime, case.client_id)]
    assert "application.info_request.reminder" not in types


async def test_reminders_reach_wildcard_and_exact_subscriptions(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, case: CaseFixture
) -> None:
    from gatehouse.webhooks import rules

    for events in (["*"], ["application.*"], ["application.info_request.*"]):
        assert rules.filter_matches(events, "application.info_request.reminder")
    assert not rules.filter_matches(["application.decision.*"], "application.info_request.reminder")
    exact = await client.post(
        "/v1/webhooks",
        json={
            "url": "https://hooks.example.com/in",
            "events": ["application.info_request.reminder"],
        },
        headers=tenant.headers,
    )
    assert exact.status_code == 201, exact.text


async def test_sandbox_simulations_stamp_status_changed_at_too(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    """Simulated steps go through the same services (docs/sandbox.md), so they keep the age of
    the state as staff and applicants do."""
    from tests.sandbox.conftest import provision, simulated

    sandbox = await make_tenant(runtime, name="Sandbox Co", environment="sandbox")
    client_id = await provision(client, sandbox, "play@example.test")
    start = runtime.now()
    moments = iter(start + timedelta(minutes=n) for n in range(1, 50))
    runtime.clock = lambda: next(moments)
    for action, status in (
        ("request_info", "needs_info"),
        ("respond", "pending"),
        ("hold", "hold"),
        ("release", "pending"),
        ("approve", "active"),
    ):
        view = await simulated(client, sandbox, client_id, action)
        assert view["status"] == status
        row = await application_row(runtime, client_id)
        changes = [
            e
            for e in await outbox_events(runtime, client_id)
            if e["type"] == "application.status.changed"
        ]
        assert row.status_changed_at == parse_ts(changes[-1]["occurredAt"]), action
        assert row.status_changed_at > start
