"""Staff routes of the verification area (docs/reference/staff-api.md): roles, bodies,
status codes.
"""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import func, select

from gatehouse.domain.verification import CallbackStatus
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.verification import Customer, VerificationCallback
from tests.support.factories import make_staff
from tests.verification.conftest import Verification

CLIENTS = "/staff/v1/verification/clients"
CUSTOMERS = "/staff/v1/verification/customers"


async def test_create_client_shows_the_secret_once(
    verification: Verification, client: httpx.AsyncClient
) -> None:
    created = await verification.create_client("Acme KYC")
    assert set(created) >= {"clientUuid", "clientSecret", "name"}
    assert created["name"] == "Acme KYC"
    assert len(created["clientSecret"]) >= 32
    listed = await client.get(CLIENTS, headers=verification.staff.headers)
    assert listed.status_code == 200
    (row,) = listed.json()["data"]
    assert row["clientUuid"] == created["clientUuid"]
    assert "clientSecret" not in row
    assert created["clientSecret"] not in listed.text


async def test_roles(
    runtime: Runtime, client: httpx.AsyncClient, verification: Verification
) -> None:
    analyst = await make_staff(runtime, "analyst")
    mlro = await make_staff(runtime, "mlro")
    admin = await make_staff(runtime, "admin")
    for who in (analyst, mlro):
        refused = await client.post(CLIENTS, json={"name": "x"}, headers=who.headers)
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "permission-denied"
        sweep = await client.post("/staff/v1/verification/sweep", headers=who.headers)
        assert sweep.status_code == 403
    made = await client.post(CLIENTS, json={"name": "x"}, headers=admin.headers)
    assert made.status_code == 201
    assert (
        await client.post("/staff/v1/verification/sweep", headers=admin.headers)
    ).status_code == 200
    # Analysts create customers, change statuses and read lists.
    body = {"clientUuid": made.json()["clientUuid"], "email": "a@b.c", "phone": "1"}
    customer = await client.post(CUSTOMERS, json=body, headers=analyst.headers)
    assert customer.status_code == 201
    changed = await client.post(
        f"{CUSTOMERS}/{customer.json()['uuid']}/status", json={"status": 6}, headers=analyst.headers
    )
    assert changed.status_code == 200
    for path in (CLIENTS, CUSTOMERS, "/staff/v1/verification/callbacks"):
        assert (await client.get(path, headers=analyst.headers)).status_code == 200


async def test_a_role_check_comes_before_body_validation(
    runtime: Runtime, client: httpx.AsyncClient
) -> None:
    analyst = await make_staff(runtime, "analyst")
    response = await client.post(CLIENTS, content=b"{bad", headers=analyst.headers)
    assert response.status_code == 403


@pytest.mark.parametrize(
    "path", [CLIENTS, CUSTOMERS, "/staff/v1/verification/sweep", f"{CUSTOMERS}/x/status"]
)
async def test_staff_routes_need_a_staff_token(client: httpx.AsyncClient, path: str) -> None:
    response = await client.post(path, json={})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


