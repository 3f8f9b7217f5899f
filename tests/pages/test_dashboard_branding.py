"""A tenant's portal branding from the dashboard's tenant page (docs/reference/portal.md,
"Branding"): display name, accent colour, logo upload and removal, refusals beside the field."""

from __future__ import annotations

import httpx

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Tenant, TenantLogo
from tests.documents.support import png_bytes
from tests.pages.helpers import dashboard_sign_in
from tests.support.factories import TenantFixture, make_staff


async def test_admin_brands_the_portal_from_the_tenant_page(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    page_path = f"/dashboard/tenants/{tenant.tenant_id}"
    page = await client.get(page_path)
    assert "Applicant portal" in page.text
    assert "Save branding" in page.text

    saved = await client.post(
        f"{page_path}/branding",
        data={"csrf_token": csrf, "displayName": "Acme Bank", "accentColor": "#FFD400"},
    )
    assert saved.status_code == 303
    page = await client.get(saved.headers["location"])
    assert "Portal branding saved." in page.text
    assert "#ffd400 (text on it: #000000" in page.text

    refused = await client.post(
        f"{page_path}/branding",
        data={"csrf_token": csrf, "displayName": "Acme Bank", "accentColor": "yellow"},
    )
    assert refused.status_code == 400
    assert 'id="f-accentColor-error"' in refused.text

    uploaded = await client.post(
        f"{page_path}/logo",
        data={"csrf_token": csrf},
        files={"logo": ("logo.png", png_bytes(), "image/png")},
    )
    assert uploaded.status_code == 303, uploaded.text
    async with runtime.db.read() as session:
        row = await session.get(Tenant, tenant.tenant_id)
        assert row is not None
        assert row.logo_type == "image/png"
        assert row.display_name == "Acme Bank"
        assert row.accent_color == "#ffd400"
    page = await client.get(page_path)
    assert '<img src="/portal/logos/' in page.text

    wrong = await client.post(
        f"{page_path}/logo",
        data={"csrf_token": csrf},
        files={"logo": ("logo.png", b"%PDF-1.4\n%%EOF\n", "image/png")},
    )
    assert wrong.status_code == 400
    assert 'id="f-logo-error"' in wrong.text

    removed = await client.post(f"{page_path}/logo", data={"csrf_token": csrf, "remove": "yes"})
    assert removed.status_code == 303
    async with runtime.db.read() as session:
        assert await session.get(TenantLogo, tenant.tenant_id) is None

    cleared = await client.post(
        f"{page_path}/branding", data={"csrf_token": csrf, "displayName": "", "accentColor": ""}
    )
    assert cleared.status_code == 303
    async with runtime.db.read() as session:
        row = await session.get(Tenant, tenant.tenant_id)
        assert row is not None
        assert (row.display_name, row.accent_color) == (None, None)


async def test_analysts_cannot_brand(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    page = await client.get(f"/dashboard/tenants/{tenant.tenant_id}")
    assert "Save branding" not in page.text
    refused = await client.post(
        f"/dashboard/tenants/{tenant.tenant_id}/branding",
        data={"csrf_token": csrf, "displayName": "X"},
    )
    assert refused.status_code == 403
