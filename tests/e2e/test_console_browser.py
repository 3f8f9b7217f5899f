"""The tenant console in Chromium (docs/console.md): the tenant's backend mints a link; the
developer continues, adds an endpoint (after a refused URL), sends a test to a real receiver,
rotates the secret, sees a real delivery in the history, browses the catalogue and the
applications, disables the endpoint; a used link is gone; revoking the key ends the session.

Every page state passes axe-core with no violation; each page (document, stylesheet, script)
weighs at most 30 KB; no request leaves the server's origin. With
GATEHOUSE_UPDATE_SCREENSHOTS=1 the endpoint page's picture goes to docs/screenshots/.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import pytest

from gatehouse.accounts.service import create_api_key, revoke_api_key, set_tenant_status
from gatehouse.audit.context import WriteContext
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
from tests.e2e.test_workstation_browser import AXE, DESKTOP, PHONE, axe_violations, fits_the_screen
from tests.support.factories import TenantFixture, make_tenant
from tests.support.leaks import remember
from tests.webhooks.conftest import emit
from tests.webhooks.receiver import Receiver, running_receiver

pytestmark = pytest.mark.browser

PAGE_BUDGET = 30 * 1024
T = TypeVar("T")


@dataclass
class Stack:
    settings: Settings
    base: str
    tenant: TenantFixture
    receiver: Receiver


@pytest.fixture
def stack(database_url: str) -> Iterator[Stack]:
    require_chromium()
    if not AXE.is_file():
        pytest.skip("AXE CHECKS SKIPPED: tests/e2e/node_modules/axe-core is missing")
    with live_gatehouse(database_url) as settings, running_receiver(Receiver()) as receiver:
        tenant = with_runtime(settings, lambda runtime: make_tenant(runtime, name="Northwind"))
        yield Stack(settings, str(settings.public_url), tenant, receiver)


def mint(stack: Stack, tenant: TenantFixture | None = None) -> str:
    headers = (tenant or stack.tenant).headers
    answer = httpx.post(f"{stack.base}/v1/console-sessions", json={}, headers=headers, timeout=10)
    assert answer.status_code == 201, answer.text
    url: str = answer.json()["url"]
    remember(url.rsplit("/", 1)[1])
    return url


class Weigher:
    """Every response the page loads, by URL, to weigh each page and find foreign requests."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.sizes: dict[str, int] = {}
        self.foreign: list[str] = []

    def saw(self, response: Any) -> None:
        if not response.url.startswith(self.base):
            self.foreign.append(response.url)
            return
        try:
            self.sizes[response.url.split("?")[0].split("#")[0]] = len(response.body())
        except Exception:  # a redirect has no body to read
            self.sizes.setdefault(response.url, 0)

    def page_weight(self, page: Any) -> int:
        """The document as the browser holds it, plus the stylesheet and script it loads."""
        document = len(page.evaluate("document.documentElement.outerHTML").encode())
        assets = sum(size for url, size in self.sizes.items() if "/static/" in url)
        return document + assets


