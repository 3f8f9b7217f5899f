"""The case page (docs/workstation.md "The case page"): every decision it shows is one the
server accepts and every one it hides the server refuses, for each role, state and with and
without an open screening hit; the timeline merges all five kinds in time order; the
information-request form is folded until asked for; thumbnails keep the documents' access,
audit and content-type rules; and the page weighs under 30 KB."""

from __future__ import annotations

import io
import re
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image
from sqlalchemy import select, update

from gatehouse.audit.context import WriteContext
from gatehouse.decisions.service import make_decision
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.status import DECISION_ACTIONS
from gatehouse.errors import GatehouseError
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import AuditEntry
from tests.documents.support import applicant, pdf_bytes, png_bytes, upload
from tests.pages.helpers import dashboard_sign_in
from tests.pages.test_dashboard_workstation import decision_options, provision
from tests.screening.support import load, run_jobs, write_list
from tests.support.browser import SAME_ORIGIN
from tests.support.factories import StaffFixture, TenantFixture, make_staff

STATUSES = ("pending", "needs_info", "hold", "pending_approval", "active", "rejected")
BUDGET = 30 * 1024
ASSET_RE = re.compile(r'(?:href|src)="(/static/[^"]+)"')


class Undo(Exception):
    """Raised to roll a trial decision back."""


async def set_state(runtime: Runtime, client_id: str, status: str, proposer: str) -> None:
    proposed = status == "pending_approval"
    async with runtime.db.write() as session:
        await session.execute(
            update(Application)
            .where(Application.id == client_id)
            .values(
                status=status,
                status_before_proposal="pending" if proposed else None,
                proposed_by=proposer if proposed else None,
            )
        )


async def accepted(runtime: Runtime, staff: StaffFixture, client_id: str) -> list[str]:
    """The decisions the server accepts from `staff` now, each tried and rolled back."""
    principal = StaffPrincipal(staff.staff_id, staff.email, staff.role)
    taken: list[str] = []
    for action in DECISION_ACTIONS:
        try:
            async with runtime.db.write() as session:
                await make_decision(
                    session,
                    WriteContext.of(principal, None, runtime.now()),
                    principal,
                    client_id,
                    action=action,
                    comment=None,
                    rejection_reason="Because.",
                    acknowledgement="Seen in person.",
                    require_acknowledgement=True,
                )
                raise Undo
        except Undo:
            taken.append(action)
        except GatehouseError:
            pass
    return taken


def staff_client(app: FastAPI) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50001))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=SAME_ORIGIN)


async def test_what_the_page_offers_is_what_the_server_accepts(
    app: FastAPI,
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    tmp_path: Path,
) -> None:
    hit = await provision(client, tenant, email="r@example.test", companyName="Rosneft Oil Co")
    clear = await provision(client, tenant, email="h@example.test", companyName="Harbour Ltd")
    await load(runtime, write_list(tmp_path / "list.json"))
    await run_jobs(runtime)
    team = [await make_staff(runtime, r) for r in ("analyst", "mlro", "admin")]
    analyst = team[0]
    clients = []
    for staff in team:
        browser = staff_client(app)
        await dashboard_sign_in(browser, staff)
        clients.append((staff, browser))
    seen_withheld: set[str] = set()
    try:
        for status in STATUSES:
            for client_id in (hit, clear):
                await set_state(runtime, client_id, status, analyst.staff_id)
                for staff, browser in clients:
                    page = await browser.get(f"/dashboard/applications/{client_id}")
                    assert page.status_code == 200
                    shown = decision_options(page.text)
                    where = (status, client_id == hit, staff.role)
                    assert shown == await accepted(runtime, staff, client_id), where
                    if 'id="withheld"' in page.text:
                        seen_withheld.add(page.text.split('id="withheld"')[1].split("</ul>")[0])
    finally:
        for _staff, browser in clients:
            await browser.aclose()
    said = " ".join(seen_withheld)
    assert "open screening hit" in said  # the panel says why approval is missing
    assert "You proposed this approval" in said  # four eyes, to the proposer
    assert "needs the mlro role" in said  # an analyst, of countersigning


async def test_the_timeline_merges_every_kind_in_time_order(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="t@example.test", companyName="Time Ltd")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    base = f"/dashboard/applications/{client_id}"
    raised = await client.post(
        f"{base}/info-requests",
        data={
            "csrf_token": csrf,
            "comment": "One thing.",
            "item_type_0": "question",
            "item_prompt_0": "Who owns it?",
        },
    )
    assert raised.status_code == 303, raised.text
    noted = await client.post(f"{base}/notes", data={"csrf_token": csrf, "note": "Owner called."})
    assert noted.status_code == 303
    held = await client.post(f"{base}/decisions", data={"csrf_token": csrf, "action": "hold"})
    assert held.status_code == 303, held.text
    page = (await client.get(base)).text
    timeline = page.split('id="timeline"', 1)[1].split("</ol>", 1)[0]
    kinds = re.findall(r'<li class="tl-([a-z]+)"><b>([^<]+)</b>', timeline)
    assert {kind for kind, _label in kinds} == {"status", "request", "note", "event", "audit"}
    assert dict(kinds) == {
        "status": "Status",
        "request": "Information request",
        "note": "Internal note",
        "event": "Event sent",
        "audit": "Audit",
    }
    times = re.findall(r'<time datetime="([^"]+)"', timeline)
    assert times == sorted(times, reverse=True)
    assert "Owner called." in timeline
    assert "application.decision.hold" in timeline  # the audit trail's entry
    assert "application.decision.hold" in timeline.split("application.note.add")[0]  # newest first


