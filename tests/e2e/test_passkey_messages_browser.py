"""A failed passkey says why, in Chromium (docs/staff-identity.md "Passkeys"): each reason the
browser gives mapped to words, a page opened at 127.0.0.1 when Gatehouse lives at localhost,
a passkey enrolled twice on one device, and a cancelled sign-in; with Chromium's virtual
authenticator."""

from __future__ import annotations

import re

import pytest

from tests.e2e.live_stack import CHROMIUM, CHROMIUM_ARGS, with_runtime
from tests.e2e.staff_pages import accept_invite_in_browser, password_step_in_browser
from tests.e2e.test_staff_identity_browser import live
from tests.pages.helpers import PASSWORD
from tests.support.factories import make_staff

pytestmark = pytest.mark.browser

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}
# The browser's reasons (DOMException names) and the words the page answers each with.
REASONS = {
    "NotAllowedError": "The passkey was cancelled, or the time to use it ran out. Try again.",
    "AbortError": "The passkey was cancelled, or the time to use it ran out. Try again.",
    "SecurityError": "Passkeys are not allowed at this address ({here}). Open {origin}/dashboard",
    "InvalidStateError": "This device already holds a passkey for your account.",
    "NotSupportedError": "This browser or device cannot use passkeys here.",
    "UnknownError": "The passkey did not work. Try again.",
}


def test_a_failed_passkey_says_why(database_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with live(database_url, host="localhost") as settings:
        base = str(settings.public_url)
        port = base.rsplit(":", 1)[1]
        person = with_runtime(settings, lambda runtime: make_staff(runtime, "analyst"))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            expect.set_options(timeout=10_000)
            context = browser.new_context()
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("WebAuthn.enable")
            accept_invite_in_browser(page, person)
            page.goto(base + "/dashboard/account")

            # The mapping, reason by reason, as the page's own script answers.
            for name, expected in REASONS.items():
                said = page.evaluate(
                    "([name, origin]) => window.gatehousePasskeyWords("
                    "new DOMException('failed', name), origin)",
                    [name, base],
                )
                assert expected.format(here=base, origin=base) in said, name
            server = page.evaluate(
                "window.gatehousePasskeyWords({fromServer: true, message: 'Refused: why.'})"
            )
            assert server == "Refused: why."

            # Enrolled once; the same device again is refused by the browser, in words.
            cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
            status = page.locator("#passkey-status")
            page.get_by_label("Passkey name").fill("Laptop")
            page.get_by_role("button", name="Add a passkey").click()
            expect(page.get_by_text("Passkey added.")).to_be_visible()
            page.get_by_label("Passkey name").fill("Laptop again")
            page.get_by_role("button", name="Add a passkey").click()
            expect(status).to_contain_text("This device already holds a passkey")

            # Another device holds no passkey of this person: the browser gives up at once
            # (the person cancelled, as far as the page can tell).
            other = context.new_page()
            other_cdp = context.new_cdp_session(other)
            other_cdp.send("WebAuthn.enable")
            other_cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
            other.context.clear_cookies()
            password_step_in_browser(other, base, person, PASSWORD)
            other.wait_for_url(base + "/dashboard/sign-in/verify")
            other.get_by_role("button", name="Use a passkey").click()
            expect(other.locator("#passkey-status")).to_have_text(REASONS["NotAllowedError"])

            # The same server opened at 127.0.0.1: the page says where passkeys work.
            ip = browser.new_context().new_page()
            password_step_in_browser(ip, f"http://127.0.0.1:{port}", person, PASSWORD)
            ip.wait_for_url(re.compile(r".*/dashboard/sign-in/verify$"))
            ip.get_by_role("button", name="Use a passkey").click()
            expect(ip.locator("#passkey-status")).to_contain_text(
                f"Passkeys work only at {base}, and this page is open at http://127.0.0.1:{port}"
            )
            browser.close()
