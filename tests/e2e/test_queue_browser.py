"""The queue says where the work is, in Chromium (docs/workstation.md "Work states"): cases in
every work state made through the real portal and staff API of a live server; as an mlro, the
counts per state, each state's filter, a sort by a column heading, 15 or more rows on a
1366x768 laptop screen, the whole view in the URL; axe-core finding no violation on any state,
on the laptop and on a 390 px phone; the page (HTML, CSS and JS) under 30 KB. Screenshots of
the queue on both (`GATEHOUSE_UPDATE_SCREENSHOTS=1` writes them into docs/screenshots/)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from gatehouse.domain.work_state import STATE_WORDS
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
from tests.e2e.test_portal_browser import _page_weight
from tests.e2e.test_workstation_browser import AXE, axe_violations, fits_the_screen, shot
from tests.pages.test_dashboard_queue_states import seed
from tests.support.factories import StaffFixture, make_staff, make_tenant

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
PAGE_BUDGET = 30 * 1024
EXTRA = 15  # more applications, never submitted: a full page of 25 rows


@dataclass
class Seeded:
    base: str
    mlro: StaffFixture
    ids: dict[str, str]


async def _seed(runtime: Runtime, settings: Settings) -> Seeded:
    base = str(settings.public_url)
    tenant = await make_tenant(runtime, name="Northwind Payments")
    people = {
        "analyst": await make_staff(runtime, "analyst"),
        "proposer": await make_staff(runtime, "analyst"),
        "mlro": await make_staff(runtime, "mlro"),
    }
    async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as client:
        ids = await seed(client, runtime, tenant, people)
        for n in range(EXTRA):
            made = await client.post(
                "/v1/applications",
                json={"email": f"extra{n}@example.test", "companyName": f"Extra Trading {n}"},
                headers=tenant.headers,
            )
            assert made.status_code == 201, made.text
    return Seeded(base, people["mlro"], ids)


def rows_on_screen(page: Any) -> int:
    """Table rows wholly inside the window without scrolling."""
    return int(
        page.evaluate(
            "[...document.querySelectorAll('tbody tr')]"
            ".filter(r => r.getBoundingClientRect().bottom <= window.innerHeight).length"
        )
    )


def test_the_queue_says_where_the_work_is(database_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    require_chromium()
    if not AXE.is_file():
        pytest.skip("AXE CHECKS SKIPPED: tests/e2e/node_modules/axe-core is missing")
    with live_gatehouse(database_url) as settings:
        seeded = with_runtime(settings, lambda runtime: _seed(runtime, settings))
        base = seeded.base
        failures: list[str] = []
        weights: dict[str, int] = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            expect.set_options(timeout=10_000)
            laptop = browser.new_context(viewport=LAPTOP, bypass_csp=True).new_page()
            sign_in_staff(laptop, base, seeded.mlro)
            laptop.goto(base + "/dashboard")
            total = 10 + EXTRA
            expect(laptop.locator('[data-state="all"] .count')).to_have_text(str(total))
            expect(laptop.locator('[data-state="countersign"] .count')).to_have_text("1")
            expect(laptop.locator('[data-state="new_answers"] .count')).to_have_text("2")
            expect(laptop.locator('[data-state="submitted"] .count')).to_have_text("1")
            expect(laptop.locator('[data-state="never_submitted"] .count')).to_have_text(
                str(1 + EXTRA)
            )
            assert rows_on_screen(laptop) >= 15, rows_on_screen(laptop)
            shot(laptop, "dashboard-queue-states")

            # The work for this mlro: a colleague's proposal to countersign, one click away.
            laptop.get_by_role("link", name=re.compile("^Awaiting your countersignature")).click()
            expect(laptop).to_have_url(re.compile(r"/dashboard\?state=countersign$"))
            expect(laptop.locator("tbody tr")).to_have_count(1)
            expect(laptop.locator("tbody tr")).to_contain_text("Proposed Proposal Ltd")
            expect(laptop.locator("tbody tr")).to_contain_text("Awaiting your countersignature")

            # Sorted by a heading, inside a state; the URL holds the whole view, so it can be
            # bookmarked: a fresh tab at that address shows the same rows.
            laptop.goto(base + "/dashboard?state=new_answers")
            laptop.get_by_role("link", name="Company", exact=True).click()
            expect(laptop).to_have_url(re.compile(r"state=new_answers&sort=company$"))
            names = laptop.locator("tbody tr td:first-child a").all_inner_texts()
            assert names == ["Answered Ltd", "Changed Ltd"]
            expect(laptop.locator('th[aria-sort="ascending"]')).to_contain_text("Company")
            laptop.get_by_role("link", name="Company", exact=True).click()
            expect(laptop).to_have_url(re.compile(r"sort=company_desc"))
            assert laptop.locator("tbody tr td:first-child a").all_inner_texts() == names[::-1]
            bookmark = laptop.url
            again = laptop.context.new_page()
            again.goto(bookmark)
            assert again.locator("tbody tr td:first-child a").all_inner_texts() == names[::-1]
            again.close()

            # Every state, on the laptop and on a phone: no axe violation; the page's weight.
            phone = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
            sign_in_staff(phone, base, seeded.mlro)
            for state in ["", *(s.value for s in STATE_WORDS)]:
                url = base + "/dashboard" + (f"?state={state}" if state else "")
                weights[state or "all"], _sizes = _page_weight(laptop, url, base)
                failures += [f"laptop {state or 'all'}: {v}" for v in axe_violations(laptop)]
                phone.goto(url)
                assert fits_the_screen(phone), state
                failures += [f"phone {state or 'all'}: {v}" for v in axe_violations(phone)]
            phone.goto(base + "/dashboard")
            shot(phone, "dashboard-queue-states-phone")
            browser.close()
        assert failures == []
        heavy = {state: size for state, size in weights.items() if size >= PAGE_BUDGET}
        assert heavy == {}, weights
