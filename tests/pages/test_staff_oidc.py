"""Single sign-on against a real OpenID provider process on loopback (docs/staff-identity.md
"Single sign-on"): the authorization code flow with PKCE, discovery from the issuer, and a
person matched by a verified email; unknown, unverified and deactivated people are refused,
and so is a callback whose state does not match. Refusals of a known person count towards the
account lock, and a locked account still signs in through the provider, whose checks stand in
for Gatehouse's password and factors ("Lockout and limits")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import select

from gatehouse.accounts.lifecycle import create_staff_member
from gatehouse.accounts.sign_in import LOCK_AFTER
from gatehouse.audit.context import WriteContext
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry, StaffMember
from tests.pages.helpers import PASSWORD, client_with, dashboard_sign_in
from tests.support.factories import StaffFixture, make_staff
from tests.support.leaks import remember
from tests.support.oidc_provider import CLIENT_ID, CLIENT_SECRET, oidc_provider, set_user

REFUSED = "Single sign-on did not sign you in."
FAILED = "Sign-in failed. Check your email, password and code."


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    remember(CLIENT_SECRET)
    with oidc_provider() as url:
        yield url


@pytest.fixture
async def sso(database_url: str, issuer: str) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
    async with client_with(
        database_url,
        oidc_issuer=issuer,
        oidc_client_id=CLIENT_ID,
        oidc_client_secret=CLIENT_SECRET,
    ) as pair:
        yield pair


async def provider_answer(
    client: httpx.AsyncClient, sub: str, next_path: str = "/dashboard"
) -> str:
    """Start at Gatehouse, sign `sub` in at the provider: the callback path and query."""
    start = await client.get("/dashboard/sign-in/oidc", params={"next": next_path})
    assert start.status_code == 303, start.text
    async with httpx.AsyncClient(timeout=10) as browser:
        answer = await browser.post(start.headers["location"], data={"sub": sub})
    assert answer.status_code == 302, answer.text
    back = urlsplit(answer.headers["location"])
    return f"{back.path}?{back.query}"


async def test_the_sign_in_page_offers_single_sign_on_only_when_configured(
    client: httpx.AsyncClient, sso: tuple[httpx.AsyncClient, Runtime]
) -> None:
    assert "/dashboard/sign-in/oidc" not in (await client.get("/dashboard/sign-in")).text
    assert (await client.get("/dashboard/sign-in/oidc")).status_code == 404
    sso_client, _ = sso
    page = await sso_client.get("/dashboard/sign-in")
    assert "Sign in with your organisation" in page.text


async def test_a_verified_email_of_an_active_staff_member_signs_in(
    sso: tuple[httpx.AsyncClient, Runtime], issuer: str
) -> None:
    client, runtime = sso
    person = await make_staff(runtime, "mlro")  # no password, no factor: the provider's count
    set_user(issuer, "ada", person.email.upper())
    start = await client.get("/dashboard/sign-in/oidc", params={"next": "/dashboard/tenants"})
    location = urlsplit(start.headers["location"])
    assert f"{location.scheme}://{location.netloc}" == issuer
    query = {k: v[0] for k, v in parse_qs(location.query).items()}
    assert query["response_type"] == "code"
    assert query["client_id"] == CLIENT_ID
    assert query["redirect_uri"] == "http://testserver/dashboard/sign-in/oidc/callback"
    assert query["code_challenge_method"] == "S256"
    assert len(query["code_challenge"]) == 43
    assert set(query["scope"].split()) >= {"openid", "email"}
    assert query["state"]
    assert query["nonce"]
    assert "samesite=lax" in start.headers["set-cookie"].lower()
    async with httpx.AsyncClient(timeout=10) as browser:
        answer = await browser.post(start.headers["location"], data={"sub": "ada"})
    back = urlsplit(answer.headers["location"])
    done = await client.get(f"{back.path}?{back.query}")
    assert done.status_code == 200, done.text
    assert 'http-equiv="refresh" content="0;url=/dashboard/tenants"' in done.text
    assert "gatehouse_dashboard=" in done.headers["set-cookie"]
    page = await client.get("/dashboard/tenants")
    assert page.status_code == 200
    assert person.email in page.text
    # The code and the flow are spent: the same callback again signs nobody in.
    client.cookies.delete("gatehouse_dashboard", path="/dashboard")
    again = await client.get(f"{back.path}?{back.query}")
    assert again.status_code == 400
    assert "gatehouse_dashboard=" not in again.headers.get("set-cookie", "")
    async with runtime.db.read() as session:
        signed = (
            await session.scalars(
                select(AuditEntry.actor).where(AuditEntry.action == "dashboard.sign_in.oidc")
            )
        ).all()
    assert signed == [f"staff:{person.staff_id}"]


@pytest.mark.parametrize("case", ["unverified", "unknown", "deactivated", "denied"])
async def test_refused_people_get_no_session(
    sso: tuple[httpx.AsyncClient, Runtime], issuer: str, case: str
) -> None:
    client, runtime = sso
    person: StaffFixture = await make_staff(runtime, "analyst")
    if case == "unverified":
        set_user(issuer, "eve", person.email, verified=False)
    elif case == "unknown":
        set_user(issuer, "eve", "stranger@example.test")
    elif case == "deactivated":
        set_user(issuer, "eve", person.email)
        async with runtime.db.write() as session:
            member = await session.get(StaffMember, person.staff_id)
            assert member is not None
            member.status = "deactivated"
    if case == "denied":
        start = await client.get("/dashboard/sign-in/oidc")
        async with httpx.AsyncClient(timeout=10) as browser:
            answer = await browser.post(start.headers["location"], data={"action": "deny"})
        back = urlsplit(answer.headers["location"])
        callback = f"{back.path}?{back.query}"
        assert "error=access_denied" in callback
        assert "state=" not in callback
    else:
        callback = await provider_answer(client, "eve")
    refused = await client.get(callback)
    assert refused.status_code == 403
    assert REFUSED in refused.text
    assert "gatehouse_dashboard=" not in refused.headers.get("set-cookie", "")
    assert (await client.get("/dashboard")).status_code == 303
    async with runtime.db.read() as session:
        failed = (
            await session.scalars(
                select(AuditEntry.target).where(AuditEntry.action == "dashboard.sign_in_failed")
            )
        ).all()
    # A denial at the provider comes back without our state: nothing to audit.
    expected = {"unverified": [person.staff_id], "deactivated": [person.staff_id]}
    assert failed == expected.get(case, ["unknown"] if case == "unknown" else [])


async def test_a_callback_with_another_state_is_refused(
    sso: tuple[httpx.AsyncClient, Runtime], issuer: str
) -> None:
    client, runtime = sso
    person = await make_staff(runtime, "analyst")
    set_user(issuer, "ada", person.email)
    callback = await provider_answer(client, "ada")
    path, _, query = callback.partition("?")
    params = {k: v[0] for k, v in parse_qs(query).items()}
    params["state"] = params["state"][::-1]
    forged = await client.get(path, params=params)
    assert forged.status_code == 403
    assert (await client.get("/dashboard")).status_code == 303
    # Without the flow cookie (another browser) the callback signs nobody in either.
    client.cookies.clear()
    assert (await client.get(callback)).status_code == 400


async def test_refusals_count_and_a_locked_account_still_signs_in_through_the_provider(
    sso: tuple[httpx.AsyncClient, Runtime], issuer: str
) -> None:
    client, runtime = sso
    person = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, person)  # a password and an app, too
    client.cookies.clear()

    # The provider vouches for the email but not as verified: refused, counted.
    set_user(issuer, "ada", person.email, verified=False)
    for _ in range(LOCK_AFTER):
        refused = await client.get(await provider_answer(client, "ada"))
        assert refused.status_code == 403
    async with runtime.db.read() as session:
        locked = (
            await session.scalars(
                select(AuditEntry.target).where(AuditEntry.action == "staff.locked")
            )
        ).all()
    assert locked == [person.staff_id]
    password = await client.post(
        "/dashboard/sign-in", data={"email": person.email, "password": PASSWORD}
    )
    assert password.status_code == 400
    assert FAILED in password.text

    # Verified at the provider: signed in although the account is locked.
    set_user(issuer, "ada", person.email)
    done = await client.get(await provider_answer(client, "ada"))
    assert done.status_code == 200, done.text
    assert "gatehouse_dashboard=" in done.headers["set-cookie"]
    assert (await client.get("/dashboard")).status_code == 200
    # The lock still holds for the password.
    client.cookies.clear()
    again = await client.post(
        "/dashboard/sign-in", data={"email": person.email, "password": PASSWORD}
    )
    assert again.status_code == 400


@pytest.mark.parametrize("spelling", ["\u212a", "\uff4b"], ids=["kelvin-sign", "fullwidth-k"])
async def test_a_verified_email_that_only_folds_to_a_staff_members_signs_nobody_in(
    sso: tuple[httpx.AsyncClient, Runtime], issuer: str, spelling: str
) -> None:
    """docs/identity.md: the provider's email goes through the same rule as every other."""
    client, runtime = sso
    ctx = WriteContext.system("cli", runtime.now())
    kate = await create_staff_member(runtime, "kate@example.test", "mlro", ctx)
    remember(kate["token"])
    set_user(issuer, "eve", spelling + "ate@example.test")
    refused = await client.get(await provider_answer(client, "eve"))
    assert refused.status_code == 403
    assert "gatehouse_dashboard=" not in refused.headers.get("set-cookie", "")
    # The plain spelling, upper case included, is kate.
    set_user(issuer, "kate", "KATE@example.test")
    done = await client.get(await provider_answer(client, "kate"))
    assert done.status_code == 200, done.text
