"""Worker metrics and delivery log lines, in process (docs/operations.md, "Worker metrics"
and "Logs of the workers"): outcomes by kind once recorded, attempts with their latency,
endpoints disabled by reason, queue gauges of both queues, the pool gauge, and one log line
per attempt carrying its ids and nothing secret."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import secrets
from datetime import timedelta

import httpx
from sqlalchemy import select, text, update

from gatehouse import workers
from gatehouse.logs import json_handler
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import VerificationCallback
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.verification.delivery import run_callback_worker
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.ops.support import local
from tests.support.factories import StaffFixture, TenantFixture
from tests.support.leaks import remember
from tests.support.live import serve_in_thread
from tests.verification.conftest import Recorder, Verification
from tests.webhooks.conftest import create_endpoint, emit, wait_until
from tests.webhooks.receiver import Received, Receiver, running_receiver

ATTEMPT_FIELDS = {"tenant_id", "endpoint_id", "event_id", "delivery_id", "attempt"}
CALLBACK_FIELDS = {
    "callback_id",
    "client_uuid",
    "event",
    "attempt",
    "http_status",
    "error",
    "latency_ms",
}


async def pending(runtime: Runtime) -> int:
    async with runtime.db.read() as session:
        rows = await session.scalars(select(Delivery.id).where(Delivery.status == "pending"))
        return len(rows.all())


def first_fails(item: Received) -> int:
    return 500 if item.attempt == 1 else 200


async def test_outcomes_attempts_and_disabled_endpoints_are_counted_and_logged(
    runtime: Runtime,
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    captured_logs: list[str],
) -> None:
    names = [
        ("gatehouse_deliveries_total", {"queue": "webhooks", "outcome": outcome})
        for outcome in ("succeeded", "retry", "dead", "cancelled")
    ] + [
        ("gatehouse_webhook_attempts_total", {"outcome": "succeeded"}),
        ("gatehouse_webhook_attempts_total", {"outcome": "http_error"}),
        ("gatehouse_webhook_attempt_seconds_count", {}),
        ("gatehouse_webhook_endpoints_disabled_total", {"reason": "receiver_gone"}),
    ]
    before = {name + str(labels): local(name, **labels) for name, labels in names}
    first_line = len(captured_logs)
    login_token = secrets.token_urlsafe(24)
    url_marker = "querymarker" + secrets.token_hex(8)
    remember(login_token)
    data = {"status": "pending", "loginUrl": f"http://testserver/portal/login/{login_token}"}

    with (
        running_receiver(Receiver()) as ok,
        running_receiver(Receiver(respond=lambda _item: 410)) as gone,
        running_receiver(Receiver(respond=first_fails)) as flaky,
    ):
        made = {}
        for name, receiver in (("ok", ok), ("gone", gone), ("flaky", flaky)):
            url = receiver.url + f"/hook?key={url_marker}"
            made[name] = await create_endpoint(client, tenant, url)
            receiver.secrets = [made[name]["secret"]]
        deleted = await create_endpoint(client, tenant, ok.url + "/deleted")
        events = [await emit(runtime, tenant.tenant_id, data=data) for _ in range(2)]
        assert await pending(runtime) == 8  # two events for each of four endpoints
        # Deleted after its deliveries were picked for a claim (the race the claim's retire
        # step exists for; deleting through the API cancels pending deliveries at once).
        async with runtime.db.write() as session:
            await session.execute(
                update(WebhookEndpoint)
                .where(WebhookEndpoint.id == deleted["id"])
                .values(deleted_at=runtime.now())
            )

        stop = asyncio.Event()
        worker = DeliveryWorker(runtime, poll_seconds=0.05, lease_seconds=5)
        task = asyncio.create_task(worker.run(stop))
        try:
            await wait_until(lambda: _none_pending(runtime), 20)
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)
        received = ok.snapshot() + gone.snapshot() + flaky.snapshot()

    def grew(name: str, **labels: str) -> float:
        return local(name, **labels) - before[name + str(labels)]

    # ok: 2 succeeded; flaky: 2 retries then 2 successes; gone: the first 410 kills its
    # delivery and disables the endpoint, which makes its other delivery dead unsent (by
    # the disabling, or retired at its claim); deleted: both retired as cancelled.
    assert grew("gatehouse_deliveries_total", queue="webhooks", outcome="succeeded") == 4
    assert grew("gatehouse_deliveries_total", queue="webhooks", outcome="retry") == 2
    assert grew("gatehouse_deliveries_total", queue="webhooks", outcome="cancelled") == 2
    dead = grew("gatehouse_deliveries_total", queue="webhooks", outcome="dead")
    gone_attempts = len(gone.snapshot())
    assert 1 <= dead <= 2
    assert 1 <= gone_attempts <= 2
    assert grew("gatehouse_webhook_endpoints_disabled_total", reason="receiver_gone") == 1
    attempts = 6 + gone_attempts
    assert len(received) == attempts
    assert grew("gatehouse_webhook_attempts_total", outcome="succeeded") == 4
    assert grew("gatehouse_webhook_attempts_total", outcome="http_error") == 2 + gone_attempts
    assert grew("gatehouse_webhook_attempt_seconds_count") == attempts

    lines = [json.loads(line) for line in captured_logs[first_line:]]
    attempt_lines = [line for line in lines if line["message"] == "webhook attempt"]
    assert len(attempt_lines) == attempts
    for line in attempt_lines:
        assert set(line) >= ATTEMPT_FIELDS, line
        assert line["tenant_id"] == tenant.tenant_id
        assert line["event_id"] in events
        assert line["http_status"] in (200, 410, 500)
        assert isinstance(line["latency_ms"], float)
        assert line["latency_ms"] > 0
    assert (
        sorted(
            (line["endpoint_id"], line["attempt"], line["http_status"])
            for line in attempt_lines
            if line["endpoint_id"] == made["flaky"]["id"]
        )
        == [(made["flaky"]["id"], 1, 500)] * 2 + [(made["flaky"]["id"], 2, 200)] * 2
    )
    retired = [line for line in lines if line["message"] == "webhook delivery retired unsent"]
    assert {line["endpoint_id"] for line in retired if line["outcome"] == "cancelled"} == {
        deleted["id"]
    }

    # Nothing secret in any of these lines: signing secrets, the signatures sent, the body's
    # loginUrl, the receiver URL (its query may hold a receiver's own token).
    forbidden = [endpoint["secret"] for endpoint in made.values()] + [login_token, url_marker]
    for item in received:
        forbidden += item.headers["gatehouse-signature"].split()
        forbidden += item.headers.get("webhook-signature", "").split()
    # The lines of Gatehouse's loggers (httpx's own request lines, which quote URLs, are
    # switched off by logs.configure in the service; see test_worker_process.py).
    written = "\n".join(
        line for line in captured_logs[first_line:] if '"logger":"gatehouse' in line
    )
    assert [value for value in forbidden if value in written] == []
    assert "/portal/login/" not in written
    assert "whsec_" not in written


async def _none_pending(runtime: Runtime) -> bool:
    return await pending(runtime) == 0


def test_the_redaction_filter_covers_the_fields_of_attempt_lines() -> None:
    """A delivery line whose error text quoted a secret, a token or a sign-in link (a
    receiver's answer is never logged, but the filter must hold whatever comes in)."""
    stream = io.StringIO()
    logger = logging.getLogger("gatehouse.test.redaction")
    handler = json_handler(stream)
    logger.addHandler(handler)
    secret = "whsec_" + "A1b2C3d4" * 6
    login = "http://x/portal/login/" + "t0ken" * 8
    try:
        logger.warning(
            "webhook attempt",
            extra={
                "tenant_id": "ten_1",
                "delivery_id": "dlv_1",
                "error": f"bad answer secret={secret} see {login} Bearer abc.def",
                "http_status": None,
            },
        )
    finally:
        logger.removeHandler(handler)
    line = json.loads(stream.getvalue())
    assert line["tenant_id"] == "ten_1"
    assert line["delivery_id"] == "dlv_1"
    assert secret not in line["error"]
    assert "t0ken" not in line["error"]
    assert "abc.def" not in line["error"]
    assert "[redacted]" in line["error"]


async def test_queue_gauges_of_both_queues_and_the_pool_gauge(
    runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    await create_endpoint(client, tenant, "http://127.0.0.1:9/never")
    for _ in range(3):
        await emit(runtime, tenant.tenant_id)
    verification = Verification(client, staff)
    verification_client = await verification.create_client()
    registered = await verification.register(verification_client, "http://127.0.0.1:9/callback")
    assert registered.status_code == 200, registered.text
    customer = await verification.create_customer(verification_client)
    for code in (9, 6):
        assert (await verification.set_status(customer["uuid"], code)).status_code == 200

    # Nothing sent yet, and 90 seconds later on the runtime's clock.
    start = runtime.now()
    runtime.clock = lambda: start + timedelta(seconds=90)
    async with runtime.db.write() as session:
        one = await session.scalar(select(Delivery.id).limit(1))
        await session.execute(
            update(Delivery)
            .where(Delivery.id == one)
            .values(next_attempt_at=start + timedelta(hours=1))  # a retry scheduled later
        )
        callback_ids = list(await session.scalars(select(VerificationCallback.id)))
        assert len(callback_ids) == 2
        await session.execute(  # an attempt under way: leased until later
            update(VerificationCallback)
            .where(VerificationCallback.id == callback_ids[0])
            .values(status="delivering", lease_until=start + timedelta(minutes=5))
        )
    await workers.sample_once(runtime)

    assert local("gatehouse_queue_depth", queue="webhooks", state="due") == 2
    assert local("gatehouse_queue_depth", queue="webhooks", state="waiting") == 1
    age = local("gatehouse_queue_oldest_due_age_seconds", queue="webhooks")
    assert 90 <= age < 150
    assert local("gatehouse_queue_depth", queue="verification_callbacks", state="due") == 1
    assert local("gatehouse_queue_depth", queue="verification_callbacks", state="waiting") == 1
    age = local("gatehouse_queue_oldest_due_age_seconds", queue="verification_callbacks")
    assert 90 <= age < 150

    # A lease that ended is due again, since the lease's end.
    async with runtime.db.write() as session:
        await session.execute(
            update(VerificationCallback)
            .where(VerificationCallback.id == callback_ids[0])
            .values(lease_until=start - timedelta(minutes=10))
        )
    await workers.sample_once(runtime)
    assert local("gatehouse_queue_depth", queue="verification_callbacks", state="due") == 2
    age = local("gatehouse_queue_oldest_due_age_seconds", queue="verification_callbacks")
    assert 690 <= age < 750

    # Everything finished: nothing due, age 0.
    async with runtime.db.write() as session:
        await session.execute(update(Delivery).values(status="succeeded", next_attempt_at=None))
        await session.execute(update(VerificationCallback).values(status="succeeded"))
    await workers.sample_once(runtime)
    for queue in ("webhooks", "verification_callbacks"):
        assert local("gatehouse_queue_depth", queue=queue, state="due") == 0
        assert local("gatehouse_queue_depth", queue=queue, state="waiting") == 0
        assert local("gatehouse_queue_oldest_due_age_seconds", queue=queue) == 0

    # The pool gauge counts connections checked out at the moment of sampling.
    workers.sample_pools(runtime)
    idle = local("gatehouse_db_connections_in_use", pool="write")
    async with runtime.db.write() as session:
        await session.execute(text("SELECT 1"))
        workers.sample_pools(runtime)
        assert local("gatehouse_db_connections_in_use", pool="write") == idle + 1
    workers.sample_pools(runtime)
    assert local("gatehouse_db_connections_in_use", pool="write") == idle


async def test_verification_callback_attempts_are_counted_and_logged(
    runtime: Runtime,
    client: httpx.AsyncClient,
    staff: StaffFixture,
    captured_logs: list[str],
) -> None:
    """Callbacks, like webhooks: one attempt line each with its ids, status and latency, the
    attempt histogram, outcomes once recorded (retry, dropped after the fourth failure,
    succeeded), and neither the passphrase nor the receiver's URL in any line."""
    names = [
        ("gatehouse_deliveries_total", {"queue": "verification_callbacks", "outcome": outcome})
        for outcome in ("succeeded", "retry", "dropped")
    ] + [("gatehouse_verification_callback_attempt_seconds_count", {})]
    before = {name + str(labels): local(name, **labels) for name, labels in names}

    def grew(name: str, **labels: str) -> float:
        return local(name, **labels) - before[name + str(labels)]

    first_line = len(captured_logs)
    passphrase = "callback-pass-" + secrets.token_hex(12)
    url_marker = "cbmarker" + secrets.token_hex(8)
    remember(passphrase)
    failing, answering = Recorder(status=503), Recorder(status=204)
    verification = Verification(client, staff)
    with (
        serve_in_thread(lambda: failing) as failing_base,  # type: ignore[arg-type,return-value]
        serve_in_thread(lambda: answering) as answering_base,  # type: ignore[arg-type,return-value]
    ):
        made = {}
        for name, base in (("failing", failing_base), ("answering", answering_base)):
            made[name] = await verification.create_client(name)
            url = f"{base}/callback?token={url_marker}"
            registered = await verification.register(made[name], url, passphrase=passphrase)
            assert registered.status_code == 200, registered.text
            customer = await verification.create_customer(made[name])
            assert (await verification.set_status(customer["uuid"], 6)).status_code == 200

        stop = asyncio.Event()
        task = asyncio.create_task(run_callback_worker(runtime, stop, idle_seconds=0.05))
        try:
            await wait_until(lambda: _callbacks_finished(runtime), 20)
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)

    # One attempt then three retries for the failing receiver (backoff scaled down by the
    # suite's settings), one for the answering one.
    assert len(failing.requests) == 4
    assert len(answering.requests) == 1
    assert grew("gatehouse_verification_callback_attempt_seconds_count") == 5
    assert grew("gatehouse_deliveries_total", queue="verification_callbacks", outcome="retry") == 3
    dropped = grew("gatehouse_deliveries_total", queue="verification_callbacks", outcome="dropped")
    assert dropped == 1
    succeeded = grew(
        "gatehouse_deliveries_total", queue="verification_callbacks", outcome="succeeded"
    )
    assert succeeded == 1

    lines = [json.loads(line) for line in captured_logs[first_line:]]
    attempts = [line for line in lines if line["message"] == "verification callback attempt"]
    assert len(attempts) == 5
    for line in attempts:
        assert set(line) >= CALLBACK_FIELDS, line
        assert str(line["callback_id"]).startswith("vcb_"), line
        assert line["event"] == "customer_status_changed"
        assert isinstance(line["latency_ms"], float)
        assert str(line["at"]).endswith("Z")
    failing_uuid, answering_uuid = made["failing"]["clientUuid"], made["answering"]["clientUuid"]
    assert sorted(
        (line["attempt"], line["http_status"])
        for line in attempts
        if line["client_uuid"] == failing_uuid
    ) == [(1, 503), (2, 503), (3, 503), (4, 503)]
    assert [
        (line["attempt"], line["http_status"], line["error"])
        for line in attempts
        if line["client_uuid"] == answering_uuid
    ] == [(1, 204, None)]
    (drop,) = [line for line in lines if line["message"] == "verification callback dropped"]
    assert drop["level"] == "warning"
    assert drop["client_uuid"] == failing_uuid
    assert drop["attempt"] == 4

    written = "\n".join(
        line for line in captured_logs[first_line:] if '"logger":"gatehouse' in line
    )
    forbidden = [passphrase, url_marker, made["failing"]["clientSecret"]]
    forbidden.append(made["answering"]["clientSecret"])
    assert [value for value in forbidden if value in written] == []
    assert "/callback?" not in written


async def _callbacks_finished(runtime: Runtime) -> bool:
    async with runtime.db.read() as session:
        rows = await session.scalars(
            select(VerificationCallback.id).where(
                VerificationCallback.status.in_(("pending", "delivering"))
            )
        )
        return not rows.all()
