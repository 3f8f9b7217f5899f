"""Integers from clients (docs/platform.md "Numbers"): one parser, `parse_int`, for query
parameters, JSON bodies and headers; whatever a client sends is a value in range or 400
naming the field, never a 500, and nothing is stored. Runs on SQLite and PostgreSQL (whose
INTEGER is 32-bit)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from gatehouse.domain.numbers import INT32_MAX, INT32_MIN, decimal_or_none, parse_int
from gatehouse.errors import GatehouseError
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Intake
from gatehouse.storage.tables.core import Tenant
from gatehouse.storage.tables.verification import Customer
from tests.pages.helpers import dashboard_sign_in
from tests.support.factories import StaffFixture, TenantFixture, make_staff

HUGE = "9" * 5000
# Text no integer field accepts, whatever its range.
NOT_INTEGERS = ("²", "٣", "1e3", "-0", "+5", " 5", "5 ", "0x10", "1_000", "", "-", HUGE, f"-{HUGE}")
# Integers beyond the database's INTEGER range (and beyond SQLite's 64 bits).
BEYOND_INT32 = (2**31, 2**63, 2**64 - 1, -(2**31) - 1, -(2**63) - 1)


def assert_refused(response: httpx.Response, field: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid-argument"
    assert error["details"][0]["field"] == field, error


# The parser.


@pytest.mark.parametrize("text", NOT_INTEGERS, ids=lambda v: repr(v[:12]))
def test_parse_int_refuses_what_is_not_a_plain_decimal(text: str) -> None:
    assert decimal_or_none(text) is None
    with pytest.raises(GatehouseError) as caught:
        parse_int(text, "order", INT32_MIN, INT32_MAX)
    assert caught.value.status_code == 400
    assert caught.value.code == "invalid-argument"
    assert caught.value.details == [
        {"field": "order", "issue": f"must be an integer from {INT32_MIN} to {INT32_MAX}"}
    ]


@pytest.mark.parametrize("value", [*BEYOND_INT32, *(str(v) for v in BEYOND_INT32)])
def test_parse_int_refuses_values_out_of_range(value: object) -> None:
    with pytest.raises(GatehouseError) as caught:
        parse_int(value, "order", INT32_MIN, INT32_MAX)
    assert caught.value.field == "order"


@pytest.mark.parametrize("value", [True, False, 1.0, 5.5, None, [1], {"n": 1}])
def test_parse_int_refuses_what_is_not_an_integer(value: object) -> None:
    with pytest.raises(GatehouseError):
        parse_int(value, "n", -10, 10)


def test_parse_int_reads_integers_in_range() -> None:
    assert parse_int("0", "n", -5, 5) == 0
    assert parse_int("-5", "n", -5, 5) == -5
    assert parse_int("05", "n", -5, 5) == 5
    assert parse_int(str(INT32_MAX), "n", INT32_MIN, INT32_MAX) == INT32_MAX
    assert parse_int(str(INT32_MIN), "n", INT32_MIN, INT32_MAX) == INT32_MIN
    assert parse_int(7, "n", 1, 7) == 7
    assert decimal_or_none("0" * 20) == 0
    assert decimal_or_none("0" * 21) is None


# Query parameters.


async def test_the_customer_status_filter_is_an_integer(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    path = "/staff/v1/verification/customers"
    for value in (*NOT_INTEGERS, *(str(v) for v in BEYOND_INT32), "11", "-1"):
        response = await client.get(path, params={"status": value}, headers=staff.headers)
        assert_refused(response, "status")
    found = await client.get(path, params={"status": "5"}, headers=staff.headers)
    assert found.status_code == 200
    assert found.json()["data"] == []


# JSON bodies.


async def _intakes(runtime: Runtime, tenant_id: str) -> list[Intake]:
    async with runtime.db.read() as session:
        return list(await session.scalars(select(Intake).where(Intake.tenant_id == tenant_id)))


async def test_intake_order_stays_within_the_database_integer(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, staff: StaffFixture
) -> None:
    before = [intake.id for intake in await _intakes(runtime, tenant.tenant_id)]
    create = f"/staff/v1/tenants/{tenant.tenant_id}/intakes"
    for order in (*BEYOND_INT32, 2**64, 1e3, 1.5, True, "5"):
        response = await client.post(
            create, json={"name": "KYB", "order": order}, headers=staff.headers
        )
        assert_refused(response, "order")
    assert [i.id for i in await _intakes(runtime, tenant.tenant_id)] == before  # none stored
    for order in (INT32_MAX, INT32_MIN):
        made = await client.post(
            create, json={"name": "KYB", "order": order}, headers=staff.headers
        )
        assert made.status_code == 201, made.text
        assert made.json()["order"] == order
    label_id = made.json()["labelId"]
    for order in (*BEYOND_INT32, 2**64):
        response = await client.patch(
            f"/staff/v1/intakes/{label_id}", json={"order": order}, headers=staff.headers
        )
        assert_refused(response, "order")
    (kept,) = [i for i in await _intakes(runtime, tenant.tenant_id) if i.id == label_id]
    assert kept.order == INT32_MIN
    # A number too long for any integer type is malformed JSON (the body is at fault).
    raw = b'{"name": "KYB", "order": ' + HUGE.encode() + b"}"
    response = await client.post(
        create, content=raw, headers={**staff.headers, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"]


async def test_the_webhook_endpoint_cap_is_an_integer_from_1_to_20(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, staff: StaffFixture
) -> None:
    path = f"/staff/v1/tenants/{tenant.tenant_id}"
    for cap in (*BEYOND_INT32, 0, 21, -0, 2.0, "5", True):
        response = await client.patch(path, json={"webhookEndpointCap": cap}, headers=staff.headers)
        assert_refused(response, "webhookEndpointCap")
    async with runtime.db.read() as session:
        row = await session.get(Tenant, tenant.tenant_id)
    assert row is not None
    assert row.webhook_endpoint_cap == 5


async def test_a_customer_status_code_out_of_range_is_refused(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    made = await client.post(
        "/staff/v1/verification/clients", json={"name": "Numbers"}, headers=staff.headers
    )
    body = {"clientUuid": made.json()["clientUuid"], "email": "n@example.test", "phone": "1"}
    customer = await client.post(
        "/staff/v1/verification/customers", json=body, headers=staff.headers
    )
    uuid = customer.json()["uuid"]
    for status in (*BEYOND_INT32, 1e3, "6", True):
        response = await client.post(
            f"/staff/v1/verification/customers/{uuid}/status",
            json={"status": status},
            headers=staff.headers,
        )
        assert_refused(response, "status")
    async with runtime.db.read() as session:
        row = await session.scalar(select(Customer).where(Customer.uuid == uuid))
    assert row is not None
    assert row.status == 5


# Headers.


BODY = b'{"email": "header@example.test"}'


async def _raw(app: FastAPI, path: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, bytes]:
    """One request straight into the ASGI app, headers exactly as given."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    sent = False
    answer: dict[str, Any] = {"body": b""}

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
        elif message["type"] == "http.response.body":
            answer["body"] += message.get("body", b"")

    await app(scope, receive, send)
    return int(answer["status"]), bytes(answer["body"])


