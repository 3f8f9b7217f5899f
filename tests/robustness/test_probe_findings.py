"""What a second outside probe of a running server found, each fixed where it lived
(docs/platform.md, "Text input"): a static file name the file system cannot look up, and a
verification status reason longer than its column, reached through the dashboard's form
(the staff API's body schema bounded it; PostgreSQL refused the row with a 500, SQLite stored
it). SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import Customer
from gatehouse.verification.schemas import MAX_REASON
from tests.pages.helpers import dashboard_sign_in
from tests.support.factories import StaffFixture, make_staff


@pytest.mark.parametrize(
    "name",
    [
        "a" * 300,  # one path component past NAME_MAX
        "a" * 5000,
        "/".join(["a" * 200] * 30),  # past PATH_MAX
        "gatehouse.css/" + "b" * 400,
        "../" * 40 + "etc/passwd",
    ],
    ids=["name-max", "huge", "path-max", "below-a-file", "escape"],
)
async def test_a_static_name_no_file_system_takes_is_404(
    client: httpx.AsyncClient, name: str
) -> None:
    response = await client.get("/static/" + name)
    assert response.status_code == 404, response.text
    assert (await client.get("/static/gatehouse.css")).status_code == 200


async def _customer(client: httpx.AsyncClient, staff: StaffFixture) -> str:
    made = await client.post(
        "/staff/v1/verification/clients", json={"name": "Verifier"}, headers=staff.headers
    )
    assert made.status_code == 201, made.text
    customer = await client.post(
        "/staff/v1/verification/customers",
        json={"clientUuid": made.json()["clientUuid"], "email": "v@example.test", "phone": "+1"},
        headers=staff.headers,
    )
    assert customer.status_code == 201, customer.text
    return str(customer.json()["uuid"])


async def _reason(runtime: Runtime, uuid: str) -> str | None:
    async with runtime.db.read() as session:
        return await session.scalar(select(Customer.status_reason).where(Customer.uuid == uuid))


@pytest.mark.parametrize("length", [MAX_REASON + 1, 5000, 20000])
async def test_a_status_reason_past_its_bound_is_400_on_every_surface(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, length: int
) -> None:
    uuid = await _customer(client, staff)
    # The staff API (its body schema) and the dashboard's form (the service) say the same.
    api = await client.post(
        f"/staff/v1/verification/customers/{uuid}/status",
        json={"status": 6, "reason": "r" * length},
        headers=staff.headers,
    )
    assert api.status_code == 400, api.text
    assert api.json()["error"]["details"][0]["field"] == "reason"
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    form = await client.post(
        f"/dashboard/verification/customers/{uuid}/status",
        data={"csrf_token": csrf, "status": "6", "reason": "r" * length},
    )
    assert form.status_code == 400, form.text
    assert f"at most {MAX_REASON} characters" in form.text
    assert await _reason(runtime, uuid) is None
    # A reason of exactly the bound is kept, whole.
    kept = await client.post(
        f"/dashboard/verification/customers/{uuid}/status",
        data={"csrf_token": csrf, "status": "6", "reason": "r" * MAX_REASON},
    )
    assert kept.status_code == 303, kept.text
    assert await _reason(runtime, uuid) == "r" * MAX_REASON


BROKEN_FORMS = [
    pytest.param(b"x", "multipart/form-data", id="no-boundary"),
    pytest.param(
        b'--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--b--\r\n',
        "multipart/form-data; boundary=z",
        id="wrong-boundary",
    ),
    pytest.param(
        b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n",
        "multipart/form-data; boundary=b",
        id="part-without-name",
    ),
    pytest.param(
        b"".join(
            b'--b\r\nContent-Disposition: form-data; name="f%d"\r\n\r\nx\r\n' % i
            for i in range(1001)
        )
        + b"--b--\r\n",
        "multipart/form-data; boundary=b",
        id="too-many-fields",
    ),
    pytest.param(
        "&".join(f"f{i}=x" for i in range(1001)).encode(),
        "application/x-www-form-urlencoded",
        id="too-many-urlencoded-fields",
    ),
]


@pytest.mark.parametrize(("body", "content_type"), BROKEN_FORMS)
async def test_a_form_the_parsers_refuse_is_a_refusal_page_on_page_routes(
    client: httpx.AsyncClient, runtime: Runtime, body: bytes, content_type: str
) -> None:
    """A page route answers in its own shape (a page), whether signed in or not; the
    JSON surfaces keep the error body."""
    admin = await make_staff(runtime, "admin")
    await dashboard_sign_in(client, admin)
    headers = {"content-type": content_type}
    # Sign-in bodies have the smallest bound (16 KiB): a thousand parts do not fit in it.
    paths = ["/dashboard/tenants", "/dashboard/staff"]
    if len(body) <= runtime.settings.sign_in_body_max_bytes:
        paths.append("/dashboard/sign-in")
    for path in paths:
        response = await client.post(path, content=body, headers=headers)
        assert response.status_code == 400, (path, response.text)
        assert response.headers["content-type"].startswith("text/html"), path
        assert "The request was refused" in response.text
        assert response.headers["cache-control"] == "no-store"
    api = await client.post("/portal/api/documents", content=body, headers=headers)
    assert api.status_code in (400, 401), api.text
    assert api.headers["content-type"] == "application/json"