async def test_a_long_timeline_is_paged(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="l@example.test")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    for n in range(8):  # a note and its audit entry each: 16 entries and more
        await client.post(
            f"/dashboard/applications/{client_id}/notes", data={"csrf_token": csrf, "note": f"n{n}"}
        )
    first = (await client.get(f"/dashboard/applications/{client_id}")).text
    assert first.count('<li class="tl-') == 12
    assert "?timeline=2#h-timeline" in first
    second = (await client.get(f"/dashboard/applications/{client_id}?timeline=2")).text
    assert 0 < second.count('<li class="tl-') < 12
    assert "?timeline=1#h-timeline" in second
    assert "?timeline=3" not in second
    odd = await client.get(f"/dashboard/applications/{client_id}?timeline=abc")
    assert odd.status_code == 200  # a bad page number is the first page


async def test_the_request_form_is_shown_only_when_asked_for(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, email="f@example.test")
    csrf = await dashboard_sign_in(client, await make_staff(runtime, "analyst"))
    path = f"/dashboard/applications/{client_id}"
    page = (await client.get(path)).text
    assert (
        f'<a class="button secondary" id="request-info" href="{path}?ask=1#request-info">' in page
    )
    assert 'name="item_prompt_0"' not in page
    asked = (await client.get(f"{path}?ask=1")).text
    assert '<section id="request-info"' in asked
    assert 'name="item_prompt_0"' in asked
    refused = await client.post(f"{path}/info-requests", data={"csrf_token": csrf, "comment": ""})
    assert refused.status_code == 400
    assert '<section id="request-info"' in refused.text  # the errors are in sight
    assert 'id="f-comment-error"' in refused.text


async def test_thumbnails_keep_the_documents_rules(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await applicant(client, tenant)
    image = io.BytesIO()
    Image.new("RGB", (1200, 600), (200, 30, 30)).save(image, format="JPEG")
    photo = (
        await upload(client, image.getvalue(), "image/jpeg", filename="my passport.jpg")
    ).json()
    scan = (await upload(client, png_bytes(b"tiny"), "image/png", document_type="proof")).json()
    pdf = (await upload(client, pdf_bytes(b"s"), "application/pdf", document_type="proof")).json()
    client.cookies.clear()
    analyst = await make_staff(runtime, "analyst")

    path = f"/dashboard/documents/{photo['documentId']}/thumbnail"
    signed_out = await client.get(path)
    assert signed_out.status_code in (302, 303)  # to the sign-in page
    await dashboard_sign_in(client, analyst)
    thumb = await client.get(path)
    assert thumb.status_code == 200
    assert thumb.headers["content-type"] == "image/png"
    assert thumb.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in thumb.headers["content-security-policy"]
    drawn = Image.open(io.BytesIO(thumb.content))
    assert drawn.format == "PNG"
    assert max(drawn.size) == 160
    assert drawn.size == (160, 80)  # the proportions kept
    small = await client.get(f"/dashboard/documents/{scan['documentId']}/thumbnail")
    assert small.status_code == 200
    assert b"tiny" not in small.content  # drawn afresh: the original's text chunk is gone
    not_image = await client.get(f"/dashboard/documents/{pdf['documentId']}/thumbnail")
    assert not_image.status_code == 400
    assert not_image.headers["content-type"].startswith("text/plain")
    missing = await client.get("/dashboard/documents/doc_nothere/thumbnail")
    assert missing.status_code == 404
    async with runtime.db.read() as session:
        audited = (
            await session.scalars(
                select(AuditEntry.target).where(AuditEntry.action == "document.thumbnail")
            )
        ).all()
    assert sorted(audited) == sorted([photo["documentId"], scan["documentId"]])


async def test_documents_have_readable_names_and_thumbnails(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    made = await applicant(client, tenant)
    await upload(client, png_bytes(), "image/png", filename="passport-front.png")
    client.cookies.clear()
    await dashboard_sign_in(client, await make_staff(runtime, "analyst"))
    page = (await client.get(f"/dashboard/applications/{made.client_id}")).text
    assert "<strong>Passport · passport-front.png</strong>" in page
    assert re.search(r'<img class="thumb" src="/dashboard/documents/doc_[a-z0-9]+/thumbnail"', page)


@pytest.mark.parametrize("role", ["analyst", "mlro", "admin"])
async def test_the_case_page_weighs_under_30_kb(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, role: str
) -> None:
    """A heavy case: long names, two requests of three long items, a full timeline page."""
    client_id = await provision(
        client, tenant, email="w" * 50 + "@example.test", companyName="C" * 200
    )
    staff = await make_staff(runtime, role)
    csrf = await dashboard_sign_in(client, staff)
    base = f"/dashboard/applications/{client_id}"
    for n in range(2):
        items = {f"item_prompt_{i}": f"Question {n}.{i} " + "q" * 60 for i in range(3)}
        items |= {f"item_type_{i}": "question" for i in range(3)}
        await client.post(
            f"{base}/info-requests", data={"csrf_token": csrf, "comment": "c" * 120, **items}
        )
    for n in range(25):
        await client.post(f"{base}/notes", data={"csrf_token": csrf, "note": f"{n} " + "x" * 80})
    page = await client.get(base)
    assert page.status_code == 200
    assets = ASSET_RE.findall(page.text)
    assert assets == ["/static/gatehouse.css", "/static/case.css"]  # no script
    total = len(page.content) + sum([len((await client.get(a)).content) for a in assets])
    print(f"case page as {role}: {total} bytes")
    assert total < BUDGET, total
