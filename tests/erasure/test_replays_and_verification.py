"""Erasure reaches the answers remembered for `Idempotency-Key` replays and the verification
customers linked to the application (docs/documents.md §6), on SQLite and on PostgreSQL
(GATEHOUSE_TEST_DATABASE_URL).

After an erasure, replaying a key whose answer was about the application answers 410
`failed-precondition` (replayed, nothing of the original), the same key with another request
is still 400, and keys about anything else still replay their answer. The linked customer's
email and phone are gone from its row, its callbacks' bodies, the staff API, the dashboard
and the verification interface; its unsent callbacks are dropped. No log line holds any of it.
"""

from __future__ import annotations

from typing import Any

import httpx
import orjson
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import IdempotencyRecord
from tests.documents.support import holding, raw_database, secret_marker
from tests.pages.helpers import dashboard_sign_in
from tests.support.factories import StaffFixture, TenantFixture
from tests.verification.conftest import basic


async def _remembered(runtime: Runtime) -> list[tuple[str, str, bytes]]:
    """(key, state, decrypted answer) of every idempotency record."""
    async with runtime.db.read() as session:
        records = list(await session.scalars(select(IdempotencyRecord)))
    return [
        (
            record.key,
            record.state,
            runtime.crypto.decrypt(record.response_encrypted) if record.response_encrypted else b"",
        )
        for record in records
    ]


