"""An upload declared too large on the portal's page routes, without scripts: however large
the declared length, the page it came from answers 413 in the reader's language, the error
beside the file input, with nothing read or stored (docs/platform.md, "Body size";
docs/reference/portal.md §9). The JSON upload route keeps its 413 error body."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import httpx
import pytest

from gatehouse.app import create_app
from gatehouse.portal.forms import MULTIPART_OVERHEAD
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import InfoRequestItem
from gatehouse.web.edge_request import UPLOAD_FRAMING
from tests.conftest import make_settings
from tests.documents.test_upload_surfaces import stored
from tests.pages.helpers import csrf_of
from tests.pages.portal_support import raise_question_and_document, signed_in
from tests.robustness.test_body_limits import read_answer
from tests.support.factories import TenantFixture
from tests.support.live import serve_in_thread
from tests.support.patience import patient

GERMAN_REFUSAL = "Die Datei ist zu groß."
SHORT_BODY = b'--xyz\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n'
MULTIPART = "multipart/form-data; boundary=xyz"


def test_the_pages_check_fires_below_the_edges_bound() -> None:
    # Between the two a declared length reaches the page's own check; past the edge's bound
    # it does too (the edge passes it on unread), so the page answers every declared excess.
    assert 0 < MULTIPART_OVERHEAD < UPLOAD_FRAMING


def over_the_edge(limit: int) -> list[int]:
    return [limit + UPLOAD_FRAMING + 1, limit + 10 * UPLOAD_FRAMING, 10**12]


def the_portal_page(html: str) -> None:
    """The portal's own page: its navigation and the reader's language, not refused.html."""
    assert 'lang="de"' in html
    assert 'href="/portal/status"' in html
    assert "The request was too large" not in html


async def test_a_declared_huge_upload_gets_the_portals_translated_page(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    request_id, _question, document = await raise_question_and_document(client, runtime)
    csrf = csrf_of((await client.get("/portal/requests")).text)
    limit = runtime.settings.upload_max_bytes
    for length in over_the_edge(limit):
        headers = {
            "Content-Type": MULTIPART,
            "Content-Length": str(length),
            "Accept-Language": "de",
        }
        item = await client.post(
            f"/portal/requests/{request_id}/items/{document}",
            content=SHORT_BODY + csrf.encode(),
            headers=headers,
        )
        assert item.status_code == 413, item.text[:300]
        the_portal_page(item.text)
        assert f'id="file-{document}-error">{GERMAN_REFUSAL}' in item.text

        page = await client.post(
            "/portal/upload-documents", content=SHORT_BODY + csrf.encode(), headers=headers
        )
        assert page.status_code == 413, page.text[:300]
        the_portal_page(page.text)
        assert f'role="alert">{GERMAN_REFUSAL}</p>' in page.text

        # The JSON route keeps its error body, naming the file.
        api = await client.post("/portal/api/documents", content=SHORT_BODY, headers=headers)
        assert api.status_code == 413
        error = api.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"][0]["field"] == "file"
    assert await stored(runtime) == (0, 0, 0)
    async with runtime.db.read() as session:
        item_row = await session.get(InfoRequestItem, document)
    assert item_row is not None
    assert item_row.status == "open"


async def test_signed_out_a_declared_huge_upload_is_the_signed_out_page(
    client: httpx.AsyncClient,
) -> None:
    headers = {"Content-Type": MULTIPART, "Content-Length": str(10**12)}
    answer = await client.post("/portal/upload-documents", content=SHORT_BODY, headers=headers)
    assert answer.status_code == 401
    assert answer.headers["content-type"].startswith("text/html")


async def test_served_the_page_answers_without_reading_the_declared_body(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    """Over a real connection: a few bytes of a 1 GB declared body, and the translated page
    comes back at once (the server never waits for the rest)."""
    settings = make_settings(database_url, upload_max_bytes=64 * 1024)
    with serve_in_thread(lambda: create_app(settings)) as base:
        async with httpx.AsyncClient(base_url=base, headers={"Origin": "http://testserver"}) as web:
            login = await web.post(
                "/v1/login-sessions",
                json={"email": "big@example.test", "externalRef": "big-1"},
                headers={"Authorization": f"Bearer {tenant.api_key}"},
            )
            assert login.status_code == 201, login.text
            path = urlsplit(login.json()["loginUrl"]).path
            assert (await web.post(path)).status_code == 303
            cookie = "; ".join(f"{k}={v}" for k, v in web.cookies.items())
        parts = urlsplit(base)
        assert parts.hostname is not None
        assert parts.port is not None
        head = (
            f"POST /portal/upload-documents HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Cookie: {cookie}\r\nOrigin: http://testserver\r\nAccept-Language: de\r\n"
            f"Content-Type: {MULTIPART}\r\nContent-Length: {10**9}\r\n\r\n"
        ).encode()
        with socket.create_connection((parts.hostname, parts.port), timeout=patient(15)) as sock:
            sock.sendall(head + SHORT_BODY)
            answer = read_answer(sock)
    assert answer.status == 413
    html = answer.body.decode()
    the_portal_page(html)
    assert GERMAN_REFUSAL in html
    assert await stored(runtime) == (0, 0, 0)


@pytest.mark.parametrize("path", ["/portal/upload-documents", "/portal/requests/r/items/i"])
async def test_a_declared_huge_form_that_is_not_multipart_is_refused_at_the_edge(
    client: httpx.AsyncClient, path: str
) -> None:
    # Only uploads pass the edge unread: any other body over its bound is the edge's 413.
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": str(10**9),
    }
    answer = await client.post(path, content=b"a=b", headers=headers)
    assert answer.status_code == 413
    assert "The request was too large" in answer.text
