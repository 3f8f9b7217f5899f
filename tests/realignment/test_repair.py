"""Repairing a status over the staff API and with `gatehouse repair` (docs/reference/staff-api.md
"Intake change and repair"; docs/case-work.md "Checking a status"; docs/operations.md
"Repairing statuses"), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json

import httpx
from sqlalchemy import func, select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Decision
from gatehouse.storage.tables.core import Event
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.conftest import TEST_SECRET_KEY
from tests.realignment.conftest import Intakes, Staff, listen, provision, status_changes
from tests.support.cases import application_row
from tests.support.factories import StaffFixture, TenantFixture
from tests.support.processes import GATEHOUSE, clean_env
from tests.webhooks.receiver import Receiver


async def post(
    client: httpx.AsyncClient, who: StaffFixture, path: str, body: object = None
) -> httpx.Response:
    response = await client.post(path, json=body, headers=who.headers)
    return response


async def repair(client: httpx.AsyncClient, who: StaffFixture, client_id: str) -> httpx.Response:
    return await client.post(f"/staff/v1/applications/{client_id}/repair", headers=who.headers)


async def on_hold_with_an_open_request_then_released(
    client: httpx.AsyncClient, people: Staff, client_id: str
) -> None:
    """The contract's example: an information request, a hold, a release: `pending` with the
    request still open."""
    base = f"/staff/v1/applications/{client_id}"
    raised = await post(
        client,
        people.analyst,
        f"{base}/info-requests",
        {"comment": "Please", "items": [{"type": "question", "prompt": "Why?"}]},
    )
    assert raised.status_code == 201, raised.text
    for action in ("hold", "release"):
        done = await post(client, people.analyst, f"{base}/decisions", {"action": action})
        assert done.status_code == 200, done.text
    assert done.json()["status"] == "pending"


async def counts(runtime: Runtime, client_id: str) -> tuple[int, int]:
    async with runtime.db.read() as session:
        decisions = await session.scalar(
            select(func.count()).select_from(Decision).where(Decision.application_id == client_id)
        )
        events = await session.scalar(
            select(func.count()).select_from(Event).where(Event.application_id == client_id)
        )
    return int(decisions or 0), int(events or 0)


async def test_pending_with_an_open_item_becomes_needs_info_once(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    await listen(client, tenant, receiver)
    client_id = await provision(client, tenant, intakes.person, "rep-1")
    await on_hold_with_an_open_request_then_released(client, people, client_id)

    repaired = await repair(client, people.admin, client_id)

    assert repaired.status_code == 200, repaired.text
    assert repaired.json() == {
        "clientId": client_id,
        "previousStatus": "pending",
        "status": "needs_info",
        "changed": True,
    }
    history = await client.get(f"/v1/applications/{client_id}/decisions", headers=tenant.headers)
    newest = history.json()["data"][0]
    assert (newest["action"], newest["fromStatus"], newest["toStatus"]) == (
        "repair",
        "pending",
        "needs_info",
    )
    assert newest["byRole"] == "admin"
    read = await client.get(f"/v1/applications/{client_id}", headers=tenant.headers)
    assert read.json()["status"] == "needs_info"
    before = await counts(runtime, client_id)

    again = await repair(client, people.admin, client_id)

    assert again.status_code == 200, again.text
    assert again.json()["changed"] is False
    assert again.json()["status"] == "needs_info"
    assert await counts(runtime, client_id) == before
    # needs_info (request), hold, pending (release), needs_info (repair): four changes sent.
    changes = await status_changes(receiver, 4)
    assert [(c["status"], c["reason"]) for c in changes] == [
        ("needs_info", "info_request"),
        ("hold", "decision"),
        ("pending", "decision"),
        ("needs_info", "repair"),
    ]
    assert changes[-1]["previousStatus"] == "pending"
    await asyncio.sleep(0.3)
    assert len(receiver.snapshot()) == 4  # the second repair sent nothing


async def test_needs_info_owing_nothing_becomes_pending(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "rep-2")
    async with runtime.db.write() as session:  # as a restore from an older backup leaves it
        (await session.get_one(Application, client_id)).status = "needs_info"

    repaired = await repair(client, people.admin, client_id)

    assert repaired.json()["previousStatus"] == "needs_info"
    assert repaired.json()["status"] == "pending"


async def test_a_waiting_proposal_means_pending_approval(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "rep-3")
    base = f"/staff/v1/applications/{client_id}"
    proposed = await post(client, people.analyst, f"{base}/decisions", {"action": "approve"})
    assert proposed.status_code == 200, proposed.text
    async with runtime.db.write() as session:  # the application row lost the proposal
        row = await session.get_one(Application, client_id)
        row.status, row.proposed_by, row.status_before_proposal = "pending", None, None

    repaired = await repair(client, people.admin, client_id)

    assert repaired.json()["status"] == "pending_approval", repaired.text
    row = await application_row(runtime, client_id)
    assert row.proposed_by == people.analyst.staff_id
    assert row.status_before_proposal == "pending"
    # The proposer still may not countersign; a colleague may.
    own = await post(client, people.analyst, f"{base}/decisions", {"action": "countersign"})
    assert own.status_code == 403
    signed = await post(client, people.mlro, f"{base}/decisions", {"action": "countersign"})
    assert signed.json()["status"] == "active", signed.text


async def test_refusals_change_nothing(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "rep-4")
    await on_hold_with_an_open_request_then_released(client, people, client_id)
    before = (await counts(runtime, client_id), (await application_row(runtime, client_id)).status)

    for who in (people.analyst, people.mlro):
        denied = await repair(client, who, client_id)
        assert denied.status_code == 403, denied.text
    missing = await repair(client, people.admin, "app_missing00000")
    assert missing.status_code == 404

    after = (await counts(runtime, client_id), (await application_row(runtime, client_id)).status)
    assert after == before == (before[0], "pending")


async def run_cli(runtime: Runtime, *args: str) -> tuple[int, list[dict[str, object]], str]:
    env = clean_env(database_url=runtime.settings.database_url, secret_key=TEST_SECRET_KEY)
    process = await asyncio.create_subprocess_exec(
        GATEHOUSE,
        "repair",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    lines = [json.loads(line) for line in out.decode().splitlines()]
    return int(process.returncode or 0), lines, err.decode()


async def test_the_command_prints_first_and_changes_only_with_apply(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    broken = await provision(client, tenant, intakes.person, "rep-5")
    await on_hold_with_an_open_request_then_released(client, people, broken)
    fine = await provision(client, tenant, intakes.person, "rep-6")
    before = await counts(runtime, broken)

    code, lines, err = await run_cli(runtime)

    assert code == 0, err
    assert lines == [
        {
            "clientId": broken,
            "tenantId": tenant.tenant_id,
            "previousStatus": "pending",
            "status": "needs_info",
            "applied": False,
        }
    ]
    assert "nothing was changed" in err
    assert (await application_row(runtime, broken)).status == "pending"
    assert await counts(runtime, broken) == before

    code, lines, err = await run_cli(runtime, "--apply")

    assert code == 0, err
    assert [(line["clientId"], line["status"], line["applied"]) for line in lines] == [
        (broken, "needs_info", True)
    ]
    assert (await application_row(runtime, broken)).status == "needs_info"
    assert (await application_row(runtime, fine)).status == "pending"
    history = await client.get(f"/v1/applications/{broken}/decisions", headers=tenant.headers)
    assert history.json()["data"][0]["action"] == "repair"
    assert history.json()["data"][0]["byRole"] == "system"

    code, lines, _err = await run_cli(runtime, "--apply")
    assert (code, lines) == (0, [])
