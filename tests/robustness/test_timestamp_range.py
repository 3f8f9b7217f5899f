"""A timestamp whose offset carries it past the years 1 to 9999 in UTC
(`0001-01-01T00:00:00+01:00`, `9999-12-31T23:59:59-01:00`) is a bad timestamp wherever one
is read: the application list's `updatedSince`, a verification document's `expiresAt` (staff
API and sandbox verification), the dashboard queue's `updated`. Converting it to UTC raised
`OverflowError`, a 500. SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import base64

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.pages.helpers import dashboard_sign_in
from tests.robustness.test_text_json_routes import row_counts
from tests.support.factories import StaffFixture, TenantFixture

OUT_OF_RANGE = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"]


@pytest.mark.parametrize("value", OUT_OF_RANGE)
async def test_updated_since_out_of_range_is_400(
    client: httpx.AsyncClient, tenant: TenantFixture, value: str
) -> None:
    answer = await client.get(
        "/v1/applications", params={"updatedSince": value}, headers=tenant.headers
    )
    assert answer.status_code == 400, answer.text[:300]
    assert answer.json()["error"]["details"][0]["field"] == "updatedSince"
    # The same shape, inside the range once in UTC, is a timestamp like any other.
    in_range = await client.get(
        "/v1/applications",
        params={"updatedSince": "0001-01-01T00:00:00-01:00"},
        headers=tenant.headers,
    )
    assert in_range.status_code == 200


@pytest.mark.parametrize("value", OUT_OF_RANGE)
async def test_a_document_expiry_out_of_range_is_400_and_creates_nothing(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, value: str
) -> None:
    headers = {"Authorization": f"Bearer {staff.token}"}
    made = await client.post(
        "/staff/v1/verification/clients", json={"name": "Range", "sandbox": True}, headers=headers
    )
    assert made.status_code == 201, made.text
    client_uuid, secret = made.json()["clientUuid"], made.json()["clientSecret"]
    customer = {
        "email": "range@example.test",
        "phone": "+441234567",
        "documents": [{"type": "passport", "expiresAt": value}],
    }
    before = await row_counts(runtime)
    by_staff = await client.post(
        "/staff/v1/verification/customers",
        json={**customer, "clientUuid": client_uuid},
        headers=headers,
    )
    assert by_staff.status_code == 400, by_staff.text[:300]
    assert by_staff.json()["error"]["code"] == "invalid-argument"
    basic = base64.b64encode(f"{client_uuid}:{secret}".encode()).decode()
    by_sandbox = await client.post(
        "/verify/sandbox/customers", json=customer, headers={"Authorization": f"Basic {basic}"}
    )
    assert by_sandbox.status_code == 400, by_sandbox.text[:300]
    assert set(by_sandbox.json()) == {"message"}
    assert await row_counts(runtime) == before


async def test_the_queue_says_a_date_out_of_range_is_wrong(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    await dashboard_sign_in(client, staff)
    for value in ["not a date", *OUT_OF_RANGE]:  # answered alike
        page = await client.get("/dashboard", params={"updated": value})
        assert page.status_code == 400, (value, page.status_code)
        assert "Use a date like 2026-11-22." in page.text
