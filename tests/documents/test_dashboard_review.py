"""Reviewing documents on the dashboard's case page: each upload beside the checklist item it
satisfies, the form answers beside the form item, item answers (text and document) beside
their item; the inline view in a sandboxed frame served with a strict policy; the download;
every opening audited as `document.view`."""

from __future__ import annotations

import hashlib
import re

import httpx
from sqlalchemy import select, update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Intake
from gatehouse.storage.tables.core import AuditEntry
from tests.documents.support import applicant, pdf_bytes, png_bytes, upload
from tests.pages.helpers import dashboard_sign_in
from tests.support.factories import TenantFixture, make_staff

CHECKLIST = [
    {"key": "passport", "label": "Passport", "kind": "document", "required": True},
    {"key": "details", "label": "Company details", "kind": "form", "required": True},
]
FORM_FIELDS = [{"key": "taxNumber", "label": "Tax number", "type": "text", "required": True}]


async def views(runtime: Runtime) -> list[tuple[str, str]]:
    async with runtime.db.read() as session:
        rows = await session.execute(
            select(AuditEntry.target, AuditEntry.actor).where(AuditEntry.action == "document.view")
        )
        return [tuple(row) for row in rows.all()]  # type: ignore[misc]


async def test_the_case_page_shows_the_evidence_and_opens_it(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    async with runtime.db.write() as session:
        await session.execute(
            update(Intake)
            .where(Intake.id == tenant.label_id)
            .values(checklist=CHECKLIST, form_fields=FORM_FIELDS)
        )
    made = await applicant(client, tenant)
    passport = png_bytes(b"passport scan")
    uploaded = await upload(client, passport, "image/png")
    assert uploaded.status_code == 201
    passport_id = uploaded.json()["documentId"]
    saved = await client.post(
        "/portal/api/form", json={"companyName": "Blue Ltd", "fields": {"taxNumber": "GB-778"}}
    )
    assert saved.status_code == 200

    analyst = await make_staff(runtime, "analyst")
    raised = await client.post(
        f"/staff/v1/applications/{made.client_id}/info-requests",
        json={
            "comment": "Two more things.",
            "items": [
                {"type": "question", "prompt": "Who are your main customers?"},
                {"type": "document", "prompt": "A recent bank statement"},
            ],
        },
        headers=analyst.headers,
    )
    assert raised.status_code == 201, raised.text
    request = raised.json()
    question, statement_item = (item["itemId"] for item in request["items"])
    rid = request["requestId"]
    statement = pdf_bytes(b"bank statement")
    sent = await upload(client, statement, "application/pdf", document_type="requested_document")
    statement_id = sent.json()["documentId"]
    for item, body in (
        (question, {"answer": "Bakeries in Leeds"}),
        (statement_item, {"documentId": statement_id}),
    ):
        answered = await client.post(
            f"/portal/api/info-requests/{rid}/items/{item}/answer", json=body
        )
        assert answered.status_code == 200, answered.text

    await dashboard_sign_in(client, analyst)
    page = await client.get(f"/dashboard/applications/{made.client_id}")
    assert page.status_code == 200
    html = page.text
    checklist = html[html.index('id="h-checklist"') : html.index('id="h-docs"')]
    # The passport beside its item, the form answer beside the form item.
    assert passport_id in checklist
    assert "Tax number" in checklist
    assert "GB-778" in checklist
    assert hashlib.sha256(passport).hexdigest()[:12] in html
    requests = html[html.index('id="h-requests"') :]
    assert "Bakeries in Leeds" in requests
    assert statement_id in requests
    # Nothing was opened by showing the page.
    assert await views(runtime) == []

    viewing = await client.get(f"/dashboard/applications/{made.client_id}?document={passport_id}")
    frame = re.search(r"<iframe[^>]*>", viewing.text)
    assert frame, "no frame for the document"
    assert 'sandbox=""' in frame.group(0)
    assert f'src="/dashboard/documents/{passport_id}/view"' in frame.group(0)
    # Beside the frame, the download button of the document it shows.
    viewer = viewing.text[viewing.text.index('id="h-viewer"') :]
    download_button = f'href="/dashboard/documents/{passport_id}/download">Download</a>'
    assert download_button in viewer
    pdf_view = await client.get(f"/dashboard/applications/{made.client_id}?document={statement_id}")
    pdf_frame = re.search(r"<iframe[^>]*>", pdf_view.text)
    assert pdf_frame
    assert f"/dashboard/documents/{statement_id}/view" in pdf_frame.group(0)

    inline = await client.get(f"/dashboard/documents/{passport_id}/view")
    assert inline.status_code == 200
    assert inline.content == passport
    assert inline.headers["content-type"] == "image/png"
    assert inline.headers["content-disposition"] == f'inline; filename="{passport_id}.png"'
    assert inline.headers["x-content-type-options"] == "nosniff"
    assert inline.headers["cache-control"] == "no-store"
    policy = inline.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "sandbox" in policy
    assert "frame-ancestors 'self'" in policy
    assert "script-src" not in policy

    download = await client.get(f"/dashboard/documents/{statement_id}/download")
    assert download.status_code == 200
    assert download.content == statement
    assert download.headers["content-disposition"] == (f'attachment; filename="{statement_id}.pdf"')
    assert download.headers["content-type"] == "application/pdf"
    actor = f"staff:{analyst.staff_id}"
    assert sorted(await views(runtime)) == sorted([(passport_id, actor), (statement_id, actor)])


async def test_the_inline_view_needs_a_signed_in_viewer(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await applicant(client, tenant)
    uploaded = await upload(client, png_bytes(), "image/png")
    document_id = uploaded.json()["documentId"]
    anonymous = await client.get(f"/dashboard/documents/{document_id}/view")
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/dashboard/sign-in")
    assert await views(runtime) == []
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)
    missing = await client.get("/dashboard/documents/doc_unknown/view")
    assert missing.status_code == 404
    assert "default-src 'none'" in missing.headers["content-security-policy"]
