"""What the neighbouring areas read of screening and risk: the insights' figures, and an
application moved to another intake being screened under it (docs/screening.md)."""

from __future__ import annotations

from pathlib import Path

import httpx

from gatehouse.runtime import Runtime
from tests.screening.conftest import Applicant
from tests.screening.support import run_jobs
from tests.support.factories import StaffFixture, TenantFixture


async def test_insights_count_hits_and_levels(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    applicant: Applicant,
    analyst: StaffFixture,
    mlro: StaffFixture,
    tenant: TenantFixture,
) -> None:
    listed_one = await applicant(directorName="Vladimir Putin", company="Rosneft Oil Co")
    await applicant(directorName="Mette Fjordsen")
    await run_jobs(runtime)
    read = await client.get(
        f"/staff/v1/applications/{listed_one}/screening", headers=analyst.headers
    )
    first = read.json()["data"][0]["hitId"]
    await client.post(
        f"/staff/v1/screening-hits/{first}/resolve",
        json={"resolution": "match", "comment": "Confirmed."},
        headers=analyst.headers,
    )
    await run_jobs(runtime)
    figures = await client.get(
        f"/staff/v1/insights?tenantId={tenant.tenant_id}", headers=mlro.headers
    )
    assert figures.status_code == 200, figures.text
    body = figures.json()
    assert body["screening"]["hits"] == len(read.json()["data"])
    assert body["screening"]["match"] == 1
    assert body["screening"]["noMatch"] == 0
    assert body["risk"] == {"low": 1, "medium": 0, "high": 1}


async def test_a_move_to_another_intake_screens_under_it(
    client: httpx.AsyncClient,
    runtime: Runtime,
    listed: Path,
    tenant: TenantFixture,
    staff: StaffFixture,
    intake_id: str,
) -> None:
    from gatehouse.storage.tables.applications import Application
    from tests.screening.support import PEOPLE_FIELDS
    from tests.support.cases import make_application
    from tests.support.factories import add_intake

    # An intake that asks for the director too, but does not screen them.
    plain = await add_intake(
        runtime, tenant.tenant_id, "Plain", form_fields=[PEOPLE_FIELDS[0]], checklist=[]
    )
    case = await make_application(
        runtime, tenant.tenant_id, company_name="Blue Ltd", label_id=plain
    )
    async with runtime.db.write() as session:
        row = await session.get(Application, case.client_id)
        assert row is not None
        row.form_data = {"directorName": "Vladimir Putin"}
    moved = await client.post(
        f"/staff/v1/applications/{case.client_id}/intake",
        json={"labelId": intake_id},
        headers=staff.headers,
    )
    assert moved.status_code == 200, moved.text
    assert await run_jobs(runtime) >= 1  # the move asked for it
    read = await client.get(
        f"/staff/v1/applications/{case.client_id}/screening", headers=staff.headers
    )
    assert "NK-putin" in [hit["entityId"] for hit in read.json()["data"]]
