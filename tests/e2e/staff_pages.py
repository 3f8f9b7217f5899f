"""Signing staff in through Chromium the way a person does (docs/staff-identity.md): the
invite on a first visit (password, authenticator app, recovery codes), then email, password
and a code from the app, computed with pyotp."""

from __future__ import annotations

import re
from typing import Any

from tests.pages.helpers import PASSWORD, next_code
from tests.support.factories import StaffFixture
from tests.support.leaks import remember


def accept_invite_in_browser(page: Any, staff: StaffFixture, password: str = PASSWORD) -> None:
    """Open the invite, set `password`, enrol the app; ends on the dashboard."""
    from playwright.sync_api import expect

    page.goto(staff.invite_url)
    expect(page.get_by_role("heading", name="Set your password")).to_be_visible()
    page.locator("#f-password").fill(password)
    page.locator("#f-password_confirm").fill(password)
    page.get_by_role("button", name="Set password").click()
    expect(page.get_by_role("heading", name="Set up your authenticator")).to_be_visible()
    staff.password = password
    remember(password)
    staff.totp_secret = page.locator("#totp-secret").inner_text().replace(" ", "")
    remember(staff.totp_secret)
    page.get_by_label("Code from the app").fill(next_code(staff))
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("heading", name="Your recovery codes")).to_be_visible()
    staff.recovery_codes = re.findall(
        r"[a-z0-9]{5}-[a-z0-9]{5}", page.locator("#recovery-codes").inner_text()
    )
    for code in staff.recovery_codes:
        remember(code)
    page.get_by_role("link", name="Continue to the dashboard").click()
    page.wait_for_url(re.compile(r".*/dashboard$"))


def password_step_in_browser(page: Any, base: str, staff: StaffFixture, password: str) -> None:
    page.goto(base + "/dashboard/sign-in")
    page.get_by_label("Email").fill(staff.email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in", exact=True).click()


def sign_in_in_browser(page: Any, base: str, staff: StaffFixture) -> None:
    """Email and password, then a code: ends on the dashboard."""
    assert staff.password is not None
    password_step_in_browser(page, base, staff, staff.password)
    page.wait_for_url(base + "/dashboard/sign-in/verify")
    page.get_by_label("Code").fill(next_code(staff))
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(base + "/dashboard")


def sign_in_staff(page: Any, base: str, staff: StaffFixture) -> None:
    """The first visit through the invite, later ones through the sign-in page."""
    if staff.password is None:
        accept_invite_in_browser(page, staff)
    else:
        sign_in_in_browser(page, base, staff)
