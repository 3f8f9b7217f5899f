"""Webhook delivery benchmark.

    .venv/bin/python bench/webhook_delivery.py              # SQLite and PostgreSQL
    .venv/bin/python bench/webhook_delivery.py --events 5000 --no-sqlite

Prints, per database, against a fast local receiver (a bare ASGI app under uvicorn, in
its own process):
- `bare/s`: a bare aiohttp loop in this process posting the same signed ~1 KB bodies
  with an endpoint's share of a worker's slots in flight: what one Python process can
  post at all, measured in the same run;
- `1 worker/s`, `2 workers/s`: delivery workers (`DeliveryWorker`, the loop of
  `gatehouse worker`, each in its own process) working off a backlog of `--events`
  deliveries, from the moment they are told to go to the last success recorded;
- commit-to-receiver latency p50/p99 with one worker while events are published at
  half of the one-worker rate (small transactions every 10 ms);
- the peak RSS of each worker process, and the CPU time per delivery of the bare loop
  and of a worker process (what the machine's load does not change much; the database
  server's CPU is not in it).

Targets: one worker >= 0.40 of bare on PostgreSQL (>= 0.25 on SQLite), two workers
>= 1.6 x one where cores allow, p99 <= 50 ms at half load, RSS <= 150 MB per worker.

Environment: GATEHOUSE_BENCH_POSTGRES_URL (an admin DSN, default
postgresql://postgres@127.0.0.1:5432/postgres; a scratch database is created and
dropped).
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
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import AsyncIterator  # noqa: E402
from contextlib import asynccontextmanager  # noqa: E402

from sqlalchemy import func, select, text  # noqa: E402

from bench.support import percentile, scratch_postgres  # noqa: E402
from bench.webhook_parts import (  # noqa: E402
    SECRET_KEY,
    arrivals,
    bare_loop,
    receiver,
    worker_processes,
)
from gatehouse.accounts.service import create_tenant  # noqa: E402
from gatehouse.audit.context import WriteContext  # noqa: E402
from gatehouse.domain.principals import SCOPE_WEBHOOKS, TenantPrincipal  # noqa: E402
from gatehouse.domain.webhooks import DeliveryStatus  # noqa: E402
from gatehouse.runtime import Runtime  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402
from gatehouse.storage.migrate import upgrade_async  # noqa: E402
from gatehouse.storage.tables.webhooks import Delivery  # noqa: E402
from gatehouse.webhooks import service as endpoints  # noqa: E402
from gatehouse.webhooks.delivery import DEFAULT_CONCURRENCY  # noqa: E402
from gatehouse.webhooks.delivery.fair import Shares  # noqa: E402
from gatehouse.webhooks.outbox import publish  # noqa: E402

# The bare loop keeps as many requests in flight as a worker may send to one endpoint.
CONCURRENCY = Shares.of(DEFAULT_CONCURRENCY).per_endpoint


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
    settings = Settings(database_url=url, secret_key=SECRET_KEY, webhook_allow_private_urls=True)
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


async def publish_batch(runtime: Runtime, tenant_id: str, count: int, prefix: str) -> list[str]:
    ids = []
    async with runtime.db.write() as session:
        for n in range(count):
            event = await publish(
                session,
                tenant_id=tenant_id,
                event_type="application.submitted",
                occurred_at=runtime.now(),
                data={"status": "pending", "previousStatus": None, "bench": f"{prefix}{n}"},
            )
            ids.append(event.id)
    return ids


async def analyze(runtime: Runtime) -> None:
    """PostgreSQL: table statistics for the backlog just written, as autovacuum would
    gather them within its minute; without them the planner takes a few thousand due rows
    for two and sorts them all on every claim."""
    if not runtime.db.is_sqlite:
        async with runtime.db.write() as session:
            await session.execute(text("ANALYZE webhook_deliveries"))


async def pending(runtime: Runtime) -> int:
    async with runtime.db.read() as session:
        count = await session.scalar(
            select(func.count()).where(Delivery.status == DeliveryStatus.PENDING)
        )
    return int(count or 0)


async def throughput(
    runtime: Runtime, tenant_id: str, url: str, workers: int, count: int
) -> tuple[float, list[float], float]:
    """Deliveries/s of `workers` worker processes working off a backlog of `count`, their
    peak RSS (MB) and their CPU time per delivery (µs, all workers together)."""
    for start in range(0, count, 500):
        await publish_batch(runtime, tenant_id, min(500, count - start), f"tp{workers}-{start}-")
    await analyze(runtime)
    with worker_processes(url, workers) as running:
        started = time.perf_counter()
        running.go.set()
        while await pending(runtime) > 0:
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - started
    rss = [r["rss_mb"] for r in running.results]
    cpu = sum(r["cpu_s"] for r in running.results) / count * 1e6
    return count / elapsed, rss, cpu


async def latency(
    runtime: Runtime, tenant_id: str, url: str, receiver_url: str, rate: float, seconds: float
) -> list[float]:
    """Commit-to-receiver latencies (ms) with one worker, publishing `rate` events/s."""
    await arrivals(receiver_url, clear=True)
    committed: dict[str, float] = {}
    with worker_processes(url, 1) as running:
        running.go.set()
        await asyncio.sleep(1.0)  # the worker idle, LISTEN connected
        tick, owed, started = 0.01, 0.0, time.perf_counter()
        while time.perf_counter() - started < seconds:
            owed += rate * tick
            batch = int(owed)
            owed -= batch
            if batch:
                for event_id in await publish_batch(runtime, tenant_id, batch, "lat"):
                    committed[event_id] = time.time()
            await asyncio.sleep(tick)
        deadline = time.monotonic() + 30
        while await pending(runtime) > 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    seen = await arrivals(receiver_url)
    return sorted((seen[e] - t) * 1000 for e, t in committed.items() if e in seen)


async def run(kind: str, events: int, seconds: float, two: bool) -> dict[str, float]:
    async with database(kind) as url, receiver() as receiver_url:
        runtime, tenant_id, secret = await setup(url, receiver_url)
        try:
            bare, bare_cpu = await bare_loop(receiver_url, secret, tenant_id, events, CONCURRENCY)
            one, rss_one, cpu = await throughput(runtime, tenant_id, url, 1, events)
            result = {"bare": bare, "one": one, "ratio": one / bare, "rss": max(rss_one)}
            result.update(bare_cpu=bare_cpu, cpu=cpu)
            if two:
                both, rss_two, _cpu = await throughput(runtime, tenant_id, url, 2, events)
                result.update(two=both, scale=both / one, rss=max(rss_one + rss_two))
            lat = await latency(runtime, tenant_id, url, receiver_url, one / 2, seconds)
            result.update(p50=percentile(lat, 0.5), p99=percentile(lat, 0.99), samples=len(lat))
        finally:
            await runtime.close()
    return result


def report(results: dict[str, dict[str, float]]) -> None:
    print(
        f"{'database':<11} {'bare/s':>7} {'1 worker/s':>10} {'ratio':>6} {'2 workers/s':>11} "
        f"{'x one':>6} {'p50 ms':>7} {'p99 ms':>7} {'RSS MB':>7}"
    )
    for kind, r in results.items():
        two = f"{r['two']:>11.0f} {r['scale']:>6.2f}" if "two" in r else f"{'-':>11} {'-':>6}"
        print(
            f"{kind:<11} {r['bare']:>7.0f} {r['one']:>10.0f} {r['ratio']:>6.2f} {two} "
            f"{r['p50']:>7.1f} {r['p99']:>7.1f} {r['rss']:>7.0f}"
        )
    print("CPU per delivery (this process's share of the work, not the database server's):")
    for kind, r in results.items():
        print(
            f"  {kind}: bare loop {r['bare_cpu']:.0f} µs, worker {r['cpu']:.0f} µs "
            f"(bare / worker = {r['bare_cpu'] / r['cpu']:.2f})"
        )
    for kind, r in results.items():
        floor = 0.40 if kind == "postgresql" else 0.25
        checks = [(f"one worker >= {floor:.2f} of bare", r["ratio"] >= floor)]
        if "scale" in r:
            checks.append(("two workers >= 1.6 x one", r["scale"] >= 1.6))
        checks += [
            ("p99 <= 50 ms at half load", r["p99"] <= 50),
            ("RSS <= 150 MB", r["rss"] <= 150),
        ]
        for name, ok in checks:
            print(f"target {kind}: {name}: {'ok' if ok else 'MISSED'}")
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"load average at the end: {load} ({os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--latency-seconds", type=float, default=10.0)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--no-two", action="store_true", help="skip the two-worker run")
    args = parser.parse_args()
    kinds = [
        k for k, off in (("sqlite", args.no_sqlite), ("postgresql", args.no_postgres)) if not off
    ]
    print(f"load average at the start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    results = {}
    for kind in kinds:
        results[kind] = asyncio.run(run(kind, args.events, args.latency_seconds, not args.no_two))
    report(results)


if __name__ == "__main__":
    main()
