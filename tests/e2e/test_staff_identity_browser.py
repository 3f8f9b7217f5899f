"""Staff identity in a real browser (Playwright driving Debian's Chromium, headless):
an invite, a password, TOTP (codes computed with pyotp), sign-in and sign-out; lockout;
passkeys through Chromium's virtual authenticator; single sign-on against a real OpenID
provider process; a deactivation made through another server process ending a live session;
and staff tokens never opening the dashboard. docs/staff-identity.md describes the pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import select

from gatehouse.app import create_app
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import AuditEntry
from tests.conftest import TEST_SECRET_KEY, make_settings
from tests.e2e.live_stack import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREENSHOTS,
    require_chromium,
    with_runtime,
)
from tests.e2e.staff_pages import (
    accept_invite_in_browser,
    password_step_in_browser,
    sign_in_in_browser,
)
from tests.pages.helpers import PASSWORD
from tests.support.databases import clear_all_tables
from tests.support.factories import StaffFixture, make_staff
from tests.support.leaks import remember
from tests.support.live import free_port, serve_in_thread
from tests.support.oidc_provider import CLIENT_ID, CLIENT_SECRET, oidc_provider, set_user
from tests.support.processes import clean_env, started

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
FAILED = "Sign-in failed. Check your email, password and code."


@contextmanager
def live(database_url: str, host: str = "127.0.0.1", **overrides: object) -> Iterator[Settings]:
    """A server in a thread at http://<host>:<port>, tables emptied first."""
    require_chromium()
    port = free_port()
    settings = make_settings(database_url, public_url=f"http://{host}:{port}", **overrides)
    with_runtime(settings, lambda runtime: clear_all_tables(runtime.db))
    with serve_in_thread(lambda: create_app(settings), port=port):
        yield settings


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=10_000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def staff_of(settings: Settings, role: str) -> StaffFixture:
    return with_runtime(settings, lambda runtime: make_staff(runtime, role))


def test_invite_totp_sign_in_sign_out_and_lockout(database_url: str) -> None:
    from playwright.sync_api import expect

    with live(database_url) as settings:
        base = str(settings.public_url)
        person = staff_of(settings, "super_admin")  # before Playwright holds the event loop
        with chromium() as browser:
            page = browser.new_context(viewport=DESKTOP).new_page()

            # The invite: a password, then the authenticator app, then the recovery codes.
            page.goto(person.invite_url)
            shot(page, "staff-invite")
            page.locator("#f-password").fill("password1234")
            page.locator("#f-password_confirm").fill("password1234")
            page.get_by_role("button", name="Set password").click()
            expect(page.locator("#f-password-error")).to_contain_text("too common")
            page.goto(base + "/dashboard/sign-in")
            accept_invite_in_browser(page, person)
            expect(
                page.get_by_role("link", name=re.compile(re.escape(person.email)))
            ).to_be_visible()

            # Sign out, and in again with the email, the password and a fresh code.
            page.get_by_role("button", name="Sign out", exact=True).click()
            page.wait_for_url(base + "/dashboard/sign-in")
            shot(page, "staff-sign-in")
            page.goto(base + "/dashboard/tenants")
            assert "/dashboard/sign-in" in page.url
            password_step_in_browser(page, base, person, PASSWORD)
            page.wait_for_url(base + "/dashboard/sign-in/verify")
            shot(page, "staff-sign-in-code")
            page.get_by_label("Code").fill("000000")
            page.get_by_role("button", name="Continue").click()
            expect(page.locator("#f-code-error")).to_contain_text(FAILED)
            sign_in_in_browser(page, base, person)

            # The admin pages: staff (an invite shown once) and one's own account.
            page.get_by_role("link", name="Staff", exact=True).click()
            page.get_by_label("Email of the new staff member").fill("grace@example.test")
            page.get_by_label("Role", exact=True).select_option("mlro")
            page.get_by_role("button", name="Send invite").click()
            expect(page.locator("#invite-url")).to_contain_text("/dashboard/invite/")
            shot(page, "staff-admin")
            page.get_by_role("link", name=re.compile(re.escape(person.email))).click()
            expect(page.get_by_role("heading", name="Your account")).to_be_visible()
            shot(page, "staff-account")
            page.get_by_role("button", name="Sign out", exact=True).click()

            # Five wrong passwords lock the account: the right one then gets the same answer.
            for _ in range(5):
                password_step_in_browser(page, base, person, "not the password at all")
                expect(page.get_by_role("alert")).to_contain_text(FAILED)
            password_step_in_browser(page, base, person, PASSWORD)
            expect(page.get_by_role("alert")).to_contain_text(FAILED)
            assert page.url.endswith("/dashboard/sign-in")


def test_passkeys_enrolled_named_removed_and_used(database_url: str) -> None:
    # WebAuthn wants a domain for the relying party: localhost, not an IP address.
    with live(database_url, host="localhost") as settings:
        person = staff_of(settings, "analyst")
        with chromium() as browser:
            walk_passkeys(browser, str(settings.public_url), person)
        assert with_runtime(settings, passkey_audit) == [
            "staff.factor_enrolled.passkey",
            "staff.factor_enrolled.passkey",
            "staff.factor_removed.passkey",
            "dashboard.sign_in.passkey",
        ]


