"""Helpers shared by the portal page tests: an intake with a checklist and a form, a sign-in
link for it, an applicant signed in through it, the one application of the test, and an
information request of one question and one document."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from tests.support.factories import TenantFixture, add_intake, make_staff

CHECKLIST = [
    {"key": "passport", "label": "Passport", "kind": "document", "required": True},
    {"key": "form", "label": "Application form", "kind": "form", "required": True},
]
FORM_FIELDS = [
    {"key": "registrationNumber", "label": "Registration number", "type": "text", "required": True},
    {"key": "website", "label": "Website", "type": "url", "required": False},
]
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


async def link_for(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    *,
    form_fields: list[dict[str, Any]] | None = None,
    company_name: str | None = "Blue Ltd",
    **extra: str,
) -> str:
    """A sign-in link (absolute) of a new application under a new intake with CHECKLIST and
    `form_fields` (FORM_FIELDS by default); provisioned without a company name when None."""
    label_id = await add_intake(
        runtime,
        tenant.tenant_id,
        "KYB",
        order=0,
        checklist=CHECKLIST,
        form_fields=FORM_FIELDS if form_fields is None else form_fields,
    )
    body: dict[str, str] = {"email": "ana@example.test", "labelId": label_id, **extra}
    if company_name is not None:
        body.setdefault("companyName", company_name)
    response = await client.post("/v1/login-sessions", json=body, headers=tenant.headers)
    assert response.status_code == 201, response.text
    return str(response.json()["loginUrl"])


async def signed_in(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    *,
    form_fields: list[dict[str, Any]] | None = None,
    company_name: str | None = "Blue Ltd",
    **extra: str,
) -> str:
    """Sign in through a fresh link (`link_for`); the portal path it redirects to."""
    login_url = await link_for(
        client, runtime, tenant, form_fields=form_fields, company_name=company_name, **extra
    )
    response = await client.post(login_url.removeprefix("http://testserver"))
    assert response.status_code == 303
    return str(response.headers["location"])


async def the_application(runtime: Runtime) -> Application:
    async with runtime.db.read() as session:
        return (await session.execute(select(Application))).scalar_one()


async def raise_question_and_document(
    client: httpx.AsyncClient, runtime: Runtime
) -> tuple[str, str, str]:
    """An analyst raises a request of one question and one document on the test's
    application: (requestId, the question's itemId, the document's itemId)."""
    app = await the_application(runtime)
    staff = await make_staff(runtime, "analyst")
    raised = await client.post(
        f"/staff/v1/applications/{app.id}/info-requests",
        json={
            "comment": "Two things",
            "items": [
                {"type": "question", "prompt": "What do you sell?"},
                {"type": "document", "prompt": "Upload a utility bill"},
            ],
        },
        headers=staff.headers,
    )
    assert raised.status_code == 201, raised.text
    question, document = (item["itemId"] for item in raised.json()["items"])
    return raised.json()["requestId"], question, document
