"""The insights page and the case page's "Change intake" in Chromium (docs/insights.md "The
page"; docs/case-work.md "Changing the intake"): the three charts and their tables drawn,
the period set through the form and kept in the URL, the CSV downloaded, the page fitting a
390 px phone, and axe-core finding no violation on desktop or phone."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from gatehouse.applications.service.provisioning import create_application
from gatehouse.audit.context import WriteContext
from gatehouse.decisions.service import make_decision
from gatehouse.domain.identity import normalize_applicant
from gatehouse.domain.principals import StaffPrincipal, TenantPrincipal
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.applications import Application
from tests.e2e.live_stack import (
    CHROMIUM,
    CHROMIUM_ARGS,
    live_gatehouse,
    require_chromium,
    with_runtime,
)
from tests.e2e.staff_pages import sign_in_staff
from tests.e2e.test_workstation_browser import (
    AXE,
    DESKTOP,
    PHONE,
    axe_violations,
    fits_the_screen,
    shot,
)
from tests.support.factories import StaffFixture, add_intake, make_staff, make_tenant

pytestmark = pytest.mark.browser


@dataclass
class Seeded:
    base: str
    tenant_id: str
    proposed: str
    company_intake: str
    mlro: StaffFixture
    admin: StaffFixture


@pytest.fixture
def seeded(database_url: str) -> Iterator[Seeded]:
    require_chromium()
    with live_gatehouse(database_url) as settings:
        yield with_runtime(settings, lambda runtime: _seed(runtime, settings))


async def _seed(runtime: Runtime, settings: Settings) -> Seeded:
    """Twelve cases of one tenant: four approved, two rejected, one proposed, five open."""
    tenant = await make_tenant(runtime, name="Northwind Payments")
    company_intake = await add_intake(runtime, tenant.tenant_id, "Companies", 5)
    analyst = await make_staff(runtime, "analyst")
    mlro = await make_staff(runtime, "mlro")
    admin = await make_staff(runtime, "admin")
    principal = TenantPrincipal(tenant.tenant_id, "key_seed", frozenset(), "active")
    ids = []
    for n in range(12):
        ctx = WriteContext.of(principal, None, runtime.now())
        applicant = normalize_applicant(f"owner{n}@example.test", f"REF-{n}", f"Company {n}")
        async with runtime.db.transaction() as connection:
            _status, view = await create_application(
                connection, runtime, ctx, principal, applicant, None
            )
        ids.append(str(view["clientId"]))
    signed = ["approve", "countersign"]
    moves = {
        0: signed,
        1: signed,
        2: signed,
        3: signed,
        4: ["reject"],
        5: ["reject"],
        6: ["approve"],
    }
    for n, actions in moves.items():
        for action in actions:
            who = mlro if action == "countersign" else analyst
            staff = StaffPrincipal(who.staff_id, who.email, who.role)
            async with runtime.db.write() as session:
                await make_decision(
                    session, WriteContext.of(staff, None, runtime.now()), staff, ids[n],
                    action=action, comment=None, rejection_reason="Not eligible.",
                )  # fmt: skip
    async with runtime.db.write() as session:
        for n, days in enumerate((0, 2, 5, 12, 1, 40, 3, 0, 2, 6, 20, 45)):
            await session.execute(
                update(Application)
                .where(Application.id == ids[n])
                .values(created_at=runtime.now() - timedelta(days=days))
            )
    return Seeded(str(settings.public_url), tenant.tenant_id, ids[6], company_intake, mlro, admin)


def test_insights_and_the_intake_change_in_the_browser(seeded: Seeded) -> None:
    from playwright.sync_api import expect, sync_playwright

    if not AXE.is_file():
        pytest.skip("AXE CHECKS SKIPPED: tests/e2e/node_modules/axe-core is missing")
    base = seeded.base
    failures: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        expect.set_options(timeout=10_000)
        page = browser.new_context(
            viewport=DESKTOP, bypass_csp=True, accept_downloads=True
        ).new_page()
        sign_in_staff(page, base, seeded.mlro)
        page.get_by_role("link", name="Insights").click()
        expect(page.get_by_role("heading", name="Insights", level=1)).to_be_visible()
        expect(page.locator("svg.chart")).to_have_count(3)
        expect(
            page.get_by_role(
                "img", name="Funnel: applications created in the period, and how far they got"
            )
        ).to_be_visible()
        funnel = page.locator("table", has=page.locator("caption", has_text="Funnel"))
        # 40 and 45 days ago are out of the last 30 days.
        expect(funnel.locator("tr", has_text="Created")).to_contain_text("10")
        expect(funnel.locator("tr", has_text="Approved")).to_contain_text("4")
        failures += [f"insights: {v}" for v in axe_violations(page)]
        shot(page, "insights-desktop")

        # The period through the form: it lands in the URL, and narrows the funnel.
        today = page.locator("#f-to").input_value()
        page.locator("#f-from").fill(today)
        page.get_by_label("Tenant").select_option(seeded.tenant_id)
        page.get_by_role("button", name="Show").click()
        page.wait_for_url(
            lambda url: f"from={today}" in url and f"tenant={seeded.tenant_id}" in url
        )
        # The two made today.
        expect(funnel.locator("tr", has_text="Created")).to_contain_text("2")
        with page.expect_download() as caught:
            page.get_by_role("link", name="Download these figures as CSV").click()
        content = Path(caught.value.path()).read_text(encoding="utf-8")
        rows = {(r[0], r[1]): r[3] for r in list(csv.reader(io.StringIO(content)))[1:]}
        assert rows[("funnel", "created")] == "2", rows
        assert rows[("filter", "tenantId")] == seeded.tenant_id

        # On a 390 px phone: it fits and passes axe.
        phone = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
        sign_in_staff(phone, base, seeded.mlro)
        phone.goto(f"{base}/dashboard/insights")
        expect(phone.locator("svg.chart")).to_have_count(3)
        assert fits_the_screen(phone)
        box: Any = phone.locator("svg.chart").first.bounding_box()
        assert box is not None
        assert box["width"] <= 390
        failures += [f"phone insights: {v}" for v in axe_violations(phone)]
        shot(phone, "insights-phone")

        # The case page as an admin: the consequences, the confirmation, the change.
        admin = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
        sign_in_staff(admin, base, seeded.admin)
        admin.goto(f"{base}/dashboard/applications/{seeded.proposed}")
        expect(admin.locator("#intake-consequences")).to_contain_text(
            "the proposed approval lapses"
        )
        assert fits_the_screen(admin)
        failures += [f"phone case: {v}" for v in axe_violations(admin)]
        admin.get_by_label("New intake").select_option(seeded.company_intake)
        admin.get_by_label("I have read what changing the intake does").check()
        admin.get_by_role("button", name="Change intake").click()
        expect(admin.get_by_text("Intake changed")).to_be_visible()
        expect(admin.locator(".status-hero .badge").first).to_contain_text("pending")
        admin.get_by_role("button", name="Check status").click()
        expect(admin.get_by_text("Status checked: it matches")).to_be_visible()
        failures += [f"phone case after: {v}" for v in axe_violations(admin)]
        browser.close()
    assert failures == [], "\n".join(failures)
