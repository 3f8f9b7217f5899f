"""The case page in Chromium (docs/workstation.md "The case page"): as an analyst, an mlro and
an admin, on a case with an open screening hit and on one without, before and after a
proposal, on a desktop and a 390 px phone: axe-core finds no violation, the decision panel
stays in sight while the evidence scrolls (desktop), one column with 44 px targets (phone),
and the pictures for docs/screenshots/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
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
    _provision,
    axe_violations,
    fits_the_screen,
    shot,
)
from tests.screening.support import load, run_jobs, write_list
from tests.support.factories import StaffFixture, make_staff, make_tenant

pytestmark = pytest.mark.browser

SMALL_TARGETS = """() => [...document.querySelectorAll(
  'main a, main button, main select, main input:not([type=hidden]), main textarea, main summary')]
  .filter(e => e.offsetParent !== null)
  .filter(e => e.getBoundingClientRect().height < 44)
  .map(e => e.outerHTML.slice(0, 80))"""


async def _seed(
    runtime: Runtime, settings: Settings, path: Path
) -> tuple[dict[str, str], dict[str, StaffFixture]]:
    tenant = await make_tenant(runtime, name="Northwind Payments")
    cases = {
        "hit": await _provision(runtime, tenant.tenant_id, 1, "Rosneft Oil Co"),
        "clear": await _provision(runtime, tenant.tenant_id, 2, "Harbour Freight Ltd"),
    }
    await load(runtime, write_list(path))
    await run_jobs(runtime)
    team = {role: await make_staff(runtime, role) for role in ("analyst", "mlro", "admin")}
    return cases, team


def _check(page: Any, where: str, phone: bool) -> list[str]:
    failures = [f"{where}: {v}" for v in axe_violations(page)]
    if phone:
        if not fits_the_screen(page):
            failures.append(f"{where}: wider than the phone")
        small = page.evaluate(SMALL_TARGETS)
        failures += [f"{where}: target under 44 px: {s}" for s in small]
    return failures


def test_the_case_page_in_every_state(database_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    require_chromium()
    if not AXE.is_file():
        pytest.skip("AXE CHECKS SKIPPED: tests/e2e/node_modules/axe-core is missing")
    with live_gatehouse(database_url) as settings:
        cases, team = with_runtime(
            settings, lambda runtime: _seed(runtime, settings, tmp_path / "list.json")
        )
        base = str(settings.public_url)
        failures: list[str] = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            expect.set_options(timeout=15_000)
            pages: dict[tuple[str, str], Any] = {}
            for role, staff in team.items():
                for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                    page = browser.new_context(viewport=viewport, bypass_csp=True).new_page()
                    sign_in_staff(page, base, staff)
                    pages[role, size] = page

            def walk(state: str) -> None:
                for (role, size), page in pages.items():
                    for which, client_id in cases.items():
                        page.goto(f"{base}/dashboard/applications/{client_id}")
                        expect(page.locator("#h-decide")).to_be_visible()
                        where = f"{state} {which} {role} {size}"
                        failures.extend(_check(page, where, size == "phone"))

            walk("new")
            analyst = pages["analyst", "desktop"]
            # The hit blocks the proposal, and the panel says so.
            analyst.goto(f"{base}/dashboard/applications/{cases['hit']}")
            expect(analyst.locator("#withheld")).to_contain_text("open screening hit")
            analyst.goto(f"{base}/dashboard/applications/{cases['clear']}")
            analyst.get_by_label("Action").select_option("approve")
            analyst.get_by_label("Why approve anyway").fill("Seen at the branch.")
            analyst.get_by_role("button", name="Record decision").click()
            expect(analyst.get_by_text("Decision recorded.")).to_be_visible()
            expect(analyst.locator("#withheld")).to_contain_text("You proposed this approval")
            walk("proposed")

            # The panel stays in sight while the evidence scrolls (desktop).
            mlro = pages["mlro", "desktop"]
            mlro.goto(f"{base}/dashboard/applications/{cases['clear']}")
            mlro.mouse.wheel(0, 1500)
            mlro.wait_for_timeout(200)
            panel = "document.querySelector('.case-decide').getBoundingClientRect().top"
            top = mlro.evaluate(panel)
            assert 0 <= top <= 40, top
            mlro.evaluate("window.scrollTo(0, 0)")
            shot(mlro, "dashboard-case")
            # The information-request form opens from its link, without script.
            mlro.get_by_role("link", name="Request information").click()
            expect(mlro.get_by_label("Comment to the applicant")).to_be_visible()
            phone = pages["mlro", "phone"]
            phone.goto(f"{base}/dashboard/applications/{cases['clear']}")
            columns = phone.evaluate(
                "getComputedStyle(document.querySelector('.case-layout'))"
                ".gridTemplateColumns.split(' ').length"
            )
            assert columns == 1
            shot(phone, "dashboard-case-phone")
            browser.close()
        assert failures == []
