"""The case page's "Change intake" and "Check status" (docs/case-work.md "Changing the intake",
"Checking a status"): who sees them, the consequences shown before confirming, the result
shown after, and refusals that change nothing."""

from __future__ import annotations

import httpx

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from tests.pages.helpers import dashboard_sign_in
from tests.realignment.conftest import Intakes, Staff, provision
from tests.realignment.test_repair import on_hold_with_an_open_request_then_released
from tests.support.cases import application_row
from tests.support.factories import TenantFixture


async def test_change_intake_states_the_consequences_and_needs_a_confirmation(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "dash-1")
    proposed = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": "approve"},
        headers=people.analyst.headers,
    )
    assert proposed.status_code == 200
    page_url = f"/dashboard/applications/{client_id}"

    await dashboard_sign_in(client, people.analyst)
    as_analyst = await client.get(page_url)
    assert 'id="h-change-intake"' not in as_analyst.text
    assert 'action="/dashboard/applications/' + client_id + '/repair"' not in as_analyst.text

    csrf = await dashboard_sign_in(client, people.mlro)
    page = await client.get(page_url)
    assert 'id="h-change-intake"' in page.text
    consequences = page.text.split('id="intake-consequences"', 1)[1].split("</div>", 1)[0]
    assert "the proposed approval lapses" in consequences
    assert "pair_change" in consequences
    assert f'<option value="{intakes.company}">Company</option>' in page.text
    assert intakes.detached not in page.text  # detached intakes are not offered
    assert 'id="h-check-status"' not in page.text  # admins only

    unconfirmed = await client.post(
        f"{page_url}/intake", data={"csrf_token": csrf, "label_id": intakes.company}
    )
    assert unconfirmed.status_code == 400
    assert 'id="f-intake-confirm-error"' in unconfirmed.text
    assert (await application_row(runtime, client_id)).label_id == intakes.person

    foreign = await client.post(
        f"{page_url}/intake",
        data={"csrf_token": csrf, "label_id": intakes.detached, "intake_confirm": "yes"},
    )
    assert foreign.status_code == 400
    assert 'id="f-label_id-error"' in foreign.text
    assert (await application_row(runtime, client_id)).status == "pending_approval"

    done = await client.post(
        f"{page_url}/intake",
        data={"csrf_token": csrf, "label_id": intakes.company, "intake_confirm": "yes"},
    )
    assert done.status_code == 303
    shown = await client.get(done.headers["location"])
    assert "Intake changed" in shown.text
    assert "Intake now: <strong>Company</strong>" in shown.text
    row = await application_row(runtime, client_id)
    assert (row.label_id, row.status) == (intakes.company, "pending")


async def test_check_status_shows_the_result_to_admins(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    intakes: Intakes,
    people: Staff,
) -> None:
    client_id = await provision(client, tenant, intakes.person, "dash-2")
    await on_hold_with_an_open_request_then_released(client, people, client_id)
    page_url = f"/dashboard/applications/{client_id}"

    csrf = await dashboard_sign_in(client, people.mlro)
    refused = await client.post(f"{page_url}/repair", data={"csrf_token": csrf})
    assert refused.status_code == 403
    assert (await application_row(runtime, client_id)).status == "pending"

    csrf = await dashboard_sign_in(client, people.admin)
    page = await client.get(page_url)
    assert 'id="h-check-status"' in page.text
    checked = await client.post(f"{page_url}/repair", data={"csrf_token": csrf})
    assert checked.status_code == 303
    shown = await client.get(checked.headers["location"])
    assert "Status checked and repaired" in shown.text
    assert (await application_row(runtime, client_id)).status == "needs_info"

    again = await client.post(f"{page_url}/repair", data={"csrf_token": csrf})
    shown = await client.get(again.headers["location"])
    assert "it matches the case&#39;s facts" in shown.text or "matches the case" in shown.text
    async with runtime.db.read() as session:
        assert (await session.get_one(Application, client_id)).status == "needs_info"
