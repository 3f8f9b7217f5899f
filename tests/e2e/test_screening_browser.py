"""The case page's screening and risk panels in Chromium (docs/screening.md): a listed
company's hit shown with what the list says, axe-core finding no violation on desktop and
phone, and the hit resolved in place."""

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
from tests.e2e.test_workstation_browser import AXE, DESKTOP, PHONE, _provision, axe_violations
from tests.screening.support import load, run_jobs, write_list
from tests.support.factories import StaffFixture, make_staff, make_tenant

pytestmark = pytest.mark.browser


async def _seed(runtime: Runtime, settings: Settings, path: Path) -> tuple[str, StaffFixture]:
    tenant = await make_tenant(runtime, name="Northwind Payments")
    client_id = await _provision(runtime, tenant.tenant_id, 1, "Rosneft Oil Co")
    await load(runtime, write_list(path))
    await run_jobs(runtime)
    return client_id, await make_staff(runtime, "mlro")


def test_a_hit_on_the_case_page_in_the_browser(database_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    require_chromium()
    if not AXE.is_file():
        pytest.skip("AXE CHECKS SKIPPED: tests/e2e/node_modules/axe-core is missing")
    with live_gatehouse(database_url) as settings:
        client_id, mlro = with_runtime(
            settings, lambda runtime: _seed(runtime, settings, tmp_path / "list.json")
        )
        base = str(settings.public_url)
        failures: list[Any] = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            expect.set_options(timeout=15_000)
            page = browser.new_context(viewport=DESKTOP, bypass_csp=True).new_page()
            sign_in_staff(page, base, mlro)
            page.goto(f"{base}/dashboard/applications/{client_id}")
            panel = page.locator("#h-screening").locator("xpath=..")
            expect(panel).to_contain_text("Rosneft Oil Company")
            expect(panel).to_contain_text("sanction")
            expect(page.locator("#h-risk")).to_be_visible()
            failures += [f"case: {v}" for v in axe_violations(page)]
            phone = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
            sign_in_staff(phone, base, mlro)
            phone.goto(f"{base}/dashboard/applications/{client_id}")
            failures += [f"phone case: {v}" for v in axe_violations(phone)]
            panel.get_by_label("Comment").first.fill("A different company.")
            panel.get_by_role("button", name="Resolve").first.click()
            expect(page.locator("#screening-status")).to_contain_text("clear")
            expect(panel).to_contain_text("A different company.")
            browser.close()
        assert failures == []
