"""Callbacks delivered to real loopback receivers (docs/reference/verification.md §5.1, §5.2;
docs/reference/verification.md).
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from gatehouse.runtime import Runtime
from gatehouse.timeutil import format_ts, parse_ts
from tests.verification.conftest import (
    PASSPHRASE,
    LiveReceiver,
    LiveRecorder,
    Verification,
    eventually,
)

PAYLOAD_KEYS = [
    "id",
    "uuid",
    "email",
    "phone",
    "newStatus",
    "updatedAt",
    "event",
    "expiryWarningFor",
    "passphrase",
]


def assert_payload_types(payload: dict[str, object]) -> None:
    assert list(payload) == PAYLOAD_KEYS
    assert type(payload["id"]) is int
    for key in ("uuid", "email", "phone", "updatedAt", "event", "passphrase"):
        assert type(payload[key]) is str, key
    assert type(payload["newStatus"]) is int
    assert isinstance(payload["expiryWarningFor"], list)
    assert all(isinstance(item, str) for item in payload["expiryWarningFor"])  # type: ignore[attr-defined]
    assert str(payload["updatedAt"]).endswith("Z")
    parse_ts(str(payload["updatedAt"]))


async def test_status_change_reaches_the_example_receiver(
    verification: Verification, receiver: LiveReceiver, worker: None
) -> None:
    client = await verification.create_client()
    registered = await verification.register(client, receiver.url)
    assert registered.status_code == 200
    customer = await verification.create_customer(client)
    # Not opted in to customer_created: creation alone sends nothing.
    response = await verification.set_status(customer["uuid"], 6)
    assert response.status_code == 200

    await eventually(lambda: receiver.book.applied)
    (update,) = receiver.book.applied
    payload = update.raw
    assert_payload_types(payload)
    assert payload == {
        "id": customer["id"],
        "uuid": customer["uuid"],
        "email": "ann.lee@example.com",
        "phone": "+971500000001",
        "newStatus": 6,
        "updatedAt": response.json()["updatedAt"],
        "event": "customer_status_changed",
        "expiryWarningFor": [],
        "passphrase": PASSPHRASE,
    }
    assert receiver.book.status == {customer["uuid"]: 6}
    (row,) = await eventually(lambda: verification.callbacks(status="succeeded"))
    assert row["attempts"] == 1
    assert row["lastStatusCode"] == 202
    assert row["event"] == "customer_status_changed"


async def test_every_status_change_sends_one_callback_with_the_new_code(
    verification: Verification, recorder: LiveRecorder, worker: None
) -> None:
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    customer = await verification.create_customer(client)
    for code in (9, 6, 7, 2, 10, 5):
        assert (await verification.set_status(customer["uuid"], code)).status_code == 200
    await eventually(lambda: len(recorder.app.requests) == 6)
    payloads = sorted((r.json() for r in recorder.app.requests), key=lambda p: p["updatedAt"])
    assert sorted(p["newStatus"] for p in payloads) == sorted([9, 6, 7, 2, 10, 5])
    for payload in payloads:
        assert_payload_types(payload)
        assert payload["event"] == "customer_status_changed"
        assert payload["expiryWarningFor"] == []
    request = recorder.app.requests[0]
    assert request.headers["content-type"] == "application/json"


async def test_setting_the_same_status_again_sends_nothing(
    verification: Verification, recorder: LiveRecorder, worker: None
) -> None:
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    customer = await verification.create_customer(client)
    assert (await verification.set_status(customer["uuid"], 5)).status_code == 200
    assert (await verification.set_status(customer["uuid"], 7)).status_code == 200
    await eventually(lambda: len(recorder.app.requests) == 1)
    assert recorder.app.requests[0].json()["newStatus"] == 7
    assert len(await verification.callbacks()) == 1


async def test_customer_created_only_for_opted_in_clients(
    verification: Verification, recorder: LiveRecorder, worker: None
) -> None:
    quiet = await verification.create_client("Quiet")
    opted = await verification.create_client("Opted", customerCreatedEvents=True)
    assert opted["customerCreatedEvents"] is True
    assert quiet["customerCreatedEvents"] is False
    await verification.register(quiet, recorder.url)
    await verification.register(opted, recorder.url)
    await verification.create_customer(quiet)
    created = await verification.create_customer(opted, email="bo@example.com")

    await eventually(lambda: recorder.app.requests)
    # Give a wrongly queued callback for the quiet client time to arrive too.
    await verification.set_status(created["uuid"], 6)
    await eventually(lambda: len(recorder.app.requests) == 2)
    first, second = sorted((r.json() for r in recorder.app.requests), key=lambda p: p["updatedAt"])
    assert_payload_types(first)
    assert first["event"] == "customer_created"
    assert first["uuid"] == created["uuid"]
    assert first["newStatus"] == 5
    assert first["expiryWarningFor"] == []
    assert first["updatedAt"] == created["updatedAt"]
    assert second["event"] == "customer_status_changed"
    assert all(r.json()["uuid"] == created["uuid"] for r in recorder.app.requests)
    assert await verification.callbacks(clientUuid=quiet["clientUuid"]) == []


async def test_no_callback_without_a_registered_callback(
    verification: Verification, runtime: Runtime, worker: None
) -> None:
    client = await verification.create_client(customerCreatedEvents=True)
    customer = await verification.create_customer(client)
    assert (await verification.set_status(customer["uuid"], 6)).status_code == 200
    assert await verification.callbacks() == []


async def test_one_attempt_then_three_retries_then_dropped(
    verification: Verification, recorder: LiveRecorder, runtime: Runtime, worker: None
) -> None:
    recorder.app.status = 503
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    customer = await verification.create_customer(client)
    await verification.set_status(customer["uuid"], 7)

    (row,) = await eventually(lambda: verification.callbacks(status="dropped"))
    assert row["attempts"] == 4
    assert row["lastStatusCode"] == 503
    assert row["completedAt"] is not None
    assert len(recorder.app.requests) == 4
    bodies = {r.body for r in recorder.app.requests}
    assert len(bodies) == 1  # the same payload every time
    # Waits of nominal 10 s, 20 s, 40 s, scaled by VERIFY_CALLBACK_BACKOFF_SCALE.
    scale = runtime.settings.verify_callback_backoff_scale
    times = [r.at for r in recorder.app.requests]
    for gap, nominal in zip(
        [b - a for a, b in itertools.pairwise(times)], (10, 20, 40), strict=True
    ):
        assert gap >= nominal * scale * 0.9
    log = row["attemptLog"]
    assert [entry["statusCode"] for entry in log] == [503] * 4
    stamps = [datetime.fromisoformat(entry["at"].replace("Z", "+00:00")) for entry in log]
    assert stamps == sorted(stamps)


async def test_a_later_success_stops_the_retries(
    verification: Verification, recorder: LiveRecorder, worker: None
) -> None:
    recorder.app.status = 500
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    customer = await verification.create_customer(client)
    await verification.set_status(customer["uuid"], 6)
    await eventually(lambda: len(recorder.app.requests) >= 2)
    recorder.app.status = 204
    (row,) = await eventually(lambda: verification.callbacks(status="succeeded"))
    assert 2 <= row["attempts"] <= 4
    assert row["lastStatusCode"] == 204
    count = len(recorder.app.requests)
    assert count == row["attempts"]


async def test_wrong_passphrase_is_refused_by_the_receiver_and_dropped(
    verification: Verification, receiver: LiveReceiver, worker: None
) -> None:
    client = await verification.create_client()
    await verification.register(client, receiver.url, passphrase="not-the-receivers-one")
    customer = await verification.create_customer(client)
    await verification.set_status(customer["uuid"], 6)
    (row,) = await eventually(lambda: verification.callbacks(status="dropped"))
    assert row["attempts"] == 4
    assert row["lastStatusCode"] == 401
    assert receiver.app.refused == 4
    assert receiver.book.applied == []


async def test_re_registration_replaces_url_and_passphrase(
    verification: Verification, recorder: LiveRecorder, receiver: LiveReceiver, worker: None
) -> None:
    client = await verification.create_client()
    await verification.register(client, recorder.url, passphrase="first-passphrase")
    again = await verification.register(client, receiver.url)
    assert again.status_code == 200
    customer = await verification.create_customer(client)
    await verification.set_status(customer["uuid"], 6)
    await eventually(lambda: receiver.book.applied)
    assert receiver.book.applied[0].raw["passphrase"] == PASSPHRASE
    assert recorder.app.requests == []


async def test_unreachable_receiver_counts_as_a_failed_attempt(
    verification: Verification, worker: None
) -> None:
    from tests.support.live import free_port

    client = await verification.create_client()
    await verification.register(client, f"http://127.0.0.1:{free_port()}/nobody-listens")
    customer = await verification.create_customer(client)
    await verification.set_status(customer["uuid"], 6)
    (row,) = await eventually(lambda: verification.callbacks(status="dropped"))
    assert row["attempts"] == 4
    assert row["lastStatusCode"] is None
    assert row["lastError"]


async def test_delivery_runs_on_the_runtime_clock(
    verification: Verification, recorder: LiveRecorder, runtime: Runtime, worker: None
) -> None:
    """Queueing, claiming, scheduling and dropping read `runtime.now()`: a frozen clock
    holds every retry back until the test moves it."""
    now = [datetime(2026, 11, 22, 10, 0, tzinfo=UTC)]
    runtime.clock = lambda: now[0]
    scale = runtime.settings.verify_callback_backoff_scale
    recorder.app.status = 503
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    customer = await verification.create_customer(client)
    await verification.set_status(customer["uuid"], 6)

    async def after(attempts: int) -> list[dict[str, object]]:
        return [r for r in await verification.callbacks() if r["attempts"] == attempts]

    for attempt, nominal in enumerate((10, 20, 40), start=1):
        (row,) = await eventually(lambda attempt=attempt: after(attempt))
        assert row["status"] == "pending"
        assert row["nextAttemptAt"] == format_ts(now[0] + timedelta(seconds=nominal * scale))
        assert row["attemptLog"][-1]["at"] == format_ts(now[0])
        # Frozen: the retry is not due, so nothing more went out.
        assert len(recorder.app.requests) == attempt
        now[0] += timedelta(minutes=1)
    (row,) = await eventually(lambda: verification.callbacks(status="dropped"))
    assert row["attempts"] == 4
    assert len(recorder.app.requests) == 4
    assert row["completedAt"] == format_ts(now[0])