def test_the_console_end_to_end(stack: Stack) -> None:
    from playwright.sync_api import expect, sync_playwright

    failures: list[str] = []
    weights: dict[str, int] = {}
    weigher = Weigher(stack.base)
    link = mint(stack)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        expect.set_options(timeout=10_000)
        context = browser.new_context(viewport=DESKTOP, bypass_csp=True)
        page = context.new_page()
        page.on("response", weigher.saw)

        def check(state: str) -> None:
            weights[state] = weigher.page_weight(page)  # before axe adds itself to the page
            failures.extend(f"{state}: {v}" for v in axe_violations(page))

        page.goto(link)
        expect(page.get_by_role("heading", name="Open the webhooks console")).to_be_visible()
        check("continue")
        page.get_by_role("button", name="Continue").click()
        expect(page).to_have_url(f"{stack.base}/console")
        expect(page.get_by_text("No endpoints yet.")).to_be_visible()
        check("endpoints, empty")

        page.get_by_label("Receiver URL").fill("ftp://hooks.example/x")
        page.get_by_role("button", name="Add endpoint").click()
        expect(page.locator("#f-url-error")).to_be_visible()
        check("endpoints, refused")
        page.get_by_label("Receiver URL").fill(stack.receiver.url)
        page.get_by_label("Description").fill("Order sync")
        page.get_by_label("Events, one per line").fill("application.*\n")
        page.get_by_role("button", name="Add endpoint").click()
        secret = page.locator("#new-secret").inner_text()
        remember(secret)
        endpoint_page = page.url
        assert "/console/webhooks/we_" in endpoint_page
        stack.receiver.secrets = [secret]
        check("endpoint, new secret")

        page.get_by_role("button", name="Send a test").click()
        expect(page.get_by_role("heading", name="Test send: received")).to_be_visible()
        (arrived,) = stack.receiver.wait_for(1)
        assert arrived.verified
        expect(page.get_by_role("cell", name=arrived.headers["gatehouse-event-id"])).to_have_count(
            2  # Gatehouse-Event-Id and webhook-id
        )
        check("endpoint, test result")

        page.get_by_role("button", name="Rotate secret").click()
        rotated = page.locator("#new-secret").inner_text()
        remember(rotated)
        assert rotated != secret
        expect(page.get_by_text("The previous secret stays valid until")).to_be_visible()
        check("endpoint, rotated")
        stack.receiver.secrets = [rotated]

        outside(stack.settings, lambda runtime: emit(runtime, stack.tenant.tenant_id))
        delivered = stack.receiver.wait_for(2)[1]
        assert delivered.verified
        for _ in range(50):
            page.goto(endpoint_page)
            if page.get_by_role("cell", name="succeeded").count():
                break
            page.wait_for_timeout(200)
        history = page.locator("#h-deliveries + form + .table-scroll")
        expect(history).to_contain_text("application.submitted")
        expect(history).to_contain_text("200")
        expect(history).to_contain_text(" ms")
        assert delivered.headers["gatehouse-signature"].split(" ")[0][3:] not in page.content()
        check("endpoint, history")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "console-endpoint.png"), full_page=True)

        page.get_by_role("button", name="Disable").click()
        expect(page.get_by_role("button", name="Enable")).to_be_visible()
        check("endpoint, disabled")
        page.get_by_role("link", name="Endpoints", exact=True).click()
        expect(page.get_by_role("cell", name="manual")).to_be_visible()
        check("endpoints, one disabled")

        page.get_by_role("link", name="Event catalogue").click()
        check("events")
        page.get_by_role("link", name="application.info_request.raised").click()
        expect(page.get_by_role("heading", name="JSON Schema")).to_be_visible()
        check("event type")
        page.get_by_role("link", name="Applications", exact=True).click()
        expect(page.get_by_text("No applications.")).to_be_visible()
        check("applications")
        page.goto(f"{stack.base}/console/webhooks/we_elsewhere")
        expect(page.get_by_role("heading", name="Not found")).to_be_visible()
        check("not found")

        page.set_viewport_size(PHONE)
        page.goto(f"{stack.base}/console")
        assert fits_the_screen(page)
        check("endpoints, phone")
        page.set_viewport_size(DESKTOP)

        page.goto(link)
        expect(page.get_by_role("heading", name="This console link cannot be used")).to_be_visible()
        check("used link")

        outside(stack.settings, lambda runtime: suspend(runtime, stack.tenant.tenant_id, True))
        page.goto(endpoint_page)
        expect(page.get_by_text("this console is read-only")).to_be_visible()
        expect(page.get_by_role("button", name="Enable")).to_have_count(0)
        check("endpoint, read-only")
        outside(stack.settings, lambda runtime: suspend(runtime, stack.tenant.tenant_id, False))

        # A key without applications:read: the applications page is refused.
        narrow = outside(stack.settings, lambda runtime: webhooks_only_key(runtime, stack))
        other = browser.new_context(viewport=DESKTOP, bypass_csp=True).new_page()
        other.on("response", weigher.saw)
        other.goto(mint(stack, narrow))
        other.get_by_role("button", name="Continue").click()
        expect(other.get_by_role("link", name="Applications", exact=True)).to_have_count(0)
        other.goto(f"{stack.base}/console/applications")
        expect(other.get_by_role("heading", name="Not allowed")).to_be_visible()
        page, kept = other, page
        check("forbidden")
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("heading", name="Signed out")).to_be_visible()
        check("signed out")
        page = kept

        outside(stack.settings, lambda runtime: revoke(runtime, stack.tenant.key_id))
        page.goto(f"{stack.base}/console")
        expect(page.get_by_role("heading", name="Your console session has ended")).to_be_visible()
        check("session ended")
        browser.close()

    print("console page weights (bytes):", weights)
    assert not failures, "\n".join(failures)
    assert not weigher.foreign, weigher.foreign
    heavy = {state: size for state, size in weights.items() if size > PAGE_BUDGET}
    assert not heavy, heavy


def outside(settings: Settings, work: Callable[[Runtime], Awaitable[T]]) -> T:
    """Run `work` on a runtime of its own, in another thread: Playwright's sync API keeps an
    event loop running in this one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(with_runtime, settings, work).result()


async def suspend(runtime: Runtime, tenant_id: str, suspended: bool) -> None:
    ctx = WriteContext.system("test", runtime.now())
    await set_tenant_status(runtime, ctx, tenant_id, "suspended" if suspended else "active")


async def webhooks_only_key(runtime: Runtime, stack: Stack) -> TenantFixture:
    key = await create_api_key(runtime, stack.tenant.tenant_id, "console", ["webhooks:manage"])
    remember(str(key["apiKey"]))
    return TenantFixture(stack.tenant.tenant_id, str(key["apiKey"]), str(key["keyId"]))


async def revoke(runtime: Runtime, key_id: str) -> None:
    await revoke_api_key(runtime, WriteContext.system("test", runtime.now()), key_id)
