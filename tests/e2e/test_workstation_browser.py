"""The reviewer's workstation in Chromium (docs/workstation.md): search the queue, find the case
waiting on the applicant with its reminder due, propose approval with the guard rails (only the
allowed moves, a reason asked for unsatisfied items), add an internal note, claim the case,
hand it over and unassign it, send a reminder; the queue and the case page on a 390 px phone
(screenshots) and axe-core finding no violation on either, on desktop and phone.

axe-core comes from tests/e2e/node_modules (`npm ci --prefix tests/e2e`, run by
scripts/bootstrap when npm is there).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from gatehouse.applications.service.provisioning import create_application
from gatehouse.audit.context import WriteContext
from gatehouse.domain.identity import normalize_applicant
from gatehouse.domain.principals import StaffPrincipal, TenantPrincipal
from gatehouse.info_requests.service import raise_request
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from tests.e2e.live_stack import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREENSHOTS,
    live_gatehouse,
    require_chromium,
    with_runtime,
)
from tests.e2e.staff_pages import sign_in_staff
from tests.support.factories import StaffFixture, make_staff, make_tenant

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
COMPANIES = ("Harbour Freight Ltd", "Lumen Studio", "Quarry Hill Farms", "Slowpoke Imports")


@dataclass
class Seeded:
    base: str
    ids: dict[str, str]
    analyst: StaffFixture
    colleague: StaffFixture
    request_id: str


@pytest.fixture
def seeded(database_url: str) -> Iterator[Seeded]:
    require_chromium()
    with live_gatehouse(database_url) as settings:
        yield with_runtime(settings, lambda runtime: _seed(runtime, settings))


async def _seed(runtime: Runtime, settings: Settings) -> Seeded:
    """Cases through the real services; Slowpoke's request was raised four days ago."""
    tenant = await make_tenant(runtime, name="Northwind Payments")
    play = await make_tenant(runtime, name="Playground", environment="sandbox")
    ids: dict[str, str] = {}
    for n, company in enumerate(COMPANIES):
        ids[company] = await _provision(runtime, tenant.tenant_id, n, company)
    ids["sandbox"] = await _provision(runtime, play.tenant_id, 9, "Harbour Sandbox Ltd")
    analyst = await make_staff(runtime, "analyst")
    colleague = await make_staff(runtime, "mlro")
    raiser = StaffPrincipal(analyst.staff_id, analyst.email, "analyst")
    ctx = WriteContext.of(raiser, None, runtime.now() - timedelta(days=4))
    async with runtime.db.write() as session:
        raised = await raise_request(
            session,
            ctx,
            raiser,
            ids["Slowpoke Imports"],
            comment="Two things, please.",
            items=[{"type": "question", "prompt": "Who are your largest customers?"}],
        )
    return Seeded(str(settings.public_url), ids, analyst, colleague, str(raised["requestId"]))


