"""Sandbox verification clients (docs/sandbox.md, "Verification"): they create and move their
own customers over /verify/sandbox, and the real callbacks reach a real loopback receiver;
every other client (or caller) learns nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from tests.verification.conftest import (
    PASSPHRASE,
    LiveRecorder,
    Verification,
    basic,
    eventually,
)

CUSTOMER_KEYS = {"id", "uuid", "email", "phone", "status", "statusName", "updatedAt", "documents"}


async def sandbox_client(
    verification: Verification, recorder: LiveRecorder, **extra: Any
) -> dict[str, Any]:
    made = await verification.create_client("Sandbox KYC", sandbox=True, **extra)
    assert made["sandbox"] is True
    registered = await verification.register(made, recorder.url)
    assert registered.status_code == 200, registered.text
    return made


async def create(http: httpx.AsyncClient, client: dict[str, Any], **body: Any) -> httpx.Response:
    return await http.post(
        "/verify/sandbox/customers",
        json=body or {"email": "Ann@Example.com", "phone": "+971500000001"},
        headers=basic(client["clientUuid"], client["clientSecret"]),
    )


async def move(
    http: httpx.AsyncClient, client: dict[str, Any], customer_uuid: str, status: Any
) -> httpx.Response:
    return await http.post(
        f"/verify/sandbox/customers/{customer_uuid}/status",
        json={"status": status},
        headers=basic(client["clientUuid"], client["clientSecret"]),
    )


async def test_a_sandbox_client_walks_its_customer_and_gets_the_real_callbacks(
    client: httpx.AsyncClient,
    runtime: Runtime,
    verification: Verification,
    recorder: LiveRecorder,
    worker: None,
) -> None:
    made = await sandbox_client(verification, recorder, customerCreatedEvents=True)
    created = await create(
        client,
        made,
        email="Ann@Example.com",
        phone="+971500000001",
        documents=[{"type": "passport", "expiresAt": "2030-01-31"}],
    )
    assert created.status_code == 201, created.text
    customer = created.json()
    assert set(customer) == CUSTOMER_KEYS
    assert customer["status"] == 5
    assert customer["email"] == "ann@example.com"
    assert customer["documents"] == [{"type": "passport", "expiresAt": "2030-01-31T00:00:00.000Z"}]

    accepted = await move(client, made, customer["uuid"], 6)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == 6
    assert accepted.json()["statusName"] == "Accepted"
    # What the client reads back is what it was answered.
    read = await client.get(
        f"/verify/clients/customers/{customer['uuid']}",
        headers=basic(made["clientUuid"], made["clientSecret"]),
    )
    assert read.json() == accepted.json()

    await eventually(lambda: len(recorder.app.requests) >= 2)
    bodies = [r.json() for r in recorder.app.requests]
    assert [b["event"] for b in bodies] == ["customer_created", "customer_status_changed"]
    assert all(b["passphrase"] == PASSPHRASE for b in bodies)
    assert [b["newStatus"] for b in bodies] == [5, 6]
    assert all(b["uuid"] == customer["uuid"] for b in bodies)

    # The same shape as a staff-driven change of a customer of a plain client.
    plain = await verification.create_client("Plain KYC")
    assert plain["sandbox"] is False
    await verification.register(plain, recorder.url)
    staff_made = await verification.create_customer(plain)
    assert (await verification.set_status(staff_made["uuid"], 6)).status_code == 200
    await eventually(lambda: len(recorder.app.requests) >= 3)
    staff_body = recorder.app.requests[2].json()
    assert set(staff_body) == set(bodies[1])

    async with runtime.db.read() as session:
        actions = list(
            (
                await session.execute(
                    select(AuditEntry.actor, AuditEntry.action).where(
                        AuditEntry.target == customer["uuid"]
                    )
                )
            ).all()
        )
    actor = f"verification_client:{made['clientUuid']}"
    assert (actor, "verification.customer.create") in actions
    assert (actor, "verification.customer.status.6") in actions


async def test_setting_the_same_status_again_sends_nothing(
    client: httpx.AsyncClient,
    verification: Verification,
    recorder: LiveRecorder,
    worker: None,
) -> None:
    made = await sandbox_client(verification, recorder)
    customer = (await create(client, made)).json()
    for status in (7, 7, 2):
        assert (await move(client, made, customer["uuid"], status)).status_code == 200
    await eventually(lambda: len(recorder.app.requests) >= 2)
    assert [r.json()["newStatus"] for r in recorder.app.requests] == [7, 2]


async def test_a_client_that_is_not_a_sandbox_one_is_told_no_such_route(
    client: httpx.AsyncClient, verification: Verification, recorder: LiveRecorder
) -> None:
    plain = await verification.create_client("Plain KYC")
    customer = await verification.create_customer(plain)
    unknown = await client.post("/verify/sandbox/nothing-here", json={})
    assert unknown.status_code == 404
    for answer in (
        await create(client, plain),
        await move(client, plain, customer["uuid"], 6),
    ):
        assert answer.status_code == 404
        assert answer.json() == unknown.json() == {"message": "No such route."}
    assert (await verification.callbacks()) == []
    # Other methods on the sandbox paths are unknown paths, for every caller.
    made = await sandbox_client(verification, recorder)
    for headers in ({}, basic(made["clientUuid"], made["clientSecret"])):
        got = await client.get("/verify/sandbox/customers", headers=headers)
        assert (got.status_code, got.json()) == (404, {"message": "No such route."})


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer x", "Basic !!!", "wrong-secret", "unknown-client"],
)
async def test_bad_credentials_are_401(
    client: httpx.AsyncClient,
    verification: Verification,
    recorder: LiveRecorder,
    authorization: str | None,
) -> None:
    made = await sandbox_client(verification, recorder)
    headers: dict[str, str] = {}
    if authorization == "wrong-secret":
        headers = basic(made["clientUuid"], "not-the-secret")
    elif authorization == "unknown-client":
        headers = basic("00000000-0000-0000-0000-000000000000", made["clientSecret"])
    elif authorization is not None:
        headers = {"Authorization": authorization}
    answer = await client.post(
        "/verify/sandbox/customers",
        json={"email": "a@example.test", "phone": "1"},
        headers=headers,
    )
    assert answer.status_code == 401
    assert set(answer.json()) == {"message"}
    assert answer.headers["www-authenticate"].startswith("Basic")


@pytest.mark.parametrize(
    "body",
    [
        {"phone": "1"},
        {"email": "no-at-sign", "phone": "1"},
        {"email": "a@example.test", "phone": ""},
        {"email": "a@example.test", "phone": 5},
        {"email": "a@example.test", "phone": "1", "documents": [{"type": "visa"}]},
        {
            "email": "a@example.test",
            "phone": "1",
            "documents": [{"type": "passport", "expiresAt": "soon"}],
        },
    ],
)
async def test_invalid_customers_are_400_message(
    client: httpx.AsyncClient,
    verification: Verification,
    recorder: LiveRecorder,
    body: dict[str, Any],
) -> None:
    made = await sandbox_client(verification, recorder)
    answer = await create(client, made, **body)
    assert answer.status_code == 400, answer.text
    assert set(answer.json()) == {"message"}


async def test_status_changes_take_only_the_emitted_codes_and_own_customers(
    client: httpx.AsyncClient, verification: Verification, recorder: LiveRecorder
) -> None:
    made = await sandbox_client(verification, recorder)
    customer = (await create(client, made)).json()
    for status in (1, 3, 4, 8, 11, "6", None, 6.0):
        refused = await move(client, made, customer["uuid"], status)
        assert refused.status_code == 400, (status, refused.text)
        assert set(refused.json()) == {"message"}
    other = await sandbox_client(verification, recorder)
    foreign = await move(client, other, customer["uuid"], 6)
    assert (foreign.status_code, foreign.json()) == (404, {"message": "No such customer."})
    missing = await move(client, made, "00000000-0000-0000-0000-000000000000", 6)
    assert missing.status_code == 404
    read = await client.get(
        f"/verify/clients/customers/{customer['uuid']}",
        headers=basic(made["clientUuid"], made["clientSecret"]),
    )
    assert read.json()["status"] == 5
