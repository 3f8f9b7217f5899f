"""Trimming comes before the text rule (docs/platform.md, "Text input"): a tab, a line break or
another Unicode space at the ends of a single-line value is trimmed, on every surface (tenant
and staff JSON, dashboard and portal forms); inside the value, or a control character that is
not white space, is still refused. SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import httpx
import pytest

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Tenant
from tests.pages.helpers import csrf_of, dashboard_sign_in
from tests.pages.portal_support import signed_in, the_application
from tests.support.factories import StaffFixture, TenantFixture

# White space at the ends, as a probe sends it.
ENDS = [("  ", "\t "), ("\t", "\n"), ("\r\n", "\u3000"), ("\u00a0", "\u2028"), ("\u205f", "\v")]


@pytest.mark.parametrize(("head", "tail"), ENDS)
async def test_tenant_api_trims_before_the_rule(
    client: httpx.AsyncClient, tenant: TenantFixture, head: str, tail: str
) -> None:
    body = {
        "email": f"{head}Ann@Example.test{tail}",
        "externalRef": f"{head}ref{tail}",
        "companyName": f"{head}Acme Ltd{tail}",
    }
    made = await client.post("/v1/applications", json=body, headers=tenant.headers)
    assert made.status_code == 201, made.text
    shown = made.json()
    assert (shown["applicantEmail"], shown["externalRef"], shown["companyName"]) == (
        "ann@example.test",
        "ref",
        "Acme Ltd",
    )
    # The same identity, sent with other white space, is the same application.
    again = await client.post(
        "/v1/applications",
        json={"email": "ann@example.test", "externalRef": "ref"},
        headers=tenant.headers,
    )
    assert again.json()["clientId"] == shown["clientId"]


@pytest.mark.parametrize(
    ("ref", "point"), [("re\tf", "U+0009"), ("ref\x01", "U+0001"), ("\x1fref", "U+001F")]
)
async def test_a_control_character_left_after_trimming_is_still_refused(
    client: httpx.AsyncClient, tenant: TenantFixture, ref: str, point: str
) -> None:
    answer = await client.post(
        "/v1/applications", json={"email": "a@x.test", "externalRef": ref}, headers=tenant.headers
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["details"][0]["field"] == "externalRef"
    assert point in answer.json()["error"]["details"][0]["issue"]


async def _tenant_named(runtime: Runtime, tenant_id: str) -> str:
    async with runtime.db.read() as session:
        row = await session.get(Tenant, tenant_id)
        assert row is not None
        return row.name


async def test_staff_api_and_dashboard_forms_trim_before_the_rule(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    made = await client.post(
        "/staff/v1/tenants", json={"name": "\tNorth Co\r\n"}, headers=staff.headers
    )
    assert made.status_code == 201, made.text
    assert await _tenant_named(runtime, made.json()["tenantId"]) == "North Co"
    csrf = await dashboard_sign_in(client, staff)
    posted = await client.post(
        "/dashboard/tenants", data={"csrf_token": csrf, "name": "\n South Co\t"}
    )
    assert posted.status_code == 303, posted.text
    tenant_id = posted.headers["location"].split("/")[-1].split("?")[0]
    assert await _tenant_named(runtime, tenant_id) == "South Co"
    inside = await client.post("/dashboard/tenants", data={"csrf_token": csrf, "name": "South\tCo"})
    assert inside.status_code == 400


async def test_portal_forms_trim_before_the_rule(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    page = await client.get("/portal/form-parser")
    saved = await client.post(
        "/portal/form-parser",
        data={
            "csrf_token": csrf_of(page.text),
            "companyName": "\t Green Ltd\n",
            "field.registrationNumber": "RN-1",
        },
    )
    assert saved.status_code == 303, saved.text
    assert (await the_application(runtime)).company_name == "Green Ltd"
