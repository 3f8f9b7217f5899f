"""The whole case in a real browser (Playwright driving Debian's Chromium).

A tenant provisions over the API and gets a link; the applicant opens it,
fills the form, uploads a document and submits; staff raise an information
request; the applicant answers it; an analyst proposes approval and is
not offered the countersign; an mlro countersigns; the applicant's status page
shows the approval; the tenant's local receiver got the signed events.
Every portal and dashboard page is photographed into test-artifacts/screenshots/
(docs/screenshots/ with GATEHOUSE_UPDATE_SCREENSHOTS=1, which refreshes the README's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

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
from tests.support.factories import StaffFixture, TenantFixture, add_intake, make_staff, make_tenant
from tests.webhooks.receiver import Receiver, running_receiver

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 780}
DESKTOP = {"width": 1280, "height": 900}
CHECKLIST = [
    {"key": "passport", "label": "Passport of a director", "kind": "document", "required": True},
    {"key": "form", "label": "Application form", "kind": "form", "required": True},
]
FORM_FIELDS = [
    {
        "key": "registrationNumber",
        "label": "Company registration number",
        "type": "text",
        "required": True,
    },
    {"key": "website", "label": "Website", "type": "url", "required": False},
    {"key": "activity", "label": "What the company does", "type": "textarea", "required": True},
]
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture
def stack(database_url: str) -> Iterator[Settings]:
    require_chromium()
    with live_gatehouse(database_url) as settings:
        yield settings


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def fits_the_screen(page: Any) -> bool:
    """Nothing overflows sideways (tables scroll inside their own box)."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def test_whole_case_in_the_browser(stack: Settings, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    base = str(stack.public_url)

    async def seed(
        runtime: Any,
    ) -> tuple[TenantFixture, str, StaffFixture, StaffFixture, StaffFixture]:
        tenant = await make_tenant(runtime, name="Northwind Payments")
        label_id = await add_intake(
            runtime,
            tenant.tenant_id,
            "Business onboarding",
            order=0,
            checklist=CHECKLIST,
            form_fields=FORM_FIELDS,
        )
        analyst = await make_staff(runtime, "analyst")
        mlro = await make_staff(runtime, "mlro")
        admin = await make_staff(runtime, "super_admin")
        return tenant, label_id, analyst, mlro, admin

    tenant, label_id, analyst, mlro, admin = with_runtime(stack, seed)
    passport = tmp_path / "passport.pdf"
    passport.write_bytes(PDF)
    bill = tmp_path / "utility-bill.pdf"
    bill.write_bytes(PDF)

    with (
        running_receiver(Receiver(expected_tenants={tenant.tenant_id})) as receiver,
        httpx.Client(base_url=base, headers=tenant.headers, timeout=10) as api,
    ):
        hook = api.post("/v1/webhooks", json={"url": receiver.url, "events": ["*"]})
        assert hook.status_code == 201, hook.text
        receiver.secrets.append(hook.json()["secret"])
        created = api.post(
            "/v1/login-sessions",
            json={
                "email": "ada@northwind.test",
                "companyName": "Northwind Ltd",
                "externalRef": "nw-001",
                "labelId": label_id,
            },
        )
        assert created.status_code == 201, created.text
        login_url = created.json()["loginUrl"]
        client_id = created.json()["clientId"]

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            applicant = browser.new_context(viewport=PHONE).new_page()
            staff_context = browser.new_context(viewport=DESKTOP)
            staff = staff_context.new_page()
            expect.set_options(timeout=10_000)

            # The applicant opens the link: a Continue page, nothing consumed yet.
            applicant.goto(login_url)
            expect(
                applicant.get_by_role("heading", name="Continue to your application")
            ).to_be_visible()
            shot(applicant, "portal-sign-in")
            applicant.get_by_role("button", name="Continue").click()
            applicant.wait_for_url(base + "/portal/form-parser")

            # Fill the form, save the draft.
            applicant.get_by_label("Company registration number").fill("SC123456")
            applicant.get_by_label("What the company does").fill("Card payments for cafés")
            applicant.get_by_role("button", name="Save draft").click()
            expect(applicant.get_by_text("Your draft is saved.")).to_be_visible()
            assert fits_the_screen(applicant)
            shot(applicant, "portal-form")

            # Upload the passport on the checklist page.
            applicant.get_by_role("link", name="Documents", exact=True).click()
            expect(applicant.get_by_text("0 of 2 required items done.")).to_be_visible()
            applicant.locator("#file-passport").set_input_files(str(passport))
            applicant.get_by_role("button", name="Upload").click()
            expect(applicant.get_by_text("1 of 2 required items done.")).to_be_visible()
            assert fits_the_screen(applicant)
            shot(applicant, "portal-upload-documents")

            # Submit, explicitly and confirmed.
            applicant.get_by_role("link", name="Form", exact=True).click()
            applicant.get_by_label("I confirm the information I gave is true and complete.").check()
            applicant.get_by_role("button", name="Submit application").click()
            applicant.wait_for_url(re.compile(r".*/portal/status.*"))
            expect(
                applicant.get_by_text("We have your application and are reviewing it.")
            ).to_be_visible()

            # Staff sign in and raise an information request.
            staff.goto(base + "/dashboard")
            shot(staff, "dashboard-sign-in")
            sign_in_staff(staff, base, analyst)
            expect(staff.get_by_role("link", name="Northwind Ltd")).to_be_visible()
            shot(staff, "dashboard-queue")
            staff.get_by_role("link", name="Northwind Ltd").click()
            staff.get_by_role("link", name="Request information").click()
            staff.get_by_label("Comment to the applicant").fill("Two more things, please.")
            staff.locator("#f-item_prompt_0").fill("Who are your three largest customers?")
            staff.locator("#f-item_type_1").select_option("document")
            staff.locator("#f-item_prompt_1").fill("A recent utility bill for the office")
            staff.get_by_role("button", name="Raise request").click()
            expect(staff.get_by_text("Information request raised.")).to_be_visible()

            # The applicant sees what is owed and answers.
            applicant.goto(base + "/portal/dashboard")
            expect(applicant.get_by_text("We need more information from you")).to_be_visible()
            expect(applicant.get_by_role("link", name=re.compile("Answer 2 items"))).to_be_visible()
            assert fits_the_screen(applicant)
            shot(applicant, "portal-dashboard")
            applicant.get_by_role("link", name=re.compile("Answer 2 items")).click()
            expect(applicant.get_by_text("Request 1 · round 1")).to_be_visible()
            assert fits_the_screen(applicant)
            shot(applicant, "portal-requests")
            applicant.get_by_label("Your answer").fill("Cafe Uno, Bean There, Brew Ha")
            applicant.get_by_role("button", name="Send answer").click()
            expect(applicant.get_by_text("Thank you. Your answer is sent.")).to_be_visible()
            applicant.get_by_label(re.compile("File")).set_input_files(str(bill))
            applicant.get_by_role("button", name="Upload").click()
            expect(applicant.get_by_text("you answered everything")).to_be_visible()

            # The analyst proposes approval; countersigning is not offered to the proposer.
            staff.reload()
            expect(staff.get_by_text("responded").first).to_be_visible()
            staff.get_by_label("Action").select_option("approve")
            staff.get_by_label("Comment (visible to the applicant)").fill("All checks complete.")
            staff.get_by_role("button", name="Record decision").click()
            expect(staff.get_by_text("Decision recorded.")).to_be_visible()
            expect(staff.locator(".status-hero .badge")).to_have_text("pending approval")
            offered = staff.locator("#f-action option").evaluate_all("os => os.map(o => o.value)")
            assert "countersign" not in offered
            assert "approve" not in offered
            expect(staff.locator("#withheld")).to_contain_text("You proposed this approval")
            expect(staff.locator(".status-hero .badge")).to_have_text("pending approval")
            shot(staff, "dashboard-countersign-refused")

            # An mlro countersigns.
            staff_context.clear_cookies()
            mlro_page = browser.new_context(viewport=DESKTOP).new_page()
            sign_in_staff(mlro_page, base, mlro)
            mlro_page.goto(f"{base}/dashboard/applications/{client_id}")
            mlro_page.get_by_label("Action").select_option("countersign")
            mlro_page.get_by_label("Comment (visible to the applicant)").fill(
                "Welcome aboard, Northwind."
            )
            mlro_page.get_by_role("button", name="Record decision").click()
            expect(mlro_page.locator(".status-hero .badge")).to_have_text("active")
            shot(mlro_page, "dashboard-application")

            # The reviewer opens the passport beside its checklist item: shown inline, in a
            # frame sandboxed by the policy it is served with, with a download beside it.
            mlro_page.get_by_role("link", name="View").first.click()
            expect(mlro_page.locator("iframe.document-frame")).to_be_visible()
            expect(mlro_page.get_by_role("link", name="Download").first).to_be_visible()
            shot(mlro_page, "dashboard-document")

            # The applicant's status page shows the approval.
            applicant.goto(base + "/portal/status")
            expect(applicant.get_by_role("heading", name="Approved")).to_be_visible()
            expect(applicant.locator("#decision-comment")).to_have_text(
                "Welcome aboard, Northwind."
            )
            assert fits_the_screen(applicant)
            shot(applicant, "portal-status")

            # The admin pages: tenants, one tenant (a new key shown once), webhooks,
            # verification; and the queue on a phone.
            admin_page = browser.new_context(viewport=DESKTOP).new_page()
            sign_in_staff(admin_page, base, admin)
            admin_page.get_by_role("link", name="Tenants", exact=True).click()
            admin_page.get_by_label("Tenant name").fill("Southwind Ltd")
            admin_page.get_by_role("button", name="Create tenant").click()
            expect(admin_page.get_by_text("Tenant created.")).to_be_visible()
            admin_page.get_by_label("applications:read").check()
            admin_page.get_by_role("button", name="Create key").click()
            expect(admin_page.locator("#new-api-key")).to_contain_text("service_")
            shot(admin_page, "dashboard-tenant")
            admin_page.get_by_role("link", name="Tenants", exact=True).click()
            shot(admin_page, "dashboard-tenants")
            admin_page.get_by_role("link", name="Webhooks", exact=True).click()
            expect(admin_page.get_by_text(receiver.url)).to_be_visible()
            shot(admin_page, "dashboard-webhooks")
            admin_page.get_by_role("link", name="Verification", exact=True).click()
            admin_page.get_by_label("Client name").fill("Identity checks")
            admin_page.get_by_role("button", name="Create client").click()
            expect(admin_page.locator("#new-client-secret")).to_be_visible()
            admin_page.get_by_label("Email").fill("ada@northwind.test")
            admin_page.get_by_label("Phone").fill("+44 20 7946 0000")
            admin_page.get_by_label("Application client ID (optional)").fill(client_id)
            admin_page.get_by_role("button", name="Create customer").click()
            expect(admin_page.get_by_text("Customer created.")).to_be_visible()
            shot(admin_page, "dashboard-verification")
            phone_staff = browser.new_context(viewport=PHONE).new_page()
            sign_in_staff(phone_staff, base, admin)
            assert fits_the_screen(phone_staff)
            shot(phone_staff, "dashboard-queue-phone")

            # A used link: the 410 page, which does not say why.
            gone = applicant.goto(login_url)
            assert gone is not None
            assert gone.status == 410
            expect(
                applicant.get_by_role("heading", name="This link is no longer valid")
            ).to_be_visible()
            shot(applicant, "portal-link-invalid")
            browser.close()

    # The tenant's local receiver got the events, each verified against the secret.
    wanted = {
        "application.submitted",
        "application.info_request.raised",
        "application.info_request.responded",
        "application.decision.proposed",
        "application.decision.approved",
        "application.status.changed",
    }
    receiver.wait_until(
        lambda got: wanted <= {r.headers.get("gatehouse-event-type") for r in got}, timeout=20
    )
    received = receiver.snapshot()
    assert all(r.verified for r in received)
    sequences = [
        r.json()["data"]["sequence"]
        for r in received
        if r.json()["data"].get("clientId") == client_id
    ]
    assert sorted(sequences) == sorted(set(sequences))
    final = httpx.get(f"{base}/v1/applications/{client_id}", headers=tenant.headers)
    assert final.json()["status"] == "active"
