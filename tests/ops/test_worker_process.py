"""`gatehouse worker` as operators run it (docs/operations.md, "Worker metrics" and "Logs of
the workers"): its --metrics-port listener, its start and stop lines, one line per attempt,
and a stop that lets an attempt in flight finish."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import Delivery
from tests.conftest import TEST_SECRET_KEY
from tests.ops.support import samples, value
from tests.support.factories import TenantFixture
from tests.support.leaks import remember
from tests.support.live import free_port
from tests.support.patience import patient
from tests.support.processes import Running, clean_env, started
from tests.webhooks.conftest import create_endpoint, emit
from tests.webhooks.receiver import Received, Receiver, running_receiver

pytestmark = pytest.mark.slow

EVENTS = 5
SUCCEEDED = "gatehouse_deliveries_total"


def worker_env(database_url: str) -> dict[str, str]:
    return clean_env(
        database_url=database_url,
        secret_key=TEST_SECRET_KEY,
        webhook_allow_private_urls="true",
    )


def scrape(base: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = httpx.get(base + "/metrics", timeout=5)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return samples(response.text)


def wait_for(check: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + patient(timeout)
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen in time")


def json_lines(worker: Running) -> list[dict[str, object]]:
    return [json.loads(line) for line in worker.stderr if line.startswith("{")]


async def test_a_worker_process_delivers_and_serves_its_metrics(
    database_url: str,
    runtime: Runtime,
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    tmp_path: Path,
) -> None:
    url_marker = "urlmarker" + secrets.token_hex(8)
    remember(url_marker)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running_receiver(Receiver()) as receiver:
        endpoint = await create_endpoint(client, tenant, f"{receiver.url}/in?token={url_marker}")
        receiver.secrets = [endpoint["secret"]]
        events = [await emit(runtime, tenant.tenant_id) for _ in range(EVENTS)]
        args = ["worker", "--metrics-port", str(port)]
        with started(args, worker_env(database_url), tmp_path) as worker:
            await asyncio.to_thread(receiver.wait_for, EVENTS, 60)

            def all_counted() -> bool:
                found = scrape(base)
                return value(found, SUCCEEDED, queue="webhooks", outcome="succeeded") == EVENTS

            await asyncio.to_thread(wait_for, all_counted, 30, "counting every delivery")
            found = await asyncio.to_thread(scrape, base)
            health = await asyncio.to_thread(httpx.get, base + "/healthz")
            ready = await asyncio.to_thread(httpx.get, base + "/readyz")
            other = await asyncio.to_thread(httpx.get, base + "/v1/intakes")
        assert worker.process.returncode == 0, worker.stderr[-20:]
        received = receiver.snapshot()

    assert sorted(item.event_id or "" for item in received) == sorted(events)
    assert all(item.verified for item in received)
    assert value(found, "gatehouse_webhook_attempts_total", outcome="succeeded") == EVENTS
    assert value(found, "gatehouse_webhook_attempt_seconds_count") == EVENTS
    assert value(found, "gatehouse_webhook_attempt_seconds_sum") > 0
    assert value(found, "gatehouse_webhook_attempt_seconds_bucket", le="+Inf") == EVENTS
    for outcome in ("retry", "dead", "cancelled"):
        assert value(found, "gatehouse_deliveries_total", queue="webhooks", outcome=outcome) == 0
    # The gauges are sampled in the worker (the values themselves: test_delivery_metrics.py).
    names = {name for name, _ in found}
    assert {
        "gatehouse_queue_depth",
        "gatehouse_queue_oldest_due_age_seconds",
        "gatehouse_db_connections_in_use",
    } <= names
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "database": "ok"}
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "checks": {"database": "ok", "redis": "not configured", "migrations": "ok"},
    }
    assert other.status_code == 404

    lines = json_lines(worker)
    messages = [line["message"] for line in lines]
    started_line = next(line for line in lines if line["message"] == "worker started")
    assert started_line["metrics"] == f"127.0.0.1:{port}"
    assert "workers started" in messages
    assert "workers stopped" in messages
    assert messages.index("worker stopped") > messages.index("workers stopped")
    attempts = [line for line in lines if line["message"] == "webhook attempt"]
    assert len(attempts) == EVENTS
    assert sorted(str(line["event_id"]) for line in attempts) == sorted(events)
    deliveries = await _delivery_ids(runtime)
    for line in attempts:
        assert line["tenant_id"] == tenant.tenant_id
        assert line["endpoint_id"] == endpoint["id"]
        assert line["delivery_id"] in deliveries
        assert line["attempt"] == 1
        assert line["http_status"] == 200
        assert line["error"] is None
        assert isinstance(line["latency_ms"], float)
        assert str(line["at"]).endswith("Z")
        assert len(str(line["at"])) == len("2026-01-01T00:00:00.000Z")
    # No secret, signature or receiver URL anywhere in what the process wrote (httpx's
    # own request lines, which quote the URL, are off).
    written = "\n".join(worker.stderr)
    signatures = [part for item in received for part in _signatures(item)]
    assert endpoint["secret"] not in written
    assert [s for s in signatures if s in written] == []
    assert url_marker not in written
    assert "HTTP Request" not in written


async def _delivery_ids(runtime: Runtime) -> set[str]:
    async with runtime.db.read() as session:
        return set(await session.scalars(select(Delivery.id)))


def _signatures(item: Received) -> list[str]:
    return (
        item.headers.get("gatehouse-signature", "").split()
        + item.headers.get("webhook-signature", "").split()
    )


async def test_a_stopping_worker_lets_an_attempt_in_flight_finish(
    database_url: str,
    runtime: Runtime,
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    tmp_path: Path,
) -> None:
    """SIGTERM while the receiver takes its time: the callback worker stops at once, the
    webhook attempt still completes and is recorded as a success, sent once."""
    arrived = threading.Event()

    def slow(_item: Received) -> int:
        arrived.set()
        time.sleep(2)
        return 200

    with running_receiver(Receiver(respond=slow)) as receiver:
        endpoint = await create_endpoint(client, tenant, receiver.url + "/slow")
        receiver.secrets = [endpoint["secret"]]
        event_id = await emit(runtime, tenant.tenant_id)
        with started(["worker"], worker_env(database_url), tmp_path) as worker:
            assert await asyncio.to_thread(arrived.wait, patient(60))
            os.killpg(worker.process.pid, signal.SIGTERM)
            await asyncio.to_thread(worker.process.wait, patient(40))
        received = receiver.snapshot()

    assert worker.process.returncode == 0, worker.stderr[-20:]
    assert [item.event_id for item in received] == [event_id]
    async with runtime.db.read() as session:
        (delivery,) = (await session.scalars(select(Delivery))).all()
    assert (delivery.status, delivery.attempts, delivery.last_http_status) == ("succeeded", 1, 200)
    attempts = [line for line in json_lines(worker) if line["message"] == "webhook attempt"]
    assert [(line["http_status"], line["error"]) for line in attempts] == [(200, None)]


async def test_serve_with_two_processes_and_its_workers_shows_their_metrics(
    database_url: str,
    runtime: Runtime,
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    tmp_path: Path,
) -> None:
    """`serve --workers 2` runs the workers in both processes: /metrics, whichever process
    answers, adds up the deliveries of both (prometheus-client's multiprocess mode)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running_receiver(Receiver()) as receiver:
        endpoint = await create_endpoint(client, tenant, receiver.url + "/both")
        receiver.secrets = [endpoint["secret"]]
        events = [await emit(runtime, tenant.tenant_id) for _ in range(EVENTS)]
        args = ["serve", "--port", str(port), "--workers", "2"]
        with started(args, worker_env(database_url), tmp_path) as server:
            await asyncio.to_thread(server.wait_healthy, base, 60)
            await asyncio.to_thread(receiver.wait_for, EVENTS, 60)

            def all_counted() -> bool:
                found = scrape(base)
                return (
                    value(found, SUCCEEDED, queue="webhooks", outcome="succeeded") == EVENTS
                    # sampled every 5 s: once after the deliveries, nothing is due
                    and value(found, "gatehouse_queue_depth", queue="webhooks", state="due") == 0
                )

            await asyncio.to_thread(wait_for, all_counted, 30, "counting every delivery")
            scrapes = [await asyncio.to_thread(scrape, base) for _ in range(6)]
        received = receiver.snapshot()

    assert sorted(item.event_id or "" for item in received) == sorted(events)
    for found in scrapes:  # the same totals from either process
        assert value(found, SUCCEEDED, queue="webhooks", outcome="succeeded") == EVENTS
        assert value(found, "gatehouse_webhook_attempts_total", outcome="succeeded") == EVENTS
        assert value(found, "gatehouse_webhook_attempt_seconds_count") == EVENTS
        assert value(found, "gatehouse_queue_depth", queue="webhooks", state="due") == 0
    attempts = [
        json.loads(line)
        for line in server.stderr
        if line.startswith("{") and '"webhook attempt"' in line
    ]
    assert sorted(str(line["event_id"]) for line in attempts) == sorted(events)
