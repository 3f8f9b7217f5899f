"""A tenant's branding through the staff API (docs/reference/staff-api.md §4, §13) and as the
portal serves it (docs/reference/portal.md, "Branding"): display name, accent colour, logo."""

from __future__ import annotations

import hashlib

import httpx
import pytest
from sqlalchemy import select

from gatehouse.accounts.branding import LOGO_MAX_BYTES
from gatehouse.domain.branding import contrast, palette
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry, TenantLogo
from tests.documents.support import pdf_bytes, png_bytes
from tests.support.factories import StaffFixture, TenantFixture, make_staff

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + bytes(64)
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(40)


async def patch(
    client: httpx.AsyncClient, staff: StaffFixture, tenant_id: str, body: object
) -> httpx.Response:
    return await client.patch(f"/staff/v1/tenants/{tenant_id}", json=body, headers=staff.headers)


async def put_logo(
    client: httpx.AsyncClient,
    staff: StaffFixture,
    tenant_id: str,
    content: bytes,
    content_type: str,
) -> httpx.Response:
    return await client.put(
        f"/staff/v1/tenants/{tenant_id}/logo",
        content=content,
        headers={**staff.headers, "Content-Type": content_type},
    )


async def test_display_name_and_accent_colour(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tenant: TenantFixture
) -> None:
    tenant_id = tenant.tenant_id
    before = await client.get(f"/staff/v1/tenants/{tenant_id}", headers=staff.headers)
    assert before.json()["displayName"] is None
    assert before.json()["accentColor"] is None
    assert before.json()["logoUrl"] is None

    done = await patch(
        client, staff, tenant_id, {"displayName": "  Northwind   Bank ", "accentColor": "#FFD400"}
    )
    assert done.status_code == 200, done.text
    assert done.json()["displayName"] == "Northwind Bank"
    assert done.json()["accentColor"] == "#ffd400"
    got = await client.get(f"/staff/v1/tenants/{tenant_id}", headers=staff.headers)
    assert (got.json()["displayName"], got.json()["accentColor"]) == ("Northwind Bank", "#ffd400")

    cleared = await patch(client, staff, tenant_id, {"displayName": None, "accentColor": None})
    assert cleared.status_code == 200
    assert (cleared.json()["displayName"], cleared.json()["accentColor"]) == (None, None)
    async with runtime.db.read() as session:
        actions = (
            await session.scalars(select(AuditEntry.action).where(AuditEntry.target == tenant_id))
        ).all()
    assert list(actions).count("tenant.updated") == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"accentColor": "red"}, "accentColor"),
        ({"accentColor": "#12345"}, "accentColor"),
        ({"accentColor": "#1234567"}, "accentColor"),
        ({"accentColor": "#12345g"}, "accentColor"),
        ({"accentColor": "rgb(1,2,3)"}, "accentColor"),
        ({"accentColor": 123456}, "accentColor"),
        ({"displayName": "x" * 101}, "displayName"),
        ({"displayName": 5}, "displayName"),
    ],
)
async def test_branding_fields_are_checked(
    client: httpx.AsyncClient,
    staff: StaffFixture,
    tenant: TenantFixture,
    body: dict[str, object],
    field: str,
) -> None:
    refused = await patch(client, staff, tenant.tenant_id, body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "invalid-argument"
    assert refused.json()["error"]["details"][0]["field"] == field
    got = await client.get(f"/staff/v1/tenants/{tenant.tenant_id}", headers=staff.headers)
    assert (got.json()["displayName"], got.json()["accentColor"]) == (None, None)


@pytest.mark.parametrize(
    ("content", "content_type"),
    [(png_bytes(), "image/png"), (JPEG, "image/jpeg"), (WEBP, "image/webp")],
)
async def test_logo_upload_and_the_portal_serves_it(
    client: httpx.AsyncClient,
    runtime: Runtime,
    staff: StaffFixture,
    tenant: TenantFixture,
    content: bytes,
    content_type: str,
) -> None:
    stored = await put_logo(client, staff, tenant.tenant_id, content, content_type)
    assert stored.status_code == 200, stored.text
    url = stored.json()["logoUrl"]
    digest = hashlib.sha256(content).hexdigest()
    assert url.startswith(f"/portal/logos/{digest}.")
    served = await client.get(url)  # no session: the sign-in page shows it too
    assert served.status_code == 200
    assert served.content == content
    assert served.headers["content-type"] == content_type
    assert served.headers["x-content-type-options"] == "nosniff"
    assert "immutable" in served.headers["cache-control"]
    assert "max-age=31536000" in served.headers["cache-control"]
    assert served.headers["etag"] == f'"{digest}"'
    # Another extension, another digest, or a name that is no digest: not found.
    stem = url.rsplit(".", 1)[0]
    assert (await client.get(stem + ".pdf")).status_code == 404
    assert (await client.get(f"/portal/logos/{'0' * 64}.png")).status_code == 404
    assert (await client.get("/portal/logos/..%2Fetc.png")).status_code == 404

    removed = await client.delete(
        f"/staff/v1/tenants/{tenant.tenant_id}/logo", headers=staff.headers
    )
    assert removed.status_code == 200
    assert removed.json()["logoUrl"] is None
    assert (await client.get(url)).status_code == 404
    async with runtime.db.read() as session:
        assert (await session.scalars(select(TenantLogo))).all() == []
        actions = (
            await session.scalars(
                select(AuditEntry.action).where(AuditEntry.target == tenant.tenant_id)
            )
        ).all()
    assert {"tenant.logo.updated", "tenant.logo.removed"} <= set(actions)


@pytest.mark.parametrize(
    ("content", "content_type", "status"),
    [
        (png_bytes(), "image/jpeg", 400),  # a PNG sent as a JPEG
        (JPEG, "image/png", 400),  # a JPEG sent as a PNG
        (pdf_bytes(), "application/pdf", 400),  # documents may be PDFs, logos may not
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml", 400),
        (b"<html>hi</html>", "image/png", 400),
        (b"", "image/png", 400),
        (png_bytes(b"x" * LOGO_MAX_BYTES), "image/png", 413),
    ],
)
async def test_logo_refusals(
    client: httpx.AsyncClient,
    runtime: Runtime,
    staff: StaffFixture,
    tenant: TenantFixture,
    content: bytes,
    content_type: str,
    status: int,
) -> None:
    refused = await put_logo(client, staff, tenant.tenant_id, content, content_type)
    assert refused.status_code == status, refused.text
    error = refused.json()["error"]
    assert error["code"] == "invalid-argument"  # docs/reference/staff-api.md §13.1, 413 too
    assert error["details"][0]["field"] == "logo"
    async with runtime.db.read() as session:
        assert (await session.scalars(select(TenantLogo))).all() == []


async def test_logo_needs_an_admin_and_a_tenant(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    refused = await put_logo(client, analyst, tenant.tenant_id, png_bytes(), "image/png")
    assert refused.status_code == 403
    refused = await client.delete(
        f"/staff/v1/tenants/{tenant.tenant_id}/logo", headers=analyst.headers
    )
    assert refused.status_code == 403
    missing = await put_logo(client, staff, "ten_missing", png_bytes(), "image/png")
    assert missing.status_code == 404
    assert (
        await client.put(
            f"/staff/v1/tenants/{tenant.tenant_id}/logo",
            content=png_bytes(),
            headers={"Content-Type": "image/png"},
        )
    ).status_code == 401


async def test_theme_stylesheet_reads_on_any_accent(client: httpx.AsyncClient) -> None:
    sheet = await client.get("/portal/theme/ffd400.css")
    assert sheet.status_code == 200
    assert sheet.headers["content-type"].startswith("text/css")
    assert "immutable" in sheet.headers["cache-control"]
    assert "--accent:#ffd400" in sheet.text
    assert "--accent-ink:#000000" in sheet.text  # white on yellow would not read
    dark = await client.get("/portal/theme/1f5f8b.css")
    assert "--accent-ink:#ffffff" in dark.text
    for bad in ("FFD400", "ffd40", "zzzzzz", "ffd4000"):
        assert (await client.get(f"/portal/theme/{bad}.css")).status_code == 404


@pytest.mark.parametrize(
    "accent", ["#ffffff", "#ffd400", "#00ff00", "#1f5f8b", "#000000", "#ff00ff"]
)
def test_every_accent_gets_readable_colours(accent: str) -> None:
    colours = palette(accent)
    assert contrast(colours.accent, colours.accent_ink) >= 4.5
    for background in ("#ffffff", "#f4f6f9"):
        assert contrast(colours.link, background) >= 4.5
    assert contrast(colours.link, "#ffffff") >= 4.5  # button text on the link colour


def test_readable_colours_over_a_sweep_of_accents() -> None:
    for red in range(0, 256, 51):
        for green in range(0, 256, 51):
            for blue in range(0, 256, 51):
                colours = palette(f"#{red:02x}{green:02x}{blue:02x}")
                assert contrast(colours.accent, colours.accent_ink) >= 4.5
                assert contrast(colours.link, "#f4f6f9") >= 4.5
