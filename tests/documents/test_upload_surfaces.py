"""Every surface that takes an applicant's file refuses a dishonest one the same way and stores
nothing (docs/documents.md §1): the portal's JSON route (tests/documents/test_custody_http.py),
the documents page and an information request's document item. Content that is not what it was
sent as, content of no accepted kind and a scanner's detection are 400 beside the `file` field;
no document row, custody row, database part or store object is left, and the item stays
unanswered. A body without end is stopped at UPLOAD_MAX_BYTES plus framing, signed in, before
it is read whole: 413 `invalid-argument` naming `file`, nothing stored."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import func, select

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Document, InfoRequestItem
from gatehouse.storage.tables.documents_custody import DocumentBlob, DocumentCustody
from tests.conftest import make_settings
from tests.documents.support import document_app, pdf_bytes, png_bytes, store_objects
from tests.pages.helpers import csrf_of
from tests.pages.portal_support import raise_question_and_document, signed_in
from tests.portal.conftest import provision
from tests.support.browser import SAME_ORIGIN
from tests.support.document_services import EICAR, Clamd
from tests.support.factories import TenantFixture
from tests.support.live import serve_in_thread
from tests.support.patience import patient

# (content, declared type): a PNG sent as a PDF, a PDF sent as a PNG, no known magic bytes.
DISHONEST = [
    (png_bytes(), "application/pdf"),
    (pdf_bytes(), "image/png"),
    (b"MZ\x90\x00 an executable renamed invoice.pdf", "application/pdf"),
]
UPLOAD_LIMIT = 64 * 1024
# Far past the upload bound and its framing: a server still reading is not bounding the body.
GIVE_UP = 64 * 1024 * 1024


async def stored(runtime: Runtime) -> tuple[int, int, int]:
    async with runtime.db.read() as session:
        documents = await session.scalar(select(func.count()).select_from(Document))
        held = await session.scalar(select(func.count()).select_from(DocumentCustody))
        parts = await session.scalar(select(func.count()).select_from(DocumentBlob))
    return int(documents or 0), int(held or 0), int(parts or 0)


async def item_answer(runtime: Runtime, item_id: str) -> tuple[str, str | None, str | None]:
    async with runtime.db.read() as session:
        item = await session.get(InfoRequestItem, item_id)
    assert item is not None
    return item.status, item.answer, item.document_id


async def test_the_pages_refuse_dishonest_files_and_store_nothing(
    database_url: str, runtime: Runtime, tenant: TenantFixture, store_location: str
) -> None:
    async with document_app(database_url, document_store=store_location) as app:
        client = app.client
        await signed_in(client, app.runtime, tenant)
        request_id, _question, document_item = await raise_question_and_document(
            client, app.runtime
        )
        csrf = csrf_of((await client.get("/portal/upload-documents")).text)
        for content, declared in DISHONEST:
            page = await client.post(
                "/portal/upload-documents",
                data={"csrf_token": csrf, "type": "passport"},
                files={"file": ("invoice.pdf", content, declared)},
            )
            assert page.status_code == 400, declared
            assert 'id="file-passport-error"' in page.text
            answered = await client.post(
                f"/portal/requests/{request_id}/items/{document_item}",
                data={"csrf_token": csrf, "answer": "Here it is"},
                files={"file": ("invoice.pdf", content, declared)},
            )
            assert answered.status_code == 400, declared
            assert f'id="file-{document_item}-error"' in answered.text
            assert await stored(app.runtime) == (0, 0, 0)
            assert store_objects(store_location, app.runtime) == []
            status, answer, document_id = await item_answer(app.runtime, document_item)
            assert (answer, document_id) == (None, None)
            assert status != "answered"
        # The same pages take an honest file.
        honest = await client.post(
            "/portal/upload-documents",
            data={"csrf_token": csrf, "type": "passport"},
            files={"file": ("passport.png", png_bytes(), "image/png")},
        )
        assert honest.status_code == 303
        assert (await stored(app.runtime))[:2] == (1, 1)


async def test_the_pages_refuse_a_detection_and_store_nothing(
    database_url: str, runtime: Runtime, tenant: TenantFixture, clamd: Clamd
) -> None:
    infected = pdf_bytes(EICAR)
    async with document_app(database_url, clamd_address=clamd.socket_path) as app:
        client = app.client
        await signed_in(client, app.runtime, tenant)
        request_id, _question, document_item = await raise_question_and_document(
            client, app.runtime
        )
        csrf = csrf_of((await client.get("/portal/upload-documents")).text)
        page = await client.post(
            "/portal/upload-documents",
            data={"csrf_token": csrf, "type": "passport"},
            files={"file": ("statement.pdf", infected, "application/pdf")},
        )
        assert page.status_code == 400
        assert 'id="file-passport-error"' in page.text
        answered = await client.post(
            f"/portal/requests/{request_id}/items/{document_item}",
            data={"csrf_token": csrf},
            files={"file": ("statement.pdf", infected, "application/pdf")},
        )
        assert answered.status_code == 400
        assert f'id="file-{document_item}-error"' in answered.text
        assert await stored(app.runtime) == (0, 0, 0)
        assert (await item_answer(app.runtime, document_item))[2] is None


def _endless_upload(base: str, path: str, cookie: str) -> tuple[int, bytes]:
    """POST a multipart body whose file part never ends, in chunks, until the server answers;
    (status, body of the answer). Fails if the server keeps reading far past its bound."""
    parts = urlsplit(base)
    assert parts.hostname is not None
    assert parts.port is not None
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: {cookie}\r\n"
        "Content-Type: multipart/form-data; boundary=xyz\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    start = (
        b'--xyz\r\nContent-Disposition: form-data; name="type"\r\n\r\npassport\r\n'
        b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
        b"Content-Type: application/pdf\r\n\r\n%PDF-1.4\n"
    )
    with socket.create_connection((parts.hostname, parts.port), timeout=patient(15)) as sock:
        sock.sendall(head)
        sock.setblocking(False)
        chunk, sent = start, 0
        while True:
            assert sent < GIVE_UP, "the server kept reading an upload far over its bound"
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
            chunk = b"%" + b"0" * 16383
            try:
                if sock.recv(1, socket.MSG_PEEK):
                    break
                raise AssertionError("connection closed without an answer")
            except BlockingIOError:
                continue
        sock.settimeout(patient(15))
        raw = b""
        while b"\r\n\r\n" not in raw:
            piece = sock.recv(65536)
            if not piece:
                break
            raw += piece
        head_bytes, _, body = raw.partition(b"\r\n\r\n")
        status_line, *lines = head_bytes.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines)}
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            piece = sock.recv(65536)
            if not piece:
                break
            body += piece
        return int(status_line.split()[1]), body


@pytest.mark.slow
async def test_an_endless_upload_is_stopped_at_the_limit_and_stores_nothing(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    settings = make_settings(database_url, upload_max_bytes=UPLOAD_LIMIT)
    with serve_in_thread(lambda: create_app(settings)) as base:
        async with httpx.AsyncClient(base_url=base, headers=SAME_ORIGIN) as client:
            made = await provision(client, tenant)
            signed = await client.post(f"/portal/login/{made.token}")
            assert signed.status_code == 303, signed.text
            me = await client.get("/portal/api/me")
            assert me.status_code == 200
            cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        status, answer = _endless_upload(base, "/portal/api/documents", cookie)
        assert status == 413
        assert b'"code":"invalid-argument"' in answer.replace(b" ", b"")
        assert b'"field":"file"' in answer.replace(b" ", b"")
        page_status, _page = _endless_upload(base, "/portal/upload-documents", cookie)
        assert page_status == 413
    assert await stored(runtime) == (0, 0, 0)