async def _post(
    client: httpx.AsyncClient, tenant: TenantFixture, path: str, key: str, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(path, json=body, headers={**tenant.headers, "Idempotency-Key": key})


async def test_erasure_reaches_replays_and_linked_verification_customers(
    runtime: Runtime,
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    staff: StaffFixture,
    captured_logs: list[str],
) -> None:
    email = secret_marker("replayed").decode().lower() + "@example.test"
    member = secret_marker("member").decode().lower() + "@example.test"
    reference = secret_marker("ref").decode()
    company = secret_marker("Company").decode()
    customer_email = secret_marker("customer").decode().lower() + "@example.test"
    customer_phone = "+9715" + secret_marker("")[1:].decode()[:12]
    markers = [email, member, reference, company, customer_email, customer_phone]

    provision: dict[str, Any] = {"email": email, "externalRef": reference, "companyName": company}
    made = await _post(client, tenant, "/v1/applications", "provision-1", provision)
    assert made.status_code == 201, made.text
    client_id = made.json()["clientId"]
    added = await _post(
        client, tenant, f"/v1/applications/{client_id}/members", "member-1", {"email": member}
    )
    assert added.status_code == 201, added.text
    # A sign-in link for the same identity: the answer names the application in its body only.
    link = await _post(client, tenant, "/v1/login-sessions", "link-1", provision)
    assert link.status_code == 201, link.text
    assert link.json()["clientId"] == client_id
    # Controls: another application of the tenant, and a key about no application at all.
    other = await _post(client, tenant, "/v1/applications", "other-1", {"email": "o@example.test"})
    assert other.status_code == 201, other.text
    hook_body: dict[str, Any] = {"url": "https://receiver.example.test/hooks", "events": ["*"]}
    hook = await _post(client, tenant, "/v1/webhooks", "hook-1", hook_body)
    assert hook.status_code == 201, hook.text

    # A verification client with a callback (never sent here: no worker runs) and a customer
    # linked to the application, moved once so that callbacks wait with its email and phone.
    made_client = await client.post(
        "/staff/v1/verification/clients",
        json={"name": "Acme KYC", "customerCreatedEvents": True},
        headers=staff.headers,
    )
    assert made_client.status_code == 201, made_client.text
    vclient = made_client.json()
    registered = await client.post(
        "/verify/clients/setWebhook/clientAuth",
        json={
            "clientUuid": vclient["clientUuid"],
            "clientSecret": vclient["clientSecret"],
            "callbackUrl": "http://127.0.0.1:9/callbacks",
            "callbackPassphrase": "correct-horse-battery",
        },
    )
    assert registered.status_code == 200, registered.text
    customers = []
    for linked in (client_id, None):
        created = await client.post(
            "/staff/v1/verification/customers",
            json={
                "clientUuid": vclient["clientUuid"],
                "email": customer_email if linked else "kept@example.test",
                "phone": customer_phone if linked else "+971500000009",
                "clientId": linked,
            },
            headers=staff.headers,
        )
        assert created.status_code == 201, created.text
        customers.append(created.json()["uuid"])
    linked_uuid, unlinked_uuid = customers
    moved = await client.post(
        f"/staff/v1/verification/customers/{linked_uuid}/status",
        json={"status": 7, "reason": "Documents disagree about " + customer_email},
        headers=staff.headers,
    )
    assert moved.status_code == 200, moved.text

    # Before: the data is there, in clear in the customer and callback rows, and sealed in
    # the remembered answers (so the raw scan alone could not see it).
    before = await raw_database(runtime)
    assert "verification_customers.email" in holding(before, customer_email.encode())
    assert "verification_callbacks.payload" in holding(before, customer_phone.encode())
    assert holding(before, email.encode())
    assert not any(
        found.startswith("idempotency_records.") for found in holding(before, email.encode())
    )
    answers = await _remembered(runtime)
    assert any(email.encode() in answer for _, _, answer in answers)
    assert any(member.encode() in answer for _, _, answer in answers)

    erased = await client.post(f"/staff/v1/applications/{client_id}/erase", headers=staff.headers)
    assert erased.status_code == 200, erased.text

    # Replays of keys about the erased application: 410, replayed, nothing of the original.
    for path, key, body in (
        ("/v1/applications", "provision-1", provision),
        (f"/v1/applications/{client_id}/members", "member-1", {"email": member}),
        ("/v1/login-sessions", "link-1", provision),
    ):
        replay = await _post(client, tenant, path, key, body)
        assert replay.status_code == 410, replay.text
        assert replay.headers["Idempotent-Replayed"] == "true"
        error = replay.json()["error"]
        assert error["code"] == "failed-precondition"
        assert error["requestId"] == replay.headers["Service-Request-Id"]
        assert not any(marker in replay.text for marker in markers)
        assert "loginUrl" not in replay.text
    # The key stays bound to its request: another request under it is still refused.
    reused = await _post(client, tenant, "/v1/applications", "provision-1", {"email": member})
    assert reused.status_code == 400, reused.text
    assert reused.json()["error"]["details"][0]["field"] == "Idempotency-Key"
    # Keys about anything else replay their answer unchanged.
    controls: list[tuple[str, str, dict[str, Any], httpx.Response]] = [
        ("/v1/applications", "other-1", {"email": "o@example.test"}, other),
        ("/v1/webhooks", "hook-1", hook_body, hook),
    ]
    for path, key, body, first in controls:
        again = await _post(client, tenant, path, key, body)
        assert again.status_code == 201, again.text
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == first.json()

    states = {key: state for key, state, _ in await _remembered(runtime)}
    assert states["provision-1"] == states["member-1"] == states["link-1"] == "erased"
    assert states["other-1"] == states["hook-1"] == "done"

    # Nothing of the applicant or the customer in any column read raw, or in any answer.
    after = await raw_database(runtime)
    for marker in markers:
        assert holding(after, marker.encode()) == [], f"{marker} survives erasure"
        assert not any(marker.encode() in answer for _, _, answer in await _remembered(runtime))

    # The staff API and the verification interface show the customer without them.
    shown = await client.get(
        f"/staff/v1/verification/customers/{linked_uuid}", headers=staff.headers
    )
    assert shown.status_code == 200, shown.text
    assert (shown.json()["email"], shown.json()["phone"], shown.json()["reason"]) == ("", "", None)
    assert shown.json()["clientId"] == client_id
    assert shown.json()["status"] == 7
    credentials = basic(vclient["clientUuid"], vclient["clientSecret"])
    retrieved = await client.get(f"/verify/clients/customers/{linked_uuid}", headers=credentials)
    assert retrieved.status_code == 200, retrieved.text
    assert (retrieved.json()["email"], retrieved.json()["phone"]) == ("", "")
    kept = await client.get(f"/verify/clients/customers/{unlinked_uuid}", headers=credentials)
    assert kept.json()["email"] == "kept@example.test"

    # Its callbacks were never sent and never will be; the other customer's still wait.
    listed = await client.get(
        "/staff/v1/verification/callbacks", params={"limit": "100"}, headers=staff.headers
    )
    assert listed.status_code == 200, listed.text
    by_customer: dict[str, set[tuple[str, str | None]]] = {}
    for callback in listed.json()["data"]:
        by_customer.setdefault(callback["customerUuid"], set()).add(
            (callback["status"], callback["lastError"])
        )
    assert by_customer[linked_uuid] == {("dropped", "application erased")}
    assert by_customer[unlinked_uuid] == {("pending", None)}

    # The dashboard's verification page says so instead of showing them.
    await dashboard_sign_in(client, staff)
    page = await client.get("/dashboard/verification")
    assert page.status_code == 200
    row = page.text.split(linked_uuid, 1)[0].rsplit("<tr>", 1)[1]
    assert "Erased with its application" in row
    assert "kept@example.test" in page.text

    # Erasing again changes nothing and still answers 410.
    again = await client.post(f"/staff/v1/applications/{client_id}/erase", headers=staff.headers)
    assert again.status_code == 410

    # No log line of the session so far holds any of it.
    for line in captured_logs:
        assert not any(marker in line for marker in markers)
    assert orjson.loads(erased.content) == {"clientId": client_id, "erased": True}
