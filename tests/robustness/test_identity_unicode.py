"""Identities that Unicode cannot merge or split (docs/identity.md): the one email rule at
provisioning, members, sign-in links, staff creation, password sign-in and the queue's search,
and the externalRef rule. SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from gatehouse.accounts.lifecycle import create_staff_member
from gatehouse.audit.context import WriteContext
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from tests.api.support import provision
from tests.pages.helpers import PASSWORD, accept_invite, dashboard_sign_in
from tests.support.factories import StaffFixture, TenantFixture
from tests.support.leaks import remember

KELVIN = "\u212a"  # KELVIN SIGN: NFC and lower() both turn it into an ASCII k
# Spellings that must never reach kim@bucher.test's case, nor be a second case for one person.
REFUSED_EMAILS = {
    "kelvin": f"{KELVIN}im@example.test",
    "kelvin-domain": f"kim@exampl{KELVIN}.test",
    "zero-width": "ki\u200bm@example.test",
    "bom": "\ufeffkim@example.test",
    "non-ascii-local": "k\u00efm@example.test",
    "upper-non-ascii-domain": "kim@B\u00dcCHER.test",
    "zero-width-domain": "kim@exa\u200dmple.test",
    "fullwidth": "\uff4bim@example.test",
}


async def _count(client: httpx.AsyncClient, tenant: TenantFixture) -> int:
    listed = await client.get("/v1/applications?limit=100", headers=tenant.headers)
    return len(listed.json()["data"])


def _refused_field(response: httpx.Response, field: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid-argument"
    assert [d["field"] for d in error["details"]] == [field]


@pytest.mark.parametrize("email", list(REFUSED_EMAILS.values()), ids=list(REFUSED_EMAILS))
async def test_an_email_no_rule_can_make_safe_is_400_and_reaches_no_case(
    client: httpx.AsyncClient, tenant: TenantFixture, email: str
) -> None:
    kim = await provision(client, tenant, "kim@example.test")
    for path in ("/v1/applications", "/v1/login-sessions"):
        answer = await client.post(path, json={"email": email}, headers=tenant.headers)
        _refused_field(answer, "email")
    member = await client.post(
        f"/v1/applications/{kim['clientId']}/members", json={"email": email}, headers=tenant.headers
    )
    _refused_field(member, "email")
    assert await _count(client, tenant) == 1


async def test_composed_and_decomposed_spellings_are_one_person(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    composed = await provision(client, tenant, "Kim@B\u00fccher.test", companyName="B\u00fccher")
    decomposed = await provision(client, tenant, "kim@bu\u0308cher.test")
    assert composed["clientId"] == decomposed["clientId"]
    assert composed["applicantEmail"] == "kim@xn--bcher-kva.test"
    assert await _count(client, tenant) == 1
    # The same for an externalRef: NFC and NFD of one text are one identity.
    by_ref = await provision(client, tenant, "a@x.test", externalRef="Jos\u00e9-1")
    again = await provision(client, tenant, "a@x.test", externalRef="Jose\u0301-1")
    assert by_ref["clientId"] == again["clientId"]
    assert by_ref["externalRef"] == "Jos\u00e9-1"


async def test_an_external_ref_normalisation_would_change_is_400(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    await provision(client, tenant, "a@x.test", externalRef="Kref")
    answer = await client.post(
        "/v1/applications",
        json={"email": "a@x.test", "externalRef": f"{KELVIN}ref"},
        headers=tenant.headers,
    )
    _refused_field(answer, "externalRef")
    assert await _count(client, tenant) == 1


async def test_look_alike_staff_emails_never_look_alike_in_the_staff_list(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    made = await client.post(
        "/staff/v1/staff",
        json={"email": "kate@example.test", "role": "analyst"},
        headers=staff.headers,
    )
    assert made.status_code == 201, made.text
    remember(made.json()["token"])
    for email in (
        "kate\u200b@example.test",
        "\ufeffkate@example.test",
        f"{KELVIN}ate@example.test",
    ):
        refused = await client.post(
            "/staff/v1/staff", json={"email": email, "role": "analyst"}, headers=staff.headers
        )
        _refused_field(refused, "email")
    # A Cyrillic a in the domain: a different domain, shown in its xn-- form.
    cyrillic = await client.post(
        "/staff/v1/staff",
        json={"email": "kate@ex\u0430mple.test", "role": "analyst"},
        headers=staff.headers,
    )
    assert cyrillic.status_code == 201, cyrillic.text
    remember(cyrillic.json()["token"])
    listed = await client.get("/staff/v1/staff", headers=staff.headers)
    emails = [row["email"] for row in listed.json()["data"]]
    assert all(email.isascii() for email in emails)
    assert "kate@xn--exmple-4nf.test" in emails
    assert emails.count("kate@example.test") == 1


async def _kate(runtime: Runtime, client: httpx.AsyncClient) -> StaffFixture:
    ctx = WriteContext.system("cli", runtime.now())
    created = await create_staff_member(
        runtime, f"kate.{new_id('x')[-6:]}@example.test", "mlro", ctx
    )
    remember(created["token"])
    kate = StaffFixture(
        created["staffId"], created["email"], "mlro", created["token"], created["inviteUrl"]
    )
    await accept_invite(client, kate, PASSWORD)
    client.cookies.clear()
    return replace(kate, password=PASSWORD)


async def test_password_sign_in_with_a_kelvin_sign_is_refused(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    kate = await _kate(runtime, client)
    for email in (KELVIN + kate.email[1:], kate.email.upper()):
        answer = await client.post(
            "/dashboard/sign-in", data={"email": email, "password": PASSWORD, "next": "/dashboard"}
        )
        moved_on = answer.status_code == 303 and answer.headers["location"].endswith("/verify")
        # Upper case ASCII is the same person; the Kelvin sign is nobody.
        assert moved_on == (email == kate.email.upper()), answer.text
        client.cookies.clear()


async def test_the_queue_search_finds_either_spelling(
    client: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    made = await provision(client, tenant, "kim@b\u00fccher.test", companyName="Br\u00fcder GmbH")
    other = await provision(client, tenant, "other@example.test", companyName="Other")
    await dashboard_sign_in(client, staff)
    for q in ("kim@bu\u0308cher.test", "Bru\u0308der", "KIM@B\u00fcCHER.test"):
        found = await client.get("/dashboard", params={"q": q})
        assert found.status_code == 200, found.text
        assert made["clientId"] in found.text, q
        assert other["clientId"] not in found.text, q
