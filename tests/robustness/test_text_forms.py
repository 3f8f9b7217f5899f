"""Forms, urlencoded or multipart, on every route (dashboard and portal pages, sign-in
and link redemption included, and the portal's multipart JSON route) refuse a control
character in any field name, value, file name or file type, before the route runs
(docs/platform.md, "Text input"). SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import re

import httpx
import pytest
from fastapi import FastAPI

from gatehouse.runtime import Runtime
from gatehouse.web.text import check_pairs
from tests.pages.helpers import csrf_of
from tests.robustness.test_text_edge import check_refused, every_route
from tests.robustness.test_text_json_routes import row_counts
from tests.support.factories import TenantFixture


def post_routes(app: FastAPI) -> list[str]:
    return [
        re.sub(r"\{[^}]+\}", "x_1", path) for method, path in every_route(app) if method == "POST"
    ]


async def test_every_post_route_refuses_a_urlencoded_form_with_a_nul(
    app: FastAPI, client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    routes = post_routes(app)
    assert any(p.startswith("/dashboard/sign-in") for p in routes)
    assert any(p.startswith("/portal/login/") for p in routes)
    before = await row_counts(runtime)
    for path in routes:
        response = await client.post(
            path, data={"csrf_token": "t", "token": "ab\x00c"}, headers=tenant.headers
        )
        check_refused(response, path, "token", "U+0000")
    assert await row_counts(runtime) == before


BOUNDARY = "gatehouse-test-boundary"


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> bytes:
    """A multipart body written byte for byte (clients escape controls in file names; a
    probe does not)."""
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
            + value.encode()
            + b"\r\n"
        )
    for name, (filename, content, media) in files.items():
        head = (
            f"--{BOUNDARY}\r\n"
            f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: {media}\r\n\r\n"
        )
        parts.append(head.encode("utf-8") + content + b"\r\n")
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


MULTIPART = {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}
PDF = b"%PDF-1.4 x"


@pytest.mark.parametrize(
    ("fields", "files", "field", "point"),
    [
        ({"type": "passport\x01"}, {"file": ("a.pdf", PDF, "application/pdf")}, "type", "U+0001"),
        ({"type": "passport"}, {"file": ("a\x00.pdf", PDF, "application/pdf")}, "file", "U+0000"),
        ({"type": "passport"}, {"file": ("a\x85.pdf", PDF, "application/pdf")}, "file", "U+0085"),
        ({"type": "passport"}, {"file": ("a.pdf", PDF, "application/pdf\x7f")}, "file", "U+007F"),
    ],
)
async def test_every_post_route_refuses_a_multipart_form_with_a_control_character(
    app: FastAPI,
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    fields: dict[str, str],
    files: dict[str, tuple[str, bytes, str]],
    field: str,
    point: str,
) -> None:
    before = await row_counts(runtime)
    for path in post_routes(app):
        response = await client.post(
            path, content=multipart(fields, files), headers={**MULTIPART, **tenant.headers}
        )
        check_refused(response, path, field, point)
    assert await row_counts(runtime) == before


async def test_every_page_post_route_refuses_json_with_a_control_character(
    app: FastAPI, client: httpx.AsyncClient, runtime: Runtime
) -> None:
    # Page routes that take JSON (the dashboard's passkey steps) parse it themselves; the
    # edge checks it first and answers in their shape, {"message"}.
    routes = [p for p in post_routes(app) if p.startswith(("/dashboard", "/portal/"))]
    routes = [p for p in routes if not p.startswith("/portal/api")]
    assert len(routes) > 10
    before = await row_counts(runtime)
    for path in routes:
        response = await client.post(
            path,
            content=b'{"name": "key\\u0000", "credential": {"id": "x\x01"}}',
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 400, (path, response.status_code)
        assert response.json() == {
            "message": "name contains a control character (U+0000), which is not accepted."
        }
    assert await row_counts(runtime) == before


async def signed_in_portal(client: httpx.AsyncClient, tenant: TenantFixture) -> str:
    """Sign an applicant in; the CSRF token of the form page."""
    response = await client.post(
        "/v1/login-sessions",
        json={"email": "owner@example.test", "externalRef": "forms"},
        headers=tenant.headers,
    )
    assert response.status_code == 201, response.text
    token = response.json()["loginUrl"].rsplit("/", 1)[1]
    assert (await client.post("/portal/login/" + token)).status_code == 303
    page = await client.get("/portal/form-parser")
    assert page.status_code == 200
    return csrf_of(page.text)


async def test_a_signed_in_applicant_gets_a_page_and_nothing_is_saved(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await signed_in_portal(client, tenant)
    before = await row_counts(runtime)
    draft_before = (await client.get("/portal/api/me")).json()
    response = await client.post(
        "/portal/form-parser",
        data={"csrf_token": csrf, "companyName": "Acme\x00 Ltd"},
    )
    check_refused(response, "/portal/form-parser", "companyName", "U+0000")
    assert "The request was refused" in response.text
    response = await client.post(
        "/portal/api/documents",
        content=multipart({"type": "passport"}, {"file": ("scan\x00.pdf", PDF, "application/pdf")}),
        headers=MULTIPART,
    )
    check_refused(response, "/portal/api/documents", "file", "U+0000")
    assert (await client.get("/portal/api/me")).json() == draft_before
    assert await row_counts(runtime) == before


@pytest.mark.parametrize(
    ("name", "value", "refused"),
    [
        ("answer", "line one\r\nline two\tend", False),
        ("decision_comment", "a\nb", False),
        ("field.notes", "a\nb", False),
        ("companyName", "a\nb", True),
        ("token", "a\tb", True),
        ("answer", "a\x00b", True),
        ("answer", "a\x0cb", True),
        ("na\nme", "x", True),
    ],
)
def test_line_breaks_in_forms_only_in_free_text(name: str, value: str, refused: bool) -> None:
    assert (check_pairs([(name, value)], "form") is not None) is refused
