"""What one callback receiver (or one bad callback row) can and cannot do to the callback
worker (docs/webhooks.md): other clients' callbacks go out once each, and the worker
keeps going. Real loopback receivers, the real worker, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import select, update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import VerificationCallback
from gatehouse.verification.delivery import run_callback_worker
from tests.verification.conftest import LiveRecorder, Verification, eventually
from tests.webhooks.hostile import OK, Answer, Hostile, running_hostile


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    with running_hostile(Hostile()) as h:
        yield h


async def test_a_callback_that_cannot_be_recorded_does_not_stop_the_others(
    verification: Verification,
    recorder: LiveRecorder,
    runtime: Runtime,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Three clients' callbacks are claimed together; one row is damaged so that recording
    its attempt fails. The two others are recorded once, the worker goes on (a later
    callback goes out too), and the damaged one keeps its lease."""
    clients = [await verification.create_client(f"Client {n}") for n in "ABC"]
    customers = []
    for client in clients:
        await verification.register(client, recorder.url)
        customer = await verification.create_customer(client)
        customers.append(customer)
        assert (await verification.set_status(customer["uuid"], 6)).status_code == 200
    damaged_uuid = clients[0]["clientUuid"]
    async with runtime.db.write() as session:
        await session.execute(
            update(VerificationCallback)
            .where(VerificationCallback.client_uuid == damaged_uuid)
            .values(attempts_log=5)  # not a list: appending this attempt's entry fails
        )

    stop = asyncio.Event()
    with caplog.at_level(logging.ERROR, logger="gatehouse.verification.delivery"):
        task = asyncio.create_task(run_callback_worker(runtime, stop, idle_seconds=0.05))
        try:
            for client in clients[1:]:
                await eventually(
                    lambda client=client: verification.callbacks(
                        clientUuid=client["clientUuid"], status="succeeded"
                    )
                )
            # Still running: a later callback of another client goes out as well.
            await verification.set_status(customers[1]["uuid"], 7)
            await eventually(lambda: len(recorder.app.requests) == 4)
            await eventually(
                lambda: (
                    len(
                        [
                            row
                            for row in recorder.app.requests
                            if row.json()["uuid"] == customers[1]["uuid"]
                        ]
                    )
                    == 2
                )
            )
        finally:
            stop.set()
            await asyncio.wait_for(task, 15)
    sent = sorted((r.json()["uuid"], r.json()["newStatus"]) for r in recorder.app.requests)
    assert sent == sorted(
        [
            (customers[0]["uuid"], 6),
            (customers[1]["uuid"], 6),
            (customers[1]["uuid"], 7),
            (customers[2]["uuid"], 6),
        ]
    )
    for client in clients[1:]:
        rows = await verification.callbacks(clientUuid=client["clientUuid"])
        assert all(row["status"] == "succeeded" and row["attempts"] == 1 for row in rows)
    async with runtime.db.read() as session:
        damaged = await session.scalar(
            select(VerificationCallback).where(VerificationCallback.client_uuid == damaged_uuid)
        )
    assert damaged is not None
    assert damaged.status == "delivering"
    assert damaged.attempts == 0
    assert any(
        "recording a verification callback failed" in r.getMessage()
        and getattr(r, "callback_id", None) == damaged.id
        for r in caplog.records
    )


async def test_a_2xx_whose_body_never_finishes_is_one_successful_attempt(
    verification: Verification, hostile: Hostile, worker: None
) -> None:
    """The receiver accepted (2xx) and then trickles its body: that is a success, and the
    callback is not sent again."""
    hostile.script = [
        Answer(
            b"HTTP/1.1 202 Accepted\r\nContent-Length: 1000\r\n\r\n",
            drip=(b"x",) * 40,
            interval=0.5,
        )
    ]
    client = await verification.create_client()
    await verification.register(client, hostile.url)
    customer = await verification.create_customer(client)
    await verification.set_status(customer["uuid"], 6)
    (row,) = await eventually(lambda: verification.callbacks(status="succeeded"), timeout=15)
    assert row["attempts"] == 1
    assert row["lastStatusCode"] == 202
    assert len(hostile.snapshot()) == 1


async def test_a_slow_receiver_does_not_hold_back_other_clients_callbacks(
    verification: Verification, worker: None
) -> None:
    """Client A's receiver sits on its answer; client B's callback, queued meanwhile, goes
    out while A's attempt is still unanswered."""
    release = threading.Event()
    with running_hostile(Hostile()) as slow, running_hostile(Hostile()) as quick:
        # Held until released, 6 s at most (within the 10 s total timeout).
        slow.script = [Answer(OK, hold=release, hold_max=6)]
        slow_client = await verification.create_client("Slow")
        quick_client = await verification.create_client("Quick")
        await verification.register(slow_client, slow.url)
        await verification.register(quick_client, quick.url)
        slow_customer = await verification.create_customer(slow_client)
        quick_customer = await verification.create_customer(quick_client)
        try:
            await verification.set_status(slow_customer["uuid"], 6)
            await eventually(slow.snapshot)
            await verification.set_status(quick_customer["uuid"], 6)
            await eventually(quick.snapshot)
            assert slow.snapshot()[0].answered_at is None  # A still waits for its answer
        finally:
            release.set()
        for client in (slow_client, quick_client):
            (row,) = await eventually(
                lambda client=client: verification.callbacks(
                    clientUuid=client["clientUuid"], status="succeeded"
                )
            )
            assert row["attempts"] == 1
