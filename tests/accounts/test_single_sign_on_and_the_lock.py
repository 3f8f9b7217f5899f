"""Single sign-on and the account lock (docs/staff-identity.md "Lockout and limits"), against
a real OpenID provider process on loopback: refusals of a known person count towards the
lock, and a locked account still signs in through the provider, whose checks stand in for
Gatehouse's password and factors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import select

from gatehouse.accounts.sign_in import LOCK_AFTER
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from tests.pages.helpers import PASSWORD, client_with, dashboard_sign_in
from tests.support.factories import make_staff
from tests.support.leaks import remember
from tests.support.oidc_provider import CLIENT_ID, CLIENT_SECRET, oidc_provider, set_user

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


async def through_the_provider(client: httpx.AsyncClient, sub: str) -> httpx.Response:
    """Start at Gatehouse, sign `sub` in at the provider, follow the callback."""
    start = await client.get("/dashboard/sign-in/oidc")
    assert start.status_code == 303, start.text
    async with httpx.AsyncClient(timeout=10) as browser:
        answer = await browser.post(start.headers["location"], data={"sub": sub})
    assert answer.status_code == 302, answer.text
    back = urlsplit(answer.headers["location"])
    return await client.get(f"{back.path}?{back.query}")


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
        refused = await through_the_provider(client, "ada")
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
    done = await through_the_provider(client, "ada")
    assert done.status_code == 200, done.text
    assert "gatehouse_dashboard=" in done.headers["set-cookie"]
    assert (await client.get("/dashboard")).status_code == 200
    # The lock still holds for the password.
    client.cookies.clear()
    again = await client.post(
        "/dashboard/sign-in", data={"email": person.email, "password": PASSWORD}
    )
    assert again.status_code == 400