async def test_new_customer_is_pending_with_its_documents(
    verification: Verification, runtime: Runtime
) -> None:
    created = await verification.create_client()
    customer = await verification.create_customer(
        created,
        email="  Mixed.Case@Example.COM ",
        phone=" +20 100 000 0000 ",
        documents=[
            {"type": "egypt_national_id", "expiresAt": "2030-02-03T04:05:06.789+02:00"},
            {"type": "passport", "expiresAt": "2032-12-31"},
        ],
    )
    assert customer["status"] == 5
    assert customer["statusName"] == "Pending"
    assert customer["email"] == "mixed.case@example.com"
    assert customer["phone"] == "+20 100 000 0000"
    assert isinstance(customer["id"], int)
    assert customer["clientUuid"] == created["clientUuid"]
    assert customer["clientId"] is None
    assert customer["documents"] == [
        {"type": "egypt_national_id", "expiresAt": "2030-02-03T02:05:06.789Z"},
        {"type": "passport", "expiresAt": "2032-12-31T00:00:00.000Z"},
    ]
    second = await verification.create_customer(created)
    assert second["id"] > customer["id"]
    assert second["uuid"] != customer["uuid"]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"email": "no-at-sign"}, "email"),
        ({"email": 5}, "email"),
        ({"phone": "   "}, "phone"),
        ({"phone": None}, "phone"),
        ({"clientUuid": "00000000-0000-4000-8000-000000000000"}, "clientUuid"),
        ({"clientId": "app_doesnotexist"}, "clientId"),
        (
            {"documents": [{"type": "driving_licence", "expiresAt": "2030-01-01"}]},
            "documents.0.type",
        ),
        ({"documents": [{"type": "passport", "expiresAt": "soon"}]}, "documents.0.expiresAt"),
        ({"documents": [{"type": "passport"}]}, "documents.0.expiresAt"),
        ({"documents": "passport"}, "documents"),
    ],
)
async def test_bad_customer_input_is_400_and_creates_nothing(
    verification: Verification, runtime: Runtime, fields: dict[str, object], field: str
) -> None:
    created = await verification.create_client()
    body = {"clientUuid": created["clientUuid"], "email": "a@b.c", "phone": "1", **fields}
    response = await verification.http.post(
        CUSTOMERS, json=body, headers=verification.staff.headers
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-argument"
    assert any(detail["field"] == field for detail in error["details"]), error
    async with runtime.db.read() as session:
        assert await session.scalar(select(func.count()).select_from(Customer)) == 0


@pytest.mark.parametrize("status", [1, 3, 4, 8, 0, 11, -5, "6", 6.0, True, None, [6]])
async def test_only_emitted_codes_can_be_set(
    verification: Verification, runtime: Runtime, status: object, recorder_url: str
) -> None:
    created = await verification.create_client()
    await verification.register(created, recorder_url)
    customer = await verification.create_customer(created)
    response = await verification.set_status(customer["uuid"], status)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"
    assert response.json()["error"]["details"][0]["field"] == "status"
    async with runtime.db.read() as session:
        row = await session.scalar(select(Customer).where(Customer.uuid == customer["uuid"]))
        assert row is not None
        assert row.status == 5
        assert await session.scalar(select(func.count()).select_from(VerificationCallback)) == 0


@pytest.fixture
def recorder_url() -> str:
    # Registered but never called: these tests run no worker.
    return "http://127.0.0.1:9/never-called"


@pytest.mark.parametrize("status", [2, 5, 6, 7, 9, 10])
async def test_every_emitted_code_can_be_set_and_queues_one_callback(
    verification: Verification, runtime: Runtime, status: int, recorder_url: str
) -> None:
    created = await verification.create_client()
    await verification.register(created, recorder_url)
    customer = await verification.create_customer(created)
    start = 5 if status != 5 else 6
    if start != 5:
        await verification.set_status(customer["uuid"], start)
    response = await verification.set_status(customer["uuid"], status, reason="checked by hand")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == status
    assert body["reason"] == "checked by hand"
    async with runtime.db.read() as session:
        rows = list(
            await session.scalars(
                select(VerificationCallback).order_by(VerificationCallback.created_at)
            )
        )
    assert rows[-1].payload["newStatus"] == status
    assert rows[-1].event == "customer_status_changed"
    assert len(rows) == (2 if start != 5 else 1)


async def test_status_of_an_unknown_customer_is_404(verification: Verification) -> None:
    response = await verification.set_status("00000000-0000-4000-8000-000000000000", 6)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not-found"


async def test_staff_actions_are_audited(verification: Verification, runtime: Runtime) -> None:
    created = await verification.create_client()
    customer = await verification.create_customer(created)
    changed = await verification.set_status(customer["uuid"], 7)
    await verification.sweep()
    async with runtime.db.read() as session:
        entries = list(await session.scalars(select(AuditEntry).order_by(AuditEntry.at)))
    by_action = {entry.action: entry for entry in entries}
    actor = f"staff:{verification.staff.staff_id}"
    assert by_action["verification.client.create"].actor == actor
    assert by_action["verification.customer.create"].target == customer["uuid"]
    status_entry = by_action["verification.customer.status.7"]
    assert status_entry.actor == actor
    assert status_entry.request_id == changed.headers["service-request-id"]
    assert by_action["verification.sweep"].actor == actor


async def test_lists_page_with_cursors(verification: Verification) -> None:
    created = await verification.create_client()
    other = await verification.create_client("Other")
    uuids = [(await verification.create_customer(created))["uuid"] for _ in range(3)]
    await verification.create_customer(other)
    headers = verification.staff.headers
    first = await verification.http.get(
        CUSTOMERS, params={"clientUuid": created["clientUuid"], "limit": "2"}, headers=headers
    )
    page = first.json()
    assert [c["uuid"] for c in page["data"]] == uuids[::-1][:2]
    assert page["hasMore"] is True
    second = await verification.http.get(
        CUSTOMERS,
        params={"clientUuid": created["clientUuid"], "limit": "2", "cursor": page["nextCursor"]},
        headers=headers,
    )
    assert [c["uuid"] for c in second.json()["data"]] == uuids[:1]
    assert second.json()["hasMore"] is False
    replayed = await verification.http.get(
        CUSTOMERS, params={"limit": "2", "cursor": page["nextCursor"]}, headers=headers
    )
    assert replayed.status_code == 400
    bad_limit = await verification.http.get(CUSTOMERS, params={"limit": "x"}, headers=headers)
    assert bad_limit.status_code == 400
    one = await verification.http.get(f"{CUSTOMERS}/{uuids[0]}", headers=headers)
    assert one.status_code == 200
    assert one.json()["uuid"] == uuids[0]
    missing = await verification.http.get(f"{CUSTOMERS}/nope", headers=headers)
    assert missing.status_code == 404


async def test_the_callback_log_filters_by_each_state(
    verification: Verification, runtime: Runtime, recorder_url: str
) -> None:
    """`status` takes the four states of docs/reference/staff-api.md §8.4; any other is 400."""
    assert [str(state) for state in CallbackStatus] == [
        "pending",
        "delivering",
        "succeeded",
        "dropped",
    ]
    created = await verification.create_client()
    await verification.register(created, recorder_url)
    customer = await verification.create_customer(created)
    for code in (6, 7, 9, 10):
        assert (await verification.set_status(customer["uuid"], code)).status_code == 200
    async with runtime.db.write() as session:
        rows = list(
            await session.scalars(
                select(VerificationCallback).order_by(
                    VerificationCallback.created_at, VerificationCallback.id
                )
            )
        )
        ids = {}
        for row, state in zip(rows, CallbackStatus, strict=True):
            row.status = state
            ids[state] = row.id
    for state in CallbackStatus:
        (listed,) = await verification.callbacks(status=state.value)
        assert (listed["callbackId"], listed["status"]) == (ids[state], state.value)
        assert (listed["nextAttemptAt"] is None) == (state != CallbackStatus.PENDING)
    refused = await verification.http.get(
        "/staff/v1/verification/callbacks",
        params={"status": "failed"},
        headers=verification.staff.headers,
    )
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "invalid-argument"
    assert error["details"][0]["field"] == "status"
    assert "pending, delivering, succeeded, dropped" in error["message"]
