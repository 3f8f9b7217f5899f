"""The dashboard's screening and risk (docs/screening.md): the case page's panels with the
listed entity's facts, resolving a hit in place, the risk override for an mlro, the queue's
level and open hits, and the intake editor's mapping and rules."""

from __future__ import annotations

import html
import json
from pathlib import Path

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.screening import ScreeningHit
from tests.pages.helpers import csrf_of, dashboard_sign_in
from tests.screening.conftest import Applicant
from tests.screening.support import run_jobs
from tests.support.factories import StaffFixture, TenantFixture


async def _hit_id(runtime: Runtime, client_id: str) -> str:
    async with runtime.db.read() as session:
        found = await session.scalar(
            select(ScreeningHit.id).where(ScreeningHit.application_id == client_id)
        )
    assert found is not None
    return found


async def test_the_case_page_shows_a_hit_and_resolves_it_in_place(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
    mlro: StaffFixture,
) -> None:
    client_id = await applicant(directorName="Vladimir Putin")
    await run_jobs(runtime)
    await dashboard_sign_in(client, analyst)
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert page.status_code == 200
    text = html.unescape(page.text)
    for shown in ("Владимир Владимирович Путин", "1952-10-07", "ru", "role.pep", "sanction"):
        assert shown in text, shown
    assert "symbolMatch" in text  # why it matched
    assert 'id="h-risk"' in page.text
    assert "Save override" not in page.text  # an analyst does not override
    hit_id = await _hit_id(runtime, client_id)
    action = f"/dashboard/screening-hits/{hit_id}/resolve"
    empty = await client.post(
        action,
        data={
            "csrf_token": csrf_of(page.text),
            "resolution": "no_match",
            "comment": "",
            "hit": hit_id,
        },
    )
    assert empty.status_code == 400
    assert 'aria-invalid="true"' in empty.text
    done = await client.post(
        action,
        data={
            "csrf_token": csrf_of(page.text),
            "resolution": "no_match",
            "comment": "Different person.",
            "hit": hit_id,
        },
    )
    assert done.status_code == 303
    again = await client.get(f"/dashboard/applications/{client_id}")
    assert "Different person." in again.text
    assert "Change resolution" not in again.text  # an analyst cannot change it

    await dashboard_sign_in(client, mlro)
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert "Change resolution" in page.text
    overridden = await client.post(
        f"/dashboard/applications/{client_id}/risk/override",
        data={"csrf_token": csrf_of(page.text), "level": "high", "reason": "Adverse media."},
    )
    assert overridden.status_code == 303
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert "Adverse media." in page.text
    queue = await client.get("/dashboard")
    assert 'badge-high">high' in queue.text
    assert 'badge-high">high' in (await client.get("/dashboard?risk=high")).text
    assert 'badge-high">high' not in (await client.get("/dashboard?risk=low")).text


async def test_the_queue_shows_open_hits(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
) -> None:
    await applicant(directorName="Saddam Hussein")
    await run_jobs(runtime)
    await dashboard_sign_in(client, analyst)
    queue = await client.get("/dashboard")
    assert "1 open hit" in queue.text
    assert '<td>low <span class="badge badge-hits">1 open hit</span></td>' in queue.text
    # The queue's filters: only cases with open hits, and by risk level (docs/workstation.md).
    assert "1 open hit" in (await client.get("/dashboard?hits=1")).text
    assert "1 open hit" in (await client.get("/dashboard?risk=low&hits=1")).text
    high = await client.get("/dashboard?risk=high")
    assert high.status_code == 200
    assert "1 open hit" not in high.text


async def test_the_intake_editor_saves_the_mapping_and_rules(
    client: httpx.AsyncClient,
    runtime: Runtime,
    staff: StaffFixture,
    tenant: TenantFixture,
    intake_id: str,
) -> None:
    await dashboard_sign_in(client, staff)
    page = await client.get(f"/dashboard/tenants/{tenant.tenant_id}")
    assert f'action="/dashboard/intakes/{intake_id}/screening"' in page.text
    rules = {
        "rules": [
            {
                "key": "k",
                "label": "Offshore",
                "points": 30,
                "when": {"field": "country", "in": ["KY"]},
            }
        ],
        "thresholds": {"medium": 10, "high": 20},
    }
    url = f"/dashboard/intakes/{intake_id}/screening"
    bad = await client.post(
        url,
        data={
            "csrf_token": csrf_of(page.text),
            "screening": json.dumps({"people": [{"name": "nope"}]}),
            "riskRules": json.dumps(rules),
        },
    )
    assert bad.status_code == 400
    assert "nope" in html.unescape(bad.text)
    saved = await client.post(
        url,
        data={
            "csrf_token": csrf_of(page.text),
            "screening": json.dumps({"people": [{"name": "directorName"}]}),
            "riskRules": json.dumps(rules),
        },
    )
    assert saved.status_code == 303
    read = await client.patch(f"/staff/v1/intakes/{intake_id}", json={}, headers=staff.headers)
    assert read.json()["riskRules"] == rules
    assert read.json()["screening"] == {"people": [{"name": "directorName"}]}
