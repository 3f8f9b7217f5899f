"""Records on the dashboard (docs/audit-and-evidence.md; docs/operations.md, "Retention"): the
case page's evidence pack button and legal hold for MLROs and above, the tenant page's
retention."""

from __future__ import annotations

import re

import httpx

from gatehouse.runtime import Runtime
from tests.pages.helpers import dashboard_sign_in
from tests.support.audit import audit_actions
from tests.support.cases import make_application
from tests.support.factories import TenantFixture, make_staff


async def test_an_mlro_downloads_the_pack_and_places_and_releases_a_hold(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    case = await make_application(runtime, tenant.tenant_id, company_name="Hold Fast Ltd")
    mlro = await make_staff(runtime, "mlro")
    csrf = await dashboard_sign_in(client, mlro)
    page_path = f"/dashboard/applications/{case.client_id}"
    page = await client.get(page_path)
    assert 'id="evidence-pack"' in page.text
    assert "No legal hold" in page.text
    pdf = await client.get(f"{page_path}/evidence")
    assert pdf.status_code == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")
    assert [a[2] for a in await audit_actions(runtime, "evidence.export")] == [case.client_id]

    # A hold without a reason is refused beside the field; nothing is held.
    refused = await client.post(
        f"{page_path}/legal-hold", data={"csrf_token": csrf, "hold": "place", "hold_reason": " "}
    )
    assert refused.status_code == 400
    assert re.search(r'id="f-hold_reason-error">[^<]*reason', refused.text)
    placed = await client.post(
        f"{page_path}/legal-hold",
        data={"csrf_token": csrf, "hold": "place", "hold_reason": "Regulator's letter 7"},
    )
    assert placed.status_code == 303
    page = await client.get(page_path)
    assert "legal hold" in page.text
    assert "Regulator&#39;s letter 7" in page.text
    assert "Release the legal hold" in page.text
    tenant_page = await client.get(f"/dashboard/tenants/{tenant.tenant_id}")
    held = tenant_page.text.split('id="legal-holds"', 1)[1].split("</ul>", 1)[0]
    assert case.client_id in held
    released = await client.post(
        f"{page_path}/legal-hold",
        data={"csrf_token": csrf, "hold": "release", "hold_reason": "Closed"},
    )
    assert released.status_code == 303
    assert "No legal hold" in (await client.get(page_path)).text


async def test_an_analyst_sees_the_hold_but_no_pack_or_form(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    case = await make_application(runtime, tenant.tenant_id)
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    page_path = f"/dashboard/applications/{case.client_id}"
    page = await client.get(page_path)
    assert 'id="legal-hold"' in page.text
    assert 'id="evidence-pack"' not in page.text
    assert 'id="legal-hold-form"' not in page.text
    assert (await client.get(f"{page_path}/evidence")).status_code == 403
    refused = await client.post(
        f"{page_path}/legal-hold", data={"csrf_token": csrf, "hold": "place", "hold_reason": "x"}
    )
    assert refused.status_code == 403


async def test_an_admin_sets_retention_on_the_tenant_page(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    path = f"/dashboard/tenants/{tenant.tenant_id}"
    page = await client.get(path)
    assert "Rejected cases: kept" in page.text
    refused = await client.post(
        f"{path}/retention", data={"csrf_token": csrf, "rejectedDays": "0", "abandonedDays": ""}
    )
    assert refused.status_code == 400
    assert 'id="f-rejectedDays-error"' in refused.text
    saved = await client.post(
        f"{path}/retention", data={"csrf_token": csrf, "rejectedDays": "365", "abandonedDays": ""}
    )
    assert saved.status_code == 303
    page = await client.get(path)
    assert "erased 365 days after rejection" in page.text
    assert "Cases never submitted: kept" in page.text
    assert "No application of this tenant is on legal hold." in page.text
