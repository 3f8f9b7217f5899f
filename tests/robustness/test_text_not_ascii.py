"""Text that is not ASCII where the service expects ASCII: a cursor's signature, the
`Origin` and `Referer` headers, HTTP Basic credentials, a TOTP code. Each is refused in the
surface's own shape (a bad cursor, a cross-site request, bad credentials, a failed sign-in),
never a 500 (`hmac.compare_digest` raises on non-ASCII text, `urlsplit` on `http://[::1`,
`base64.b64decode` on non-ASCII text). SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.pages.helpers import PASSWORD, csrf_of, dashboard_sign_in
from tests.robustness.test_text_json_routes import row_counts
from tests.support.factories import StaffFixture, TenantFixture, make_staff

# The body of a cursor, then a "signature" with an é in it (UTF-8, percent-encoded).
FOREIGN_CURSOR = "W10.%C3%A9%C3%A9"
ARABIC_INDIC_CODE = "\u0661\u0662\u0663\u0664\u0665\u0666"  # "123456" in another script
NOT_A_URL = "http://[::1"
FAILED_RE = re.compile(r"Sign-in failed\. Check your email, password and code\.")


async def cursor_routes(client: httpx.AsyncClient) -> list[str]:
    """Every documented GET that takes a `cursor` and names no resource in its path."""
    found = []
    for path, operations in (await client.get("/openapi.json")).json()["paths"].items():
        get = operations.get("get")
        if get is None or "{" in path:
            continue
        if any(p.get("name") == "cursor" for p in get.get("parameters", [])):
            found.append(path)
    return found


async def test_a_cursor_signed_with_non_ascii_text_is_a_bad_cursor_on_every_list(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, staff: StaffFixture
) -> None:
    routes = await cursor_routes(client) + [f"/staff/v1/tenants/{tenant.tenant_id}/audit"]
    assert "/v1/applications" in routes
    assert "/staff/v1/applications" in routes
    staff_headers = {"Authorization": f"Bearer {staff.token}"}
    before = await row_counts(runtime)
    for path in routes:
        headers = staff_headers if path.startswith("/staff/") else tenant.headers
        answer = await client.get(f"{path}?cursor={FOREIGN_CURSOR}", headers=headers)
        assert answer.status_code == 400, (path, answer.status_code, answer.text[:300])
        error = answer.json()["error"]
        assert error["code"] == "invalid-argument", path
        assert error["details"][0]["field"] == "cursor", path
    assert await row_counts(runtime) == before


async def test_the_dashboard_queue_ignores_a_cursor_signed_with_non_ascii_text(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    for cursor in (FOREIGN_CURSOR, "zzz"):  # the same answer as any other bad cursor
        page = await client.get(f"/dashboard?cursor={cursor}")
        assert page.status_code == 200, page.text[:300]


@pytest.mark.parametrize("path", ["/portal/language", "/portal/api/logout", "/dashboard/sign-in"])
async def test_an_origin_that_is_not_a_url_is_a_cross_site_request(
    client: httpx.AsyncClient, path: str
) -> None:
    answer = await client.post(
        path, data={"lang": "de", "email": "a@example.test"}, headers={"Origin": NOT_A_URL}
    )
    assert answer.status_code == 403, answer.text[:300]


async def test_a_referer_that_is_not_a_url_is_not_followed(client: httpx.AsyncClient) -> None:
    # Beside a matching Origin, a Referer that names no origin is a mismatch: refused
    # (docs/reference/portal.md §6), never followed.
    answer = await client.post(
        "/portal/language", data={"lang": "de"}, headers={"Referer": NOT_A_URL}
    )
    assert answer.status_code == 403, answer.text[:300]
    assert "location" not in answer.headers
    same_site = await client.post(
        "/portal/language",
        data={"lang": "de"},
        headers={"Referer": "http://testserver/portal/requests"},
    )
    assert same_site.headers["location"] == "/portal/requests"


@pytest.mark.parametrize(
    "credentials", [b"Basic \xc3\xa9\xc3\xa9", b"Basic \xe9t\xe9:x", b"basic \xff"], ids=repr
)
async def test_basic_credentials_that_are_not_ascii_are_bad_credentials(
    client: httpx.AsyncClient, credentials: bytes
) -> None:
    for method, path in (
        ("GET", "/verify/clients/customers/c_1"),
        ("POST", "/verify/sandbox/customers"),
    ):
        answer = await client.request(
            method, path, headers={b"authorization": credentials}, json={}
        )
        assert answer.status_code == 401, (path, answer.text[:300])
        assert set(answer.json()) == {"message"}


async def test_a_totp_code_in_another_script_is_a_failed_code(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    # At enrolment: the invite of a second person, whose first code is in Arabic-Indic digits.
    newcomer = await make_staff(runtime, "analyst")
    invite = urlsplit(newcomer.invite_url).path
    used = await client.post(invite, data={"password": PASSWORD, "password_confirm": PASSWORD})
    assert used.status_code == 303, used.text[:300]
    enrol = await client.get("/dashboard/enrol")
    refused = await client.post(
        "/dashboard/enrol", data={"csrf_token": csrf_of(enrol.text), "code": ARABIC_INDIC_CODE}
    )
    assert refused.status_code == 400, refused.text[:300]
    client.cookies.clear()
    # At sign-in: the second step of someone enrolled.
    await dashboard_sign_in(client, staff)
    client.cookies.clear()
    first = await client.post(
        "/dashboard/sign-in", data={"email": staff.email, "password": staff.password}
    )
    assert first.headers["location"] == "/dashboard/sign-in/verify"
    form = await client.get("/dashboard/sign-in/verify")
    answer = await client.post(
        "/dashboard/sign-in/verify",
        data={"csrf_token": csrf_of(form.text), "code": ARABIC_INDIC_CODE},
    )
    assert answer.status_code == 400, answer.text[:300]
    assert FAILED_RE.search(answer.text)
