"""Webhook delivery benchmark.

    .venv/bin/python bench/webhook_delivery.py              # SQLite and PostgreSQL
    .venv/bin/python bench/webhook_delivery.py --events 500 --no-postgres

Prints, per database:
- deliveries/s of one delivery worker (`DeliveryWorker`, in this process) to
  a fast local receiver (a bare ASGI app under uvicorn, in its own process),
  beside the rate of a bare async httpx loop posting the same signed bodies
  from this process with the same concurrency: the Python limit. Target:
  the worker reaches at least 50 % of the bare loop.
- commit-to-receiver latency p50/p99: events published one by one while the
  worker idles, from the commit of the event's transaction to its arrival at
  the receiver. Target: p99 <= 100 ms on PostgreSQL.

Environment: GATEHOUSE_BENCH_POSTGRES_URL (an admin DSN, default
postgresql://postgres@127.0.0.1:5432/postgres; a scratch database is created
and dropped).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, this folder comes first on sys.path, where bench/queue.py and
# bench/profile.py would shadow the standard library's modules of those names.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
for _path in (str(ROOT / "src"), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import multiprocessing  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import AsyncIterator  # noqa: E402
from contextlib import asynccontextmanager  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402
import orjson  # noqa: E402

from bench.support import free_port, percentile, scratch_postgres  # noqa: E402
from gatehouse.accounts.service import create_tenant  # noqa: E402
from gatehouse.audit.context import WriteContext  # noqa: E402
from gatehouse.domain.principals import SCOPE_WEBHOOKS, TenantPrincipal  # noqa: E402
from gatehouse.runtime import Runtime  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402
from gatehouse.storage.migrate import upgrade_async  # noqa: E402
from gatehouse.webhooks import rules  # noqa: E402
from gatehouse.webhooks import service as endpoints  # noqa: E402
from gatehouse.webhooks.delivery import DEFAULT_CONCURRENCY, DeliveryWorker  # noqa: E402
from gatehouse.webhooks.outbox import publish  # noqa: E402

CONCURRENCY = DEFAULT_CONCURRENCY  # the bare loop posts with the worker's concurrency


# --- the receiver: its own process, so it does not share this process's GIL ----------
def _receiver_main(port: int) -> None:
    import uvicorn

    arrivals: dict[str, float] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        if scope["method"] == "GET":
            body = orjson.dumps(arrivals)
        else:
            for name, value in scope["headers"]:
                if name == b"gatehouse-event-id":
                    arrivals.setdefault(value.decode(), time.time())
            body = b"ok"
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        http="httptools",
        loop="uvloop",
        lifespan="off",
        backlog=4096,
    )


@asynccontextmanager
async def receiver() -> AsyncIterator[str]:
    port = free_port()
    process = multiprocessing.get_context("spawn").Process(
        target=_receiver_main, args=(port,), daemon=True
    )
    process.start()
    url = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient() as client:
        for _ in range(400):
            try:
                await client.get(url + "/stats")
                break
            except httpx.HTTPError:
                await asyncio.sleep(0.05)
        else:
            process.terminate()
            raise SystemExit("the benchmark receiver did not start")
    try:
        yield url
    finally:
        process.terminate()
        process.join(5)


async def arrivals(url: str) -> dict[str, float]:
    async with httpx.AsyncClient(timeout=30) as client:
        data: dict[str, float] = (await client.get(url + "/stats")).json()
        return data


# --- databases ---------------------------------------------------------------------
@asynccontextmanager
async def database(kind: str) -> AsyncIterator[str]:
    """A migrated scratch database: SQLite in a temporary folder, or PostgreSQL."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{folder}/bench.db"
            await upgrade_async(url)
            yield url
        return
    async with scratch_postgres("gh_bench_webhooks") as url:
        await upgrade_async(url)
        yield url


async def setup(url: str, receiver_url: str) -> tuple[Runtime, str, str]:
    settings = Settings(
        database_url=url,
        secret_key="bench-secret-key-0123456789abcdef0123456789",
        webhook_allow_private_urls=True,
    )
    runtime = Runtime.build(settings)
    tenant = await create_tenant(runtime, "Bench")
    tenant_id = str(tenant["tenantId"])
    principal = TenantPrincipal(tenant_id, "bench", frozenset({SCOPE_WEBHOOKS}), "active")
    async with runtime.db.write() as session:
        created = await endpoints.create_endpoint(
            session,
            runtime,
            WriteContext.of(principal, None, runtime.now()),
            principal,
            endpoints.NewEndpoint(url=receiver_url + "/hooks", events=["*"], description=""),
        )
    return runtime, tenant_id, str(created["secret"])


async def publish_many(runtime: Runtime, tenant_id: str, count: int, prefix: str) -> list[str]:
    ids = []
    for start in range(0, count, 200):
        async with runtime.db.write() as session:
            for n in range(start, min(count, start + 200)):
                event = await publish(
                    session,
                    tenant_id=tenant_id,
                    event_type="application.submitted",
                    occurred_at=runtime.now(),
                    data={"status": "pending", "previousStatus": None, "bench": f"{prefix}{n}"},
                )
                ids.append(event.id)
    return ids