@pytest.mark.parametrize("declared", [b"\xb2", b"9" * 5000, b"-1", b"+2", b" 2", b"1e3"])
async def test_a_content_length_that_is_not_a_length_is_refused(
    app: FastAPI, tenant: TenantFixture, declared: bytes
) -> None:
    headers = [
        (b"authorization", f"Bearer {tenant.api_key}".encode()),
        (b"content-type", b"application/json"),
        (b"content-length", declared),
    ]
    status, body = await _raw(app, "/v1/applications", headers)
    assert status == 400, body
    assert b'"field":"Content-Length"' in body
    # The same request with its true length is served.
    headers[-1] = (b"content-length", str(len(BODY)).encode())
    status, body = await _raw(app, "/v1/applications", headers)
    assert status == 201, body


# Dashboard forms.

FORM_NOT_INTEGERS = ("²", "٣", "1e3", "-0", "+5", " 5x", HUGE, str(2**31), str(2**63))


async def test_dashboard_number_fields(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    page_url = f"/dashboard/tenants/{tenant.tenant_id}"
    before = [intake.id for intake in await _intakes(runtime, tenant.tenant_id)]
    for value in FORM_NOT_INTEGERS:
        cap = await client.post(
            f"{page_url}/cap", data={"csrf_token": csrf, "webhookEndpointCap": value}
        )
        assert cap.status_code == 400, (value, cap.text[:200])
        assert 'id="f-webhookEndpointCap-error"' in cap.text
        made = await client.post(
            f"{page_url}/intakes", data={"csrf_token": csrf, "intake_name": "KYB", "order": value}
        )
        assert made.status_code == 400, (value, made.text[:200])
        assert 'id="f-order-error"' in made.text
    async with runtime.db.read() as session:
        row = await session.get(Tenant, tenant.tenant_id)
    assert row is not None
    assert row.webhook_endpoint_cap == 5
    assert [i.id for i in await _intakes(runtime, tenant.tenant_id)] == before
    assert before, "the tenant fixture has an intake"
    for value in FORM_NOT_INTEGERS:
        edited = await client.post(
            f"/dashboard/intakes/{before[0]}", data={"csrf_token": csrf, "order": value}
        )
        assert edited.status_code == 400, (value, edited.text[:200])
    (kept,) = await _intakes(runtime, tenant.tenant_id)
    assert kept.order == 1
    # The largest order the database holds is accepted.
    edited = await client.post(
        f"/dashboard/intakes/{before[0]}", data={"csrf_token": csrf, "order": str(INT32_MAX)}
    )
    assert edited.status_code == 303
    (kept,) = await _intakes(runtime, tenant.tenant_id)
    assert kept.order == INT32_MAX


async def test_dashboard_customer_status_field(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    made = await client.post(
        "/staff/v1/verification/clients", json={"name": "Forms"}, headers=staff.headers
    )
    body = {"clientUuid": made.json()["clientUuid"], "email": "f@example.test", "phone": "1"}
    customer = await client.post(
        "/staff/v1/verification/customers", json=body, headers=staff.headers
    )
    uuid = customer.json()["uuid"]
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    for value in (*FORM_NOT_INTEGERS, "", "11"):
        changed = await client.post(
            f"/dashboard/verification/customers/{uuid}/status",
            data={"csrf_token": csrf, "status": value},
        )
        assert changed.status_code == 400, (value, changed.text[:200])
        assert f'id="status-{uuid}-error"' in changed.text
    async with runtime.db.read() as session:
        row = await session.scalar(select(Customer).where(Customer.uuid == uuid))
    assert row is not None
    assert row.status == 5


async def test_token_lifetimes_in_days(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture
) -> None:
    for days in (*BEYOND_INT32, 0, 366, 1e3, "30", True):
        response = await client.post(
            "/staff/v1/tokens", json={"name": "ci", "expiresInDays": days}, headers=staff.headers
        )
        assert_refused(response, "expiresInDays")
    analyst = await make_staff(runtime, "analyst")

    async def tokens_of_analyst() -> int:
        listed = await client.get("/staff/v1/tokens", headers=analyst.headers)
        assert listed.status_code == 200, listed.text
        return len(listed.json()["data"])

    before = await tokens_of_analyst()
    csrf = await dashboard_sign_in(client, analyst)
    for value in (*FORM_NOT_INTEGERS, "0", "366"):
        page = await client.post(
            "/dashboard/account/tokens",
            data={"csrf_token": csrf, "name": "laptop", "expires_in_days": value},
        )
        assert page.status_code == 400, (value, page.text[:200])
        assert 'id="f-expires_in_days-error"' in page.text
    assert await tokens_of_analyst() == before  # nothing stored
    made = await client.post(
        "/dashboard/account/tokens",
        data={"csrf_token": csrf, "name": "laptop", "expires_in_days": "365"},
    )
    assert made.status_code == 200, made.text[:200]
    assert await tokens_of_analyst() == before + 1
