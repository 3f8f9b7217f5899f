"""Moving a case to another intake over the staff API (docs/reference/staff-api.md "Intake
change and repair"; docs/case-work.md "Changing the intake"), on SQLite and PostgreSQL."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import func, select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Decision
from gatehouse.storage.tables.core import AuditEntry, Event
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.realignment.conftest import Intakes, Staff, listen, provision, status_changes
from tests.support.cases import application_row
from tests.support.factories import StaffFixture, TenantFixture, add_intake, make_tenant
from tests.webhooks.receiver import Receiver


async def move(
    client: httpx.AsyncClient, who: StaffFixture, client_id: str, **body: object
) -> httpx.Response:
    return await client.post(
        f"/staff/v1/applications/{client_id}/intake", json=body, headers=who.headers
    )


async def decide(
    client: httpx.AsyncClient, who: StaffFixture, client_id: str, action: str
) -> httpx.Response:
    response = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": action, "rejectionReason": "No."},
        headers=who.headers,
    )
    assert response.status_code == 200, response.text
    return response


async def set_answers(runtime: Runtime, client_id: str, answers: dict[str, str]) -> None:
    async with runtime.db.write() as session:
        application = await session.get_one(Application, client_id)
        application.form_data = answers


async def snapshot(runtime: Runtime, client_id: str) -> tuple[object, ...]:
    """Everything a refused move must leave as it was."""
    async with runtime.db.read() as session:
        app = await session.get_one(Application, client_id)
        counts = [
            await session.scalar(select(func.count()).select_from(table).where(column == client_id))
            for table, column in (
                (Decision, Decision.application_id),
                (Event, Event.application_id),
                (AuditEntry, AuditEntry.application_id),
            )
        ]
        return (app.status, app.label_id, dict(app.form_data), app.updated_at, *counts)


async def test_a_proposal_lapses_and_the_tenant_hears_pair_change(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    await listen(client, tenant, receiver)
    client_id = await provision(client, tenant, intakes.person, "pair-1")
    await set_answers(
        runtime, client_id, {"fullName": "Ada Lovelace", "birthDate": "1815-12-10", "x": "y"}
    )
    await decide(client, people.analyst, client_id, "approve")

    moved = await move(
        client, people.mlro, client_id, labelId=intakes.company, comment="A company after all."
    )

    assert moved.status_code == 200, moved.text
    body = moved.json()
    assert body["status"] == "pending"
    assert body["labelId"] == intakes.company
    assert body["tenantId"] == tenant.tenant_id
    assert body["decision"]["action"] == "pair_change"
    assert body["decision"]["fromStatus"] == "pending_approval"
    assert body["decision"]["toStatus"] == "pending"
    assert body["decision"]["byRole"] == "mlro"
    assert body["decision"]["comment"] == "A company after all."
    row = await application_row(runtime, client_id)
    # Only the answer both forms ask for is kept; the proposal is gone.
    assert row.form_data == {"fullName": "Ada Lovelace"}
    assert row.proposed_by is None
    # The proposal lapsed: countersigning now is refused.
    late = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": "countersign"},
        headers=people.mlro2.headers,
    )
    assert late.status_code == 400, late.text

    # The tenant: its list element, its checklist and its decision history.
    listed = await client.get("/v1/applications", headers=tenant.headers)
    [element] = [e for e in listed.json()["data"] if e["clientId"] == client_id]
    assert element["labelId"] == intakes.company
    assert element["status"] == "pending"
    checklist = await client.get(f"/v1/applications/{client_id}/checklist", headers=tenant.headers)
    assert [item["key"] for item in checklist.json()["data"]] == ["register_extract"]
    history = await client.get(f"/v1/applications/{client_id}/decisions", headers=tenant.headers)
    newest = history.json()["data"][0]
    assert newest["action"] == "pair_change"
    assert (newest["fromStatus"], newest["toStatus"]) == ("pending_approval", "pending")
    assert people.mlro.email not in history.text

    # The receiver: decision (proposal) then pair_change, signed and in sequence.
    first, second = await status_changes(receiver, 2)
    assert (first["status"], first["reason"]) == ("pending_approval", "decision")
    assert second == {
        "clientId": client_id,
        "externalRef": "pair-1",
        "status": "pending",
        "previousStatus": "pending_approval",
        "reason": "pair_change",
        "sequence": second["sequence"],
    }
    assert second["sequence"] > first["sequence"]
    async with runtime.db.read() as session:
        actions = await session.scalars(
            select(AuditEntry.action).where(AuditEntry.application_id == client_id)
        )
        assert "application.intake.change" in set(actions)


async def test_other_statuses_stay_and_send_nothing(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "pair-2")
    await decide(client, people.analyst, client_id, "hold")
    before = await snapshot(runtime, client_id)

    moved = await move(client, people.mlro, client_id, labelId=intakes.company)

    assert moved.status_code == 200, moved.text
    assert moved.json()["status"] == "hold"
    assert moved.json()["labelId"] == intakes.company
    after = await snapshot(runtime, client_id)
    assert after[4] == before[4]  # no history entry
    assert after[5] == before[5]  # no event
    assert after[6] == before[6] + 1  # one audit entry


async def test_the_same_intake_changes_nothing(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "pair-3")
    await decide(client, people.analyst, client_id, "approve")
    before = await snapshot(runtime, client_id)

    same = await move(client, people.mlro, client_id, labelId=intakes.person)

    assert same.status_code == 200, same.text
    assert same.json()["status"] == "pending_approval"
    assert await snapshot(runtime, client_id) == before


@pytest.mark.parametrize("action", ["countersign", "reject"])
async def test_decided_cases_are_refused(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
    action: str,
) -> None:
    client_id = await provision(client, tenant, intakes.person, f"pair-{action}")
    if action == "countersign":
        await decide(client, people.analyst, client_id, "approve")
    await decide(client, people.mlro, client_id, action)
    before = await snapshot(runtime, client_id)

    refused = await move(client, people.mlro, client_id, labelId=intakes.company)

    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "failed-precondition"
    assert await snapshot(runtime, client_id) == before


async def test_bad_labels_missing_cases_and_low_roles_are_refused_with_no_change(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    other = await make_tenant(runtime, name="Other")
    foreign = await add_intake(runtime, other.tenant_id, "Theirs", 1)
    client_id = await provision(client, tenant, intakes.person, "pair-4")
    await decide(client, people.analyst, client_id, "approve")
    before = await snapshot(runtime, client_id)

    for label in (foreign, intakes.detached, "lbl_doesnotexist", ""):
        refused = await move(client, people.mlro, client_id, labelId=label)
        assert refused.status_code == 400, (label, refused.text)
        error = refused.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"][0]["field"] == "labelId"
    for body in ({}, {"labelId": 7}, {"labelId": intakes.company, "comment": ["x"]}):
        refused = await move(client, people.mlro, client_id, **body)
        assert refused.status_code == 400, (body, refused.text)
    denied = await move(client, people.analyst, client_id, labelId=intakes.company)
    assert denied.status_code == 403, denied.text
    assert denied.json()["error"]["code"] == "permission-denied"
    missing = await move(client, people.mlro, "app_missing00000", labelId=intakes.company)
    assert missing.status_code == 404, missing.text
    assert await snapshot(runtime, client_id) == before


async def test_an_erased_case_is_gone(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "pair-5")
    erased = await client.post(
        f"/staff/v1/applications/{client_id}/erase", headers=people.admin.headers
    )
    assert erased.status_code == 200, erased.text

    gone = await move(client, people.mlro, client_id, labelId=intakes.company)

    assert gone.status_code == 410, gone.text
    assert (await application_row(runtime, client_id)).label_id == intakes.person