# --- measurements ------------------------------------------------------------------------
async def bare_loop(url: str, secret: str, tenant_id: str, count: int) -> float:
    """Deliveries/s of a plain httpx loop: same bodies, same signing, same concurrency."""
    bodies = []
    for n in range(count):
        event_id = f"evt_bare{n:08d}"
        bodies.append(
            (
                event_id,
                orjson.dumps(
                    {
                        "id": event_id,
                        "type": "application.submitted",
                        "apiVersion": "v1",
                        "occurredAt": "2026-11-22T10:00:00.000Z",
                        "tenantId": tenant_id,
                        "idempotencyKey": event_id,
                        "data": {"status": "pending", "previousStatus": None},
                    }
                ),
            )
        )
    queue: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
    for item in bodies:
        queue.put_nowait(item)
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
    async with httpx.AsyncClient(limits=limits, timeout=10) as client:

        async def runner() -> None:
            while not queue.empty():
                event_id, body = queue.get_nowait()
                headers = rules.delivery_headers(
                    event_id=event_id,
                    event_type="application.submitted",
                    timestamp=int(time.time()),
                    attempt=1,
                    body=body,
                    active_secrets=[secret],
                )
                response = await client.post(url + "/hooks", content=body, headers=headers)
                await response.aread()

        started = time.perf_counter()
        await asyncio.gather(*(runner() for _ in range(CONCURRENCY)))
        return count / (time.perf_counter() - started)


async def worker_throughput(
    runtime: Runtime, tenant_id: str, receiver_url: str, count: int
) -> float:
    ids = set(await publish_many(runtime, tenant_id, count, "tp"))
    stop = asyncio.Event()
    worker = DeliveryWorker(runtime, concurrency=CONCURRENCY)
    started = time.perf_counter()
    task = asyncio.create_task(worker.run(stop))
    while worker.stats.succeeded < count:
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - started
    stop.set()
    await task
    seen = await arrivals(receiver_url)
    missing = ids - set(seen)
    if missing:
        raise SystemExit(f"{len(missing)} events never reached the receiver")
    return count / elapsed


async def latency(runtime: Runtime, tenant_id: str, receiver_url: str, count: int) -> list[float]:
    stop = asyncio.Event()
    worker = DeliveryWorker(runtime, concurrency=CONCURRENCY)
    task = asyncio.create_task(worker.run(stop))
    await asyncio.sleep(0.5)  # worker idle, LISTEN connected
    committed: dict[str, float] = {}
    for n in range(count):
        async with runtime.db.write() as session:
            event = await publish(
                session,
                tenant_id=tenant_id,
                event_type="application.submitted",
                occurred_at=runtime.now(),
                data={"status": "pending", "previousStatus": None, "bench": f"lat{n}"},
            )
        committed[event.id] = time.time()
        await asyncio.sleep(0.02)
    deadline = time.monotonic() + 30
    while worker.stats.succeeded < count and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    stop.set()
    await task
    seen = await arrivals(receiver_url)
    return sorted((seen[e] - t) * 1000 for e, t in committed.items() if e in seen)


async def run(kind: str, events: int, latency_events: int) -> dict[str, float]:
    async with database(kind) as url, receiver() as receiver_url:
        runtime, tenant_id, secret = await setup(url, receiver_url)
        try:
            bare = await bare_loop(receiver_url, secret, tenant_id, events)
            ours = await worker_throughput(runtime, tenant_id, receiver_url, events)
            lat = await latency(runtime, tenant_id, receiver_url, latency_events)
        finally:
            await runtime.close()
    return {
        "bare": bare,
        "worker": ours,
        "ratio": ours / bare,
        "p50": percentile(lat, 0.5),
        "p99": percentile(lat, 0.99),
        "samples": float(len(lat)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--latency-events", type=int, default=200)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()
    kinds = [
        k for k, off in (("sqlite", args.no_sqlite), ("postgresql", args.no_postgres)) if not off
    ]
    print(
        f"{'database':<11} {'worker/s':>9} {'bare/s':>9} {'ratio':>6} {'p50 ms':>7} {'p99 ms':>7}"
    )
    results = {}
    for kind in kinds:
        r = asyncio.run(run(kind, args.events, args.latency_events))
        results[kind] = r
        print(
            f"{kind:<11} {r['worker']:>9.0f} {r['bare']:>9.0f} {r['ratio']:>6.2f} "
            f"{r['p50']:>7.1f} {r['p99']:>7.1f}"
        )
    for kind, r in results.items():
        verdict = "ok" if r["ratio"] >= 0.5 else "BELOW TARGET"
        print(f"target {kind}: worker >= 50% of the bare loop: {verdict}")
    if "postgresql" in results:
        p99 = results["postgresql"]["p99"]
        print(f"target postgresql: p99 <= 100 ms: {'ok' if p99 <= 100 else 'BELOW TARGET'}")


if __name__ == "__main__":
    main()
