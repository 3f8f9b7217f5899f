"""Translated labels of an intake (docs/reference/staff-api.md, docs/reference/portal.md
"Translated labels"): checklist and form field labels per language beside the plain label,
validated by the staff API, shown by the portal in the reader's language with a fallback."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import func, select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Intake
from tests.support.factories import StaffFixture, TenantFixture

CHECKLIST = [
    {
        "key": "passport",
        "label": "Passport",
        "kind": "document",
        "required": True,
        "labels": {"de": "Reisepass", "ar": "جواز السفر"},
    },
    {"key": "profile", "label": "Profile", "kind": "form", "required": True},
]
FIELDS = [
    {
        "key": "vat",
        "label": "VAT number",
        "type": "text",
        "required": True,
        "labels": {"en": "VAT ID", "de": "Umsatzsteuer-ID", "ar": "الرقم الضريبي"},
    },
    {"key": "site", "label": "Website", "type": "url", "required": False},
]


async def _intakes(runtime: Runtime) -> int:
    async with runtime.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(Intake)) or 0)


async def _fields_of(runtime: Runtime, label_id: str) -> object:
    async with runtime.db.read() as session:
        intake = await session.get(Intake, label_id)
        assert intake is not None
        return intake.form_fields


async def _create(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture, **body: Any
) -> httpx.Response:
    return await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes",
        json={"name": "Translated", "order": 0, **body},
        headers=staff.headers,
    )


async def test_labels_per_language_are_stored_beside_the_plain_label(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    created = await _create(client, staff, tenant, checklist=CHECKLIST, formFields=FIELDS)
    assert created.status_code == 201, created.text
    assert created.json()["checklist"] == CHECKLIST
    assert created.json()["formFields"] == FIELDS
    # A plain entry stays as it was: no `labels` key appears.
    assert "labels" not in created.json()["formFields"][1]
    label = created.json()["labelId"]
    patched = await client.patch(
        f"/staff/v1/intakes/{label}",
        json={"formFields": [{**FIELDS[1], "labels": {"de": "Webseite"}}]},
        headers=staff.headers,
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["formFields"][0]["labels"] == {"de": "Webseite"}


async def test_unknown_languages_and_empty_labels_are_refused_naming_the_field(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture, runtime: Runtime
) -> None:
    before = await _intakes(runtime)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"formFields": [{**FIELDS[1], "labels": {"fr": "Site"}}]}, "formFields[0].labels.fr"),
        ({"checklist": [{**CHECKLIST[1], "labels": {"de": " "}}]}, "checklist[0].labels.de"),
        ({"checklist": [{**CHECKLIST[1], "labels": {"de": 3}}]}, "checklist[0].labels.de"),
        ({"checklist": [CHECKLIST[1], {**CHECKLIST[0], "labels": "x"}]}, "checklist[1].labels"),
        ({"formFields": [{**FIELDS[1], "labels": {"DE": "Webseite"}}]}, "formFields[0].labels.DE"),
    ]
    for body, field in cases:
        refused = await _create(client, staff, tenant, **body)
        assert refused.status_code == 400, (body, refused.text)
        error = refused.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"][0]["field"] == field, (body, error)
    assert await _intakes(runtime) == before
    # The same rule on PATCH, and nothing changes.
    label = tenant.label_id
    shown = await _fields_of(runtime, label)
    refused = await client.patch(
        f"/staff/v1/intakes/{label}",
        json={"formFields": [{**FIELDS[1], "labels": {"xx": "?"}}]},
        headers=staff.headers,
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["details"][0]["field"] == "formFields[0].labels.xx"
    assert await _fields_of(runtime, label) == shown


async def test_the_portal_shows_the_readers_language_with_a_fallback(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    created = await _create(client, staff, tenant, checklist=CHECKLIST, formFields=FIELDS)
    link = await client.post(
        "/v1/login-sessions",
        json={"email": "lea@example.test", "labelId": created.json()["labelId"]},
        headers=tenant.headers,
    )
    assert link.status_code == 201, link.text
    signed = await client.post(link.json()["loginUrl"].removeprefix("http://testserver"))
    assert signed.status_code == 303

    async def page(path: str, language: str) -> str:
        return (await client.get(path, headers={"Accept-Language": language})).text

    german = await page("/portal/form-parser", "de")
    assert '>Umsatzsteuer-ID <span class="req"' in german
    assert ">Website</label>" in german  # no German label: the plain one
    assert ">الرقم الضريبي <span" in await page("/portal/form-parser", "ar")
    assert ">VAT ID <span" in await page("/portal/form-parser", "en")
    assert "Hochladen: Reisepass" in await page("/portal/dashboard", "de")
    documents = await page("/portal/upload-documents", "ar")
    assert ">جواز السفر</h2>" in documents
    english = await page("/portal/upload-documents", "en")
    assert ">Passport</h2>" in english