def walk_passkeys(browser: Any, base: str, person: StaffFixture) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")

    def authenticator() -> str:
        options = {
            "protocol": "ctap2",
            "transport": "internal",
            "hasResidentKey": True,
            "hasUserVerification": True,
            "isUserVerified": True,
            "automaticPresenceSimulation": True,
        }
        added = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
        return str(added["authenticatorId"])

    accept_invite_in_browser(page, person)
    page.goto(base + "/dashboard/account")
    laptop = authenticator()
    page.get_by_label("Passkey name").fill("Work laptop")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.get_by_text("Passkey added.")).to_be_visible()
    # A second passkey on another authenticator, then the first one removed.
    cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": laptop})
    authenticator()
    page.get_by_label("Passkey name").fill("Security key")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.get_by_text("Passkey added.")).to_be_visible()
    expect(page.get_by_role("cell", name="Work laptop", exact=True)).to_be_visible()
    expect(page.get_by_role("cell", name="Security key", exact=True)).to_be_visible()
    shot(page, "staff-passkeys")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Remove Work laptop").click()
    expect(page.get_by_text("Passkey removed.")).to_be_visible()
    expect(page.get_by_role("cell", name="Work laptop", exact=True)).to_have_count(0)

    # Signed out, the password, then the passkey instead of a code.
    page.get_by_role("button", name="Sign out", exact=True).click()
    password_step_in_browser(page, base, person, PASSWORD)
    page.wait_for_url(base + "/dashboard/sign-in/verify")
    page.get_by_role("button", name="Use a passkey").click()
    page.wait_for_url(base + "/dashboard")
    expect(page.get_by_role("link", name=re.compile(re.escape(person.email)))).to_be_visible()


async def passkey_audit(runtime: Any) -> list[str]:
    async with runtime.db.read() as session:
        rows = await session.scalars(
            select(AuditEntry.action)
            .where(AuditEntry.action.like("%passkey%"))
            .order_by(AuditEntry.at, AuditEntry.id)
        )
        return list(rows)


def test_single_sign_on_through_a_real_provider(database_url: str) -> None:
    from playwright.sync_api import expect

    with (
        oidc_provider() as issuer,
        live(
            database_url,
            oidc_issuer=issuer,
            oidc_client_id=CLIENT_ID,
            oidc_client_secret=CLIENT_SECRET,
        ) as settings,
    ):
        base = str(settings.public_url)
        person = staff_of(settings, "mlro")
        set_user(issuer, "ada", person.email)
        set_user(issuer, "eve", "eve@elsewhere.test")
        remember(CLIENT_SECRET)
        with chromium() as browser:
            page = browser.new_context(viewport=DESKTOP).new_page()
            # The provider's authorization codes join the log leak check.
            codes: list[str] = []
            page.on("request", lambda request: codes.extend(codes_in(request.url)))
            page.goto(base + "/dashboard/tenants")
            page.get_by_role("link", name="Sign in with your organisation").click()
            page.wait_for_url(re.compile(re.escape(issuer) + "/oauth2/authorize.*"))
            page.locator("input[name=sub]").fill("ada")
            page.get_by_role("button", name="Authorize").click()
            page.wait_for_url(base + "/dashboard/tenants")
            expect(page.get_by_role("heading", name="Tenants")).to_be_visible()
            assert codes, "the provider sent no code back"
            page.get_by_role("button", name="Sign out", exact=True).click()

            # Someone the provider knows but Gatehouse does not: refused.
            page.get_by_role("link", name="Sign in with your organisation").click()
            page.locator("input[name=sub]").fill("eve")
            page.get_by_role("button", name="Authorize").click()
            expect(page.get_by_role("alert")).to_contain_text("Single sign-on did not sign you in")
            page.goto(base + "/dashboard")
            assert "/dashboard/sign-in" in page.url


def codes_in(url: str) -> list[str]:
    """The authorization codes a callback URL carries, remembered as secrets."""
    parts = urlsplit(url)
    if not parts.path.endswith("/dashboard/sign-in/oidc/callback"):
        return []
    found = parse_qs(parts.query).get("code", [])
    for code in found:
        remember(code)
    return found


def test_a_deactivation_through_another_process_ends_a_live_session(
    database_url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    with live(database_url) as settings:
        base = str(settings.public_url)
        person = staff_of(settings, "analyst")
        admin = staff_of(settings, "super_admin")
        other_port = free_port()
        other = f"http://127.0.0.1:{other_port}"
        env = clean_env(database_url=database_url, secret_key=TEST_SECRET_KEY, public_url=other)
        with (
            started(["serve", "--port", str(other_port), "--no-worker"], env, tmp_path) as server,
            chromium() as browser,
        ):
            server.wait_healthy(other)
            page = browser.new_context(viewport=DESKTOP).new_page()
            accept_invite_in_browser(page, person)
            page.goto(base + "/dashboard/tenants")
            expect(page.get_by_role("heading", name="Tenants")).to_be_visible()
            done = httpx.post(
                f"{other}/staff/v1/staff/{person.staff_id}/deactivate",
                headers=admin.headers,
                timeout=10,
            )
            assert done.status_code == 200, done.text
            # The very next request to the first server finds the session ended.
            page.reload()
            assert "/dashboard/sign-in" in page.url
        token_use = httpx.get(base + "/staff/v1/tokens", headers=person.headers, timeout=10)
        assert token_use.status_code == 401


def test_a_staff_token_never_opens_the_dashboard(database_url: str) -> None:
    from playwright.sync_api import expect

    with live(database_url) as settings:
        base = str(settings.public_url)
        person = staff_of(settings, "super_admin")
        with chromium() as browser:
            context = browser.new_context(
                viewport=DESKTOP, extra_http_headers={"Authorization": f"Bearer {person.token}"}
            )
            page = context.new_page()
            page.goto(base + "/dashboard")
            assert "/dashboard/sign-in" in page.url
            password_step_in_browser(page, base, person, person.token)
            expect(page.get_by_role("alert")).to_contain_text(FAILED)
            cookie = {"name": "gatehouse_dashboard", "value": person.token, "url": base}
            context.add_cookies([cookie])
            page.goto(base + "/dashboard")
            assert "/dashboard/sign-in" in page.url
