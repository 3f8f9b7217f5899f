"""The reviewer's inline view in a real Chromium (docs/documents.md §5): on the case page an
image is drawn inside a frame sandboxed by its attribute (an opaque origin: nothing in it
reaches the dashboard), a PDF opens in the browser's own PDF viewer, the Download button
beside each answers the bytes as an attachment, and every opening is audited."""

from __future__ import annotations

import struct
import time
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from gatehouse.storage.tables.core import AuditEntry
from tests.e2e.live_stack import (
    CHROMIUM,
    CHROMIUM_ARGS,
    live_gatehouse,
    require_chromium,
    with_runtime,
)
from tests.e2e.staff_pages import sign_in_staff
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant
from tests.support.patience import patient

pytestmark = pytest.mark.browser


def png_image(width: int, height: int) -> bytes:
    """An opaque PNG of one colour, `width` x `height`."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    rows = b"".join(b"\x00" + b"\x1e\x64\xc8" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def one_page_pdf(text: str) -> bytes:
    """A valid one-page PDF (with its cross-reference table) showing `text`."""
    stream = f"BT /F1 24 Tf 72 700 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


PNG = png_image(120, 80)
PDF = one_page_pdf("Gatehouse statement")


def _upload_two(base: str, tenant: TenantFixture) -> tuple[str, str, str]:
    """An applicant uploads a PNG and a PDF through the portal: (clientId, png id, pdf id)."""
    with httpx.Client(base_url=base, headers={"Origin": base}) as client:
        made = client.post(
            "/v1/login-sessions",
            json={"email": "viewer@example.test", "externalRef": "view-1"},
            headers={"Authorization": f"Bearer {tenant.api_key}"},
        )
        assert made.status_code == 201, made.text
        token = made.json()["loginUrl"].rsplit("/", 1)[1]
        assert client.post(f"/portal/login/{token}").status_code == 303
        ids = []
        for name, content, declared in (
            ("id.png", PNG, "image/png"),
            ("statement.pdf", PDF, "application/pdf"),
        ):
            sent = client.post(
                "/portal/api/documents",
                data={"type": "passport"},
                files={"file": (name, content, declared)},
            )
            assert sent.status_code == 201, sent.text
            ids.append(str(sent.json()["documentId"]))
        return str(made.json()["clientId"]), ids[0], ids[1]


def _pdf_viewer_of(page: Any, view_url: str) -> str | None:
    """The `original-url` of Chromium's PDF viewer started for `view_url`, waiting up to
    15 seconds for it; None when it never starts."""
    viewer = "embed[type='application/x-google-chrome-pdf']"
    deadline = time.monotonic() + patient(15)
    while time.monotonic() < deadline:
        for frame in page.frames:
            if frame.url == view_url and frame.locator(viewer).count() == 1:
                return str(frame.locator(viewer).get_attribute("original-url"))
        page.wait_for_timeout(200)
    return None


def test_images_and_pdfs_open_inline_sandboxed_with_a_download(database_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    require_chromium()
    with live_gatehouse(database_url) as settings:
        base = str(settings.public_url)

        async def seed(runtime: Any) -> tuple[TenantFixture, StaffFixture]:
            return await make_tenant(runtime), await make_staff(runtime, "analyst")

        tenant, analyst = with_runtime(settings, seed)
        client_id, png_id, pdf_id = _upload_two(base, tenant)

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                context = browser.new_context(accept_downloads=True)
                page = context.new_page()
                sign_in_staff(page, base, analyst)

                # The image: a frame sandboxed by its attribute, the picture drawn inside.
                page.goto(f"{base}/dashboard/applications/{client_id}?document={png_id}")
                frame = page.locator("iframe.document-frame")
                expect(frame).to_be_visible()
                assert frame.get_attribute("sandbox") == ""
                inner = page.frame_locator("iframe.document-frame").locator("img")
                expect(inner).to_be_visible()
                assert inner.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [120, 80]
                # Sandboxed: the framed document has an opaque origin, so it cannot reach the
                # dashboard's pages, cookies or storage.
                child = next(f for f in page.frames if f.url.endswith(f"/{png_id}/view"))
                assert child.evaluate("() => self.origin") == "null"
                with page.expect_download() as png_download:
                    page.locator("#h-viewer ~ .actions a", has_text="Download").click()
                assert png_download.value.suggested_filename == f"{png_id}.png"

                # The PDF: handed to the browser's own viewer (no sandbox attribute, or Chromium
                # would refuse to start it), its bytes served under the same policy.
                page.goto(f"{base}/dashboard/applications/{client_id}?document={pdf_id}")
                frame = page.locator("iframe.document-frame")
                expect(frame).to_be_visible()
                assert frame.get_attribute("sandbox") is None
                view_url = f"{base}/dashboard/documents/{pdf_id}/view"
                # Chromium answers the frame with its viewer's own page, which embeds the viewer
                # in a frame of its own, attached once the viewer has started.
                assert _pdf_viewer_of(page, view_url) == view_url
                served = page.request.get(view_url)
                assert served.headers["content-type"] == "application/pdf"
                assert "sandbox" in served.headers["content-security-policy"]
                with page.expect_download() as pdf_download:
                    page.locator("#h-viewer ~ .actions a", has_text="Download").click()
                assert pdf_download.value.suggested_filename == f"{pdf_id}.pdf"
                assert Path(pdf_download.value.path()).read_bytes() == PDF
            finally:
                browser.close()

        async def opened(runtime: Any) -> list[str]:
            async with runtime.db.read() as session:
                rows = await session.execute(
                    select(AuditEntry.target).where(AuditEntry.action == "document.view")
                )
                return sorted(rows.scalars())

        # Every opening audited: the image's view and download; the PDF's view, the check of
        # its headers and its download.
        assert with_runtime(settings, opened) == sorted([png_id, png_id, pdf_id, pdf_id, pdf_id])
