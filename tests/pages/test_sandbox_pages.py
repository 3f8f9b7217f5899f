"""Sandbox tenants in the pages (docs/sandbox.md): the portal's banner on every page that knows
the application, the dashboard's environment choice, badges, and the queue's default."""

from __future__ import annotations

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Tenant
from gatehouse.storage.tables.verification import VerificationClient
from tests.pages.helpers import csrf_of, dashboard_sign_in
from tests.support.factories import TenantFixture, make_staff, make_tenant

BANNER = 'class="sandbox-banner"'


async def login_path(client: httpx.AsyncClient, tenant: TenantFixture, email: str) -> str:
    response = await client.post(
        "/v1/login-sessions",
        json={"email": email, "companyName": "Blue Ltd"},
        headers=tenant.headers,
    )
    assert response.status_code == 201, response.text
    return str(response.json()["loginUrl"]).removeprefix("http://testserver")


async def portal_pages(client: httpx.AsyncClient, tenant: TenantFixture) -> list[str]:
    """Every page an applicant of `tenant` sees, signed in from a fresh link, then signed out."""
    path = await login_path(client, tenant, f"ana.{tenant.tenant_id[-6:]}@example.test")
    seen = [(await client.get(path)).text]
    signed_in = await client.post(path)
    assert signed_in.status_code == 303
    for page in (
        "/portal/dashboard",
        "/portal/status",
        "/portal/requests",
        "/portal/upload-documents",
        "/portal/form-parser",
    ):
        answer = await client.get(page)
        assert answer.status_code == 200, (page, answer.status_code)
        seen.append(answer.text)
    out = await client.post("/portal/sign-out", data={"csrf_token": csrf_of(seen[-1])})
    assert out.status_code == 200
    seen.append(out.text)
    return seen


async def test_a_sandbox_tenants_portal_shows_the_banner_on_every_page(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    sandbox = await make_tenant(runtime, name="Sandbox Co", environment="sandbox")
    pages = await portal_pages(client, sandbox)
    assert len(pages) == 7
    assert all(BANNER in page and "Sandbox" in page for page in pages)


async def test_a_live_tenants_portal_and_unusable_links_show_no_banner(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    assert not any(BANNER in page for page in await portal_pages(client, tenant))
    # A used link of a sandbox tenant: the page says nothing about whose link it was.
    sandbox = await make_tenant(runtime, name="Sandbox Co", environment="sandbox")
    path = await login_path(client, sandbox, "used@example.test")
    assert (await client.post(path)).status_code == 303
    client.cookies.clear()
    gone = await client.get(path)
    assert gone.status_code == 410
    assert BANNER not in gone.text


async def test_admins_create_sandbox_tenants_and_see_the_badge(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    form = await client.get("/dashboard/tenants")
    assert 'name="environment"' in form.text
    assert 'value="sandbox"' in form.text
    made = await client.post(
        "/dashboard/tenants",
        data={"csrf_token": csrf, "name": "Try Co", "environment": "sandbox"},
    )
    assert made.status_code == 303
    plain = await client.post("/dashboard/tenants", data={"csrf_token": csrf, "name": "Real Co"})
    assert plain.status_code == 303
    refused = await client.post(
        "/dashboard/tenants",
        data={"csrf_token": csrf, "name": "Odd Co", "environment": "staging"},
    )
    assert refused.status_code == 400
    assert 'id="f-environment-error"' in refused.text
    async with runtime.db.read() as session:
        rows = dict((await session.execute(select(Tenant.name, Tenant.environment))).all())
    assert rows == {"Try Co": "sandbox", "Real Co": "live"}

    listing = await client.get("/dashboard/tenants")
    row_of = {
        name: listing.text.split(f">{name}</a>", 1)[1].split("</tr>", 1)[0]
        for name in ("Try Co", "Real Co")
    }
    assert "badge-sandbox" in row_of["Try Co"]
    assert "badge-sandbox" not in row_of["Real Co"]
    page = await client.get(made.headers["location"])
    assert "badge-sandbox" in page.text


async def test_admins_create_sandbox_verification_clients(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    made = await client.post(
        "/dashboard/verification/clients",
        data={"csrf_token": csrf, "client_name": "Try KYC", "sandbox": "yes"},
    )
    assert made.status_code == 201
    plain = await client.post(
        "/dashboard/verification/clients", data={"csrf_token": csrf, "client_name": "Real KYC"}
    )
    assert plain.status_code == 201
    async with runtime.db.read() as session:
        rows = dict(
            (
                await session.execute(select(VerificationClient.name, VerificationClient.sandbox))
            ).all()
        )
    assert rows == {"Try KYC": True, "Real KYC": False}
    page = await client.get("/dashboard/verification")
    assert page.text.count("badge-sandbox") == 1


async def test_the_queue_leaves_sandbox_cases_out_unless_asked(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    sandbox = await make_tenant(runtime, name="Sandbox Co", environment="sandbox")
    for who, email in ((tenant, "live.case@example.test"), (sandbox, "sandbox.case@example.test")):
        made = await client.post("/v1/applications", json={"email": email}, headers=who.headers)
        assert made.status_code == 201
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)

    default = await client.get("/dashboard")
    assert default.status_code == 200
    assert "live.case@example.test" in default.text
    assert "sandbox.case@example.test" not in default.text

    included = await client.get("/dashboard", params={"sandbox": "1"})
    assert "live.case@example.test" in included.text
    assert "sandbox.case@example.test" in included.text
    rows = {
        email: included.text.split(email, 1)[1].split("</tr>", 1)[0]
        for email in ("live.case@example.test", "sandbox.case@example.test")
    }
    assert "badge-sandbox" in rows["sandbox.case@example.test"]
    assert "badge-sandbox" not in rows["live.case@example.test"]

    chosen = await client.get("/dashboard", params={"tenant": sandbox.tenant_id})
    assert "sandbox.case@example.test" in chosen.text
    assert "live.case@example.test" not in chosen.text


async def test_the_case_page_badges_a_sandbox_tenants_application(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    sandbox = await make_tenant(runtime, name="Sandbox Co", environment="sandbox")
    client_ids = {}
    for name, who in (("live", tenant), ("sandbox", sandbox)):
        made = await client.post(
            "/v1/applications", json={"email": f"{name}.case@example.test"}, headers=who.headers
        )
        assert made.status_code == 201, made.text
        client_ids[name] = made.json()["clientId"]
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)

    page = await client.get(f"/dashboard/applications/{client_ids['sandbox']}")
    assert page.status_code == 200
    hero = page.text.split('class="status-hero"', 1)[1].split("</div>", 1)[0]
    # Beside the status, in words (not colour alone), with a note saying what it means.
    assert '<span class="badge badge-sandbox">sandbox</span>' in hero
    assert 'id="sandbox-note" role="note"' in hero
    assert "not a real applicant" in hero
    tenant_fact = page.text.split("<dt>Tenant</dt>", 1)[1].split("</dd>", 1)[0]
    assert "Sandbox Co" in tenant_fact
    assert "badge-sandbox" in tenant_fact

    live = await client.get(f"/dashboard/applications/{client_ids['live']}")
    assert live.status_code == 200
    assert "badge-sandbox" not in live.text
    assert "sandbox-note" not in live.text
