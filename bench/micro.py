"""In-process cost of one request, without a server, a socket or wrk.

    .venv/bin/python bench/micro.py                       # SQLite, every scenario
    .venv/bin/python bench/micro.py --database postgres --scenarios read,list
    .venv/bin/python bench/micro.py --profile read        # cProfile of one scenario

Calls the ASGI apps directly on one uvloop event loop, one request at a time,
and reports the process CPU time per request (`time.process_time`, every thread
of this process: SQLite's reader threads count) for the bare FastAPI app
(bench/bare.py) and for Gatehouse's scenarios (bench/product.py's app, with the
bench routes). What a server adds (HTTP parsing, the socket) is the same on both
sides and is not measured here, so the ratios are lower than those of `run.py`;
the point is a steady figure, a few per cent apart from run to run, for working
on Gatehouse's own cost (`run.py` is the measure of record).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/profile.py would shadow the standard library's `profile` (cProfile imports it).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cProfile  # noqa: E402
import pstats  # noqa: E402

import uvloop  # noqa: E402

from bench import run  # noqa: E402
from bench.seed import Seeded, seed  # noqa: E402

ASGI = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def _scope(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    raw_path, _, query = path.partition("?")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": raw_path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


async def call(
    app: ASGI, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes
) -> int:
    status = [0]
    sent = [False]

    async def receive() -> dict[str, Any]:
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status[0] = message["status"]

    await app(_scope(method, path, headers), receive, send)
    return status[0]


class Scenario:
    def __init__(
        self,
        name: str,
        method: str,
        paths: list[str],
        auth: str | None,
        body: str | None = None,
        expect: int = 200,
    ) -> None:
        self.name, self.method, self.paths = name, method, paths
        self.body, self.expect = body, expect
        self.headers: list[tuple[bytes, bytes]] = []
        if auth:
            self.headers.append((b"authorization", auth.encode()))
        if body:
            self.headers.append((b"content-type", b"application/json"))
        self.n = 0

    def next(self) -> tuple[str, list[tuple[bytes, bytes]], bytes]:
        self.n += 1
        path = self.paths[self.n % len(self.paths)]
        body = (self.body or "").replace("{n}", f"{secrets.token_hex(4)}{self.n}").encode()
        headers = self.headers
        if body:
            headers = [*headers, (b"content-length", str(len(body)).encode())]
        return path, headers, body


async def lifespan(app: ASGI) -> Callable[[], Awaitable[None]]:
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started = asyncio.Event()
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        return await queue.get()

    async def send(message: dict[str, Any]) -> None:
        if message["type"].startswith("lifespan.startup"):
            started.set()
        if message["type"].startswith("lifespan.shutdown"):
            done.set()

    async def run() -> None:
        await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)

    task = asyncio.create_task(run())
    await queue.put({"type": "lifespan.startup"})
    await started.wait()

    async def stop() -> None:
        await queue.put({"type": "lifespan.shutdown"})
        await asyncio.wait_for(done.wait(), 10)
        await task

    return stop


async def measure(app: ASGI, scenario: Scenario, seconds: float) -> tuple[float, int]:
    """CPU microseconds per request over `seconds` of wall time, and the request count."""
    for _ in range(50):
        path, headers, body = scenario.next()
        status = await call(app, scenario.method, path, headers, body)
        if status != scenario.expect:
            raise SystemExit(
                f"{scenario.name}: {path} answered {status}, expected {scenario.expect}"
            )
    count = 0
    cpu0 = time.process_time()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for _ in range(20):
            path, headers, body = scenario.next()
            await call(app, scenario.method, path, headers, body)
        count += 20
    return (time.process_time() - cpu0) * 1e6 / count, count


NEW_IDENTITY = '{"email": "new-{n}@bench.test"}'


def scenarios_for(seeded: Seeded) -> list[Scenario]:
    auth = f"Bearer {seeded.api_key}"
    reads = [f"/v1/applications/{a}" for a in seeded.sample_ids[:500]]
    return [
        Scenario("baseline", "GET", ["/bench/baseline"], None),
        Scenario("noop", "GET", ["/v1/bench/authenticated"], auth),
        Scenario("read", "GET", reads, auth),
        Scenario("list", "GET", ["/v1/applications?limit=100"], auth),
        Scenario("provision", "POST", ["/v1/applications"], auth, NEW_IDENTITY, 201),
        Scenario("notfound", "GET", ["/v1/nothing-here"], auth, None, 404),
    ]


async def main_async(args: argparse.Namespace, url: str, secret_key: str) -> None:
    from bench import bare, product
    from gatehouse.settings import Settings

    seeded = await seed(Settings(database_url=url, secret_key=secret_key), args.applications)
    os.environ.update(run.server_env(url, secret_key, run.CONFIGS["sqlite"], 8000))
    os.environ.pop("GATEHOUSE_REDIS_URL", None)
    if args.redis:
        os.environ["GATEHOUSE_REDIS_URL"] = run.REDIS_URL
    bare_app = bare.create_app()
    app = product.asgi_app()
    stops = [await lifespan(bare_app), await lifespan(app)]
    if args.freeze:
        gc.collect()
        gc.freeze()
    chosen = [s for s in scenarios_for(seeded) if s.name in args.scenarios.split(",")]
    hello = Scenario("bare", "GET", ["/hello"], None)
    if args.profile:
        scenario = next(s for s in scenarios_for(seeded) if s.name == args.profile)
        await measure(app, scenario, 0.5)
        profiler = cProfile.Profile()
        profiler.enable()
        await measure(app, scenario, args.seconds)
        profiler.disable()
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)
    else:
        results: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            for scenario in [hello, *chosen]:
                target = bare_app if scenario is hello else app
                us, _ = await measure(target, scenario, args.seconds)
                results.setdefault(scenario.name, []).append(us)
        bare_us = statistics.median(results["bare"])
        for name, values in results.items():
            us = statistics.median(values)
            runs = ", ".join(f"{v:.1f}" for v in values)
            print(f"{name:10s} {us:8.1f} us/request  bare/this {bare_us / us:6.1%}  (runs: {runs})")
    for stop in reversed(stops):
        await stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--redis", action="store_true", help="rate limits and epoch in Redis")
    parser.add_argument("--applications", type=int, default=3_000)
    parser.add_argument("--scenarios", default="baseline,noop,read,list,provision")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--freeze", action="store_true", help="gc.freeze() after start-up")
    parser.add_argument("--profile", help="cProfile this scenario instead")
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    secret_key = secrets.token_urlsafe(32)
    from gatehouse.storage.migrate import upgrade

    with (
        tempfile.TemporaryDirectory(prefix="gatehouse-micro-") as tmp,
        run.database(args.database, Path(tmp)) as url,
    ):
        upgrade(url)
        uvloop.run(main_async(args, url, secret_key))


if __name__ == "__main__":
    main()
