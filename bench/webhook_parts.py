"""Parts of the webhook delivery benchmark (bench/webhook_delivery.py): the receiver and
the delivery workers, each in a process of its own, and the bare aiohttp loop."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from multiprocessing.synchronize import Event as ProcessEvent
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from bench.support import free_port
from gatehouse.webhooks import rules

SECRET_KEY = "bench-secret-key-0123456789abcdef0123456789"  # noqa: S105 - a scratch key
_SPAWN = multiprocessing.get_context("spawn")


# --- the receiver: its own process, so it does not share a GIL with the senders ---------
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
        elif scope["method"] == "DELETE":
            arrivals.clear()
            body = b"ok"
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
    process = _SPAWN.Process(target=_receiver_main, args=(port,), daemon=True)
    process.start()
    url = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as session:
        for _ in range(400):
            try:
                async with session.get(url + "/stats") as response:
                    await response.read()
                break
            except aiohttp.ClientError:
                await asyncio.sleep(0.05)
        else:
            process.terminate()
            raise SystemExit("the benchmark receiver did not start")
    try:
        yield url
    finally:
        process.terminate()
        process.join(5)


async def arrivals(url: str, *, clear: bool = False) -> dict[str, float]:
    async with aiohttp.ClientSession() as session:
        async with session.get(url + "/stats") as response:
            data: dict[str, float] = orjson.loads(await response.read())
        if clear:
            async with session.delete(url + "/stats") as response:
                await response.read()
    return data


# --- the bare loop: what one Python process can post at all ---------------------------
async def bare_loop(
    url: str, secret: str, tenant_id: str, count: int, concurrency: int
) -> tuple[float, float]:
    """Deliveries/s of a plain aiohttp loop (same bodies, same signing; `concurrency`
    requests at once: an endpoint's share of a worker's slots), and its CPU time per
    delivery in µs."""
    queue: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
    for n in range(count):
        event_id = f"evt_bare{n:08d}"
        envelope = {
            "id": event_id,
            "type": "application.submitted",
            "apiVersion": "v1",
            "occurredAt": "2026-11-22T10:00:00.000Z",
            "tenantId": tenant_id,
            "idempotencyKey": event_id,
            "data": {"status": "pending", "previousStatus": None},
        }
        queue.put_nowait((event_id, orjson.dumps(envelope)))
    connector = aiohttp.TCPConnector(limit=concurrency * 2)
    async with aiohttp.ClientSession(connector=connector) as session:

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
                async with session.post(url + "/hooks", data=body, headers=headers) as response:
                    await response.read()

        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(runner() for _ in range(concurrency)))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        return count / elapsed, cpu / count * 1e6


# --- delivery workers: `gatehouse worker`'s webhook loop, one process each -------------
def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _worker_main(
    url: str, ready: ProcessEvent, go: ProcessEvent, stop: ProcessEvent, out: Any
) -> None:
    from gatehouse.runtime import Runtime
    from gatehouse.settings import Settings
    from gatehouse.webhooks.delivery import DeliveryWorker

    async def main() -> None:
        settings = Settings(
            database_url=url, secret_key=SECRET_KEY, webhook_allow_private_urls=True
        )
        runtime = Runtime.build(settings)
        ready.set()
        await asyncio.to_thread(go.wait)
        halt = asyncio.Event()
        worker = DeliveryWorker(runtime)
        cpu = time.process_time()
        task = asyncio.create_task(worker.run(halt))
        await asyncio.to_thread(stop.wait)
        halt.set()
        await task
        cpu = time.process_time() - cpu
        await runtime.close()
        out.put({"succeeded": worker.stats.succeeded, "rss_mb": _peak_rss_mb(), "cpu_s": cpu})

    asyncio.run(main())  # the event loop `gatehouse worker` runs


@dataclass
class Workers:
    go: ProcessEvent
    stop: ProcessEvent
    results: list[dict[str, float]]


@contextmanager
def worker_processes(url: str, count: int) -> Iterator[Workers]:
    """`count` worker processes, started and ready (imports done, database reached); they
    deliver once `go` is set and stop (reporting what they did) once `stop` is set."""
    go, stop = _SPAWN.Event(), _SPAWN.Event()
    out = _SPAWN.Queue()
    processes, readies = [], []
    for _ in range(count):
        ready = _SPAWN.Event()
        process = _SPAWN.Process(target=_worker_main, args=(url, ready, go, stop, out))
        process.start()
        processes.append(process)
        readies.append(ready)
    for ready in readies:
        if not ready.wait(120):
            raise SystemExit("a benchmark worker did not start")
    workers = Workers(go, stop, [])
    try:
        yield workers
    finally:
        go.set()
        stop.set()
        for _ in processes:
            workers.results.append(out.get(timeout=60))
        for process in processes:
            process.join(30)