async def _provision(runtime: Runtime, tenant_id: str, n: int, company: str) -> str:
    principal = TenantPrincipal(tenant_id, "key_seed", frozenset(), "active")
    ctx = WriteContext.of(principal, None, runtime.now() - timedelta(days=10 - n))
    email = f"owner{n}@{company.split()[0].lower()}.test"
    applicant = normalize_applicant(email, f"REF-{n}", company)
    async with runtime.db.transaction() as connection:
        _status, view = await create_application(
            connection, runtime, ctx, principal, applicant, None
        )
    return str(view["clientId"])


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def fits_the_screen(page: Any) -> bool:
    """Nothing overflows sideways (tables scroll inside their own box)."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def axe_violations(page: Any) -> list[dict[str, Any]]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async () => { const r = await axe.run(document);"
        " return {violations: r.violations, passes: r.passes.length}; }"
    )
    assert result["passes"] > 10  # axe ran its rules on this page
    return [
        {"id": v["id"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in result["violations"]
    ]


def offered(page: Any) -> list[str]:
    values: list[str] = page.locator("#f-action option").evaluate_all("os => os.map(o => o.value)")
    return values


def test_the_reviewers_day_in_the_browser(seeded: Seeded) -> None:
    from playwright.sync_api import expect, sync_playwright

    if not AXE.is_file():
        pytest.skip(
            "AXE CHECKS SKIPPED: tests/e2e/node_modules/axe-core is missing "
            "(npm ci --prefix tests/e2e)"
        )
    base, ids = seeded.base, seeded.ids
    harbour, slow = ids["Harbour Freight Ltd"], ids["Slowpoke Imports"]
    failures: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        expect.set_options(timeout=10_000)
        # The dashboard's CSP allows no injected script: axe gets in with bypass_csp.
        page = browser.new_context(viewport=DESKTOP, bypass_csp=True).new_page()
        sign_in_staff(page, base, seeded.analyst)

        # The queue: sandbox cases stay out; search finds Harbour by a word of its name.
        expect(page.get_by_role("link", name="Lumen Studio")).to_be_visible()
        expect(page.get_by_role("link", name="Harbour Sandbox Ltd")).to_have_count(0)
        page.get_by_label("Search", exact=True).fill("HARBOUR")
        page.get_by_role("button", name="Search").click()
        expect(page.get_by_role("link", name="Harbour Freight Ltd")).to_be_visible()
        expect(page.get_by_role("link", name="Lumen Studio")).to_have_count(0)
        page.get_by_label("Search", exact=True).fill("")
        page.locator("#filters > summary").click()
        page.get_by_label("Waiting on").select_option("applicant")
        page.get_by_role("button", name="Apply").click()
        expect(page.locator("#filters")).to_have_attribute("open", "")
        slow_row = page.locator("tbody tr")
        expect(slow_row).to_have_count(1)
        expect(slow_row).to_contain_text("Slowpoke Imports")
        expect(slow_row).to_contain_text("reminder due")
        expect(slow_row).to_contain_text("4 d")
        failures += [f"queue: {v}" for v in axe_violations(page)]
        shot(page, "workstation-queue")

        # Guard rails: only the allowed moves; a reason asked for the missing passport.
        page.goto(f"{base}/dashboard/applications/{harbour}")
        assert offered(page) == ["approve", "reject", "hold"]
        expect(page.locator("#unsatisfied")).to_contain_text("Passport")
        page.get_by_label("Action").select_option("approve")
        page.get_by_role("button", name="Record decision").click()
        expect(page.locator("#f-acknowledge_reason-error")).to_contain_text("Passport")
        page.get_by_label(re.compile("Why approve anyway")).fill("Passport seen at the branch.")
        page.get_by_role("button", name="Record decision").click()
        expect(page.get_by_text("Decision recorded.")).to_be_visible()
        expect(page.locator(".status-hero .badge")).to_have_text("pending approval")
        assert offered(page) == ["reject", "hold"]
        expect(page.locator("#withheld")).to_contain_text("You proposed this approval")
        expect(page.get_by_text("Passport seen at the branch.")).to_be_visible()

        # An internal note.
        page.get_by_label("New note").fill("Director called back; all consistent.")
        page.get_by_role("button", name="Add note").click()
        expect(page.locator("#timeline")).to_contain_text("Director called back; all consistent.")
        expect(page.locator("#timeline")).to_contain_text(seeded.analyst.email)

        # Assignment: claim, hand to a colleague, unassign.
        page.get_by_role("button", name="Claim").click()
        expect(page.locator("#assignee")).to_have_text("You have this case.")
        page.get_by_label("Hand to a colleague").select_option(seeded.colleague.staff_id)
        page.get_by_role("button", name="Hand over").click()
        expect(page.locator("#assignee")).to_contain_text(seeded.colleague.email)
        page.get_by_role("button", name="Unassign").click()
        expect(page.locator("#assignee")).to_have_text("No one has this case.")
        failures += [f"case: {v}" for v in axe_violations(page)]
        shot(page, "workstation-case")

        # The reminder: sent from the case page, the flag gone from the queue.
        page.goto(f"{base}/dashboard/applications/{slow}")
        expect(page.get_by_text("reminder due")).to_be_visible()
        page.get_by_role("button", name="Send a reminder").click()
        expect(page.get_by_text(re.compile("Reminder sent"))).to_be_visible()
        expect(page.get_by_text(re.compile("Last reminder"))).to_be_visible()
        page.goto(f"{base}/dashboard?waiting=applicant")
        expect(page.locator("tbody tr")).to_contain_text("Slowpoke Imports")
        expect(page.locator("tbody tr")).not_to_contain_text("reminder due")

        # On a 390 px phone: the queue and the case page fit and pass axe.
        phone = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
        sign_in_staff(phone, base, seeded.analyst)
        phone.goto(f"{base}/dashboard?sort=oldest")
        expect(phone.get_by_role("link", name="Harbour Freight Ltd")).to_be_visible()
        assert fits_the_screen(phone)
        failures += [f"phone queue: {v}" for v in axe_violations(phone)]
        shot(phone, "workstation-queue-phone")
        phone.goto(f"{base}/dashboard/applications/{harbour}")
        expect(phone.locator("#timeline")).to_be_visible()
        assert fits_the_screen(phone)
        failures += [f"phone case: {v}" for v in axe_violations(phone)]
        shot(phone, "workstation-case-phone")
        browser.close()
    assert failures == []
