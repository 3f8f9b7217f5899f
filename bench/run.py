"""Benchmarks of the tenant API (issue 8).

    .venv/bin/python bench/run.py            # full run (about 10 minutes)
    .venv/bin/python bench/run.py --quick    # smoke run (under a minute)

Starts Gatehouse as a separate process (bench/server.py: the product app,
served by uvicorn with the options of `gatehouse serve --no-worker`, plus a
bench-only baseline route) on SQLite, on PostgreSQL, and on PostgreSQL with
`--workers 2` and Redis; seeds a tenant with 100,000+ applications by bulk
INSERTs; drives every scenario with wrk; and prints one table: requests/s,
p50, p99, the ratio to the baseline measured in the same server, the server's
CPU per request and its peak RSS. Then it checks the targets of issue 8.

Environment: GATEHOUSE_BENCH_POSTGRES_URL (an admin DSN, default
postgresql://postgres@127.0.0.1:5432/postgres; a scratch database is created
and dropped), GATEHOUSE_BENCH_REDIS_URL (default redis://127.0.0.1:6379/13).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import httpx  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from bench import procstats, scenarios  # noqa: E402
from bench.loadgen import WrkResult, run_wrk  # noqa: E402
from bench.seed import Seeded, seed  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402
from gatehouse.storage.migrate import upgrade  # noqa: E402

POSTGRES_ADMIN = os.environ.get(
    "GATEHOUSE_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("GATEHOUSE_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
UNLIMITED = "1000000000"


@dataclass(frozen=True)
class Plan:
    applications: int
    depth: int
    seconds: float
    warmup: float
    connections: int


FULL = Plan(applications=101_000, depth=100_000, seconds=10, warmup=2, connections=16)
QUICK = Plan(applications=3_000, depth=2_000, seconds=1, warmup=1, connections=8)


@dataclass(frozen=True)
class Config:
    name: str
    database: str  # "sqlite" or "postgres"
    workers: int
    redis: bool


CONFIGS = {
    "sqlite": Config("SQLite, 1 process", "sqlite", 1, False),
    "pg": Config("PostgreSQL, 1 process", "postgres", 1, False),
    "pg2": Config("PostgreSQL, 2 processes + Redis", "postgres", 2, True),
}


@dataclass
class Row:
    config: str
    scenario: str
    result: WrkResult | None
    cpu_ms: float | None = None
    note: str = ""


@dataclass
class ConfigReport:
    config: Config
    rows: list[Row] = field(default_factory=list)
    baseline_rps: float = 0.0
    peak_rss_mb: float = 0.0
    total_rss_mb: float = 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- databases ---------------------------------------------------------------------------


@contextmanager
def database(kind: str, workdir: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{workdir / 'bench.db'}"
        return
    name = f"gatehouse_bench_{os.getpid()}_{secrets.token_hex(3)}"
    admin = make_url(POSTGRES_ADMIN).set(drivername="postgresql")

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(admin.render_as_string(hide_password=False))
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def server_env(database_url: str, secret_key: str, config: Config, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
    # Byte-code cached outside the tree, so that server processes start fast.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "gatehouse-bench-pycache"),
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "src")]),
        GATEHOUSE_DATABASE_URL=database_url,
        GATEHOUSE_SECRET_KEY=secret_key,
        GATEHOUSE_PUBLIC_URL=f"http://127.0.0.1:{port}",
        GATEHOUSE_RATE_LIMIT_PER_KEY=UNLIMITED,
        GATEHOUSE_RATE_LIMIT_PER_IP=UNLIMITED,
        GATEHOUSE_LOG_LEVEL="WARNING",
        GATEHOUSE_BENCH_BASELINE="1",
    )
    if config.redis:
        env["GATEHOUSE_REDIS_URL"] = REDIS_URL
    return env


@contextmanager
def server(env: dict[str, str], port: int, workers: int, workdir: Path) -> Iterator[int]:
    """Start bench/server.py as its own process; yield its pid once /healthz answers."""
    log = (workdir / f"server-{port}.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "bench" / "server.py"),
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        env=env,
        cwd=workdir,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited; see {log.name}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start; see {log.name}")
            time.sleep(0.2)
        _settle(process.pid, deadline)
        yield process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _settle(pid: int, deadline: float) -> None:
    """Wait until the server's processes stop burning CPU (every worker has started)."""
    before = procstats.cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = procstats.cpu_seconds(pid)
        if now - before < 0.1:
            return
        before = now


# --- running ------------------------------------------------------------------------------


def measure(
    base: str, pid: int, scenario: scenarios.Scenario, plan: Plan
) -> tuple[WrkResult, float]:
    nonce = secrets.token_hex(4)
    if plan.warmup:
        run_wrk(
            base,
            scenario.load,
            seconds=plan.warmup,
            connections=plan.connections,
            threads=1,
            nonce=nonce + "w",
        )
    cpu_before = procstats.cpu_seconds(pid)
    result = run_wrk(
        base,
        scenario.load,
        seconds=plan.seconds,
        connections=plan.connections,
        threads=1,
        nonce=nonce,
    )
    cpu = procstats.cpu_seconds(pid) - cpu_before
    return result, (cpu * 1000 / result.requests if result.requests else 0.0)


def run_config(
    config: Config,
    database_url: str,
    secret_key: str,
    seeded: Seeded,
    plan: Plan,
    workdir: Path,
    cursors: dict[str, str | None],
) -> ConfigReport:
    report = ConfigReport(config)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = server_env(database_url, secret_key, config, port)
    print(f"# {config.name}: serving on {base}", file=sys.stderr, flush=True)
    with server(env, port, config.workers, workdir) as pid:
        if database_url not in cursors:
            print(f"#   walking the list to depth {plan.depth:,}", file=sys.stderr, flush=True)
            cursors[database_url] = scenarios.deep_cursor(base, seeded, plan.depth)
        planned = scenarios.build(seeded, cursors[database_url], plan.depth)
        baselines: list[float] = []
        for scenario in [*planned, planned[0]]:  # the baseline again at the end
            problem = scenarios.check(base, scenario, secrets.token_hex(4))
            if problem is not None:
                report.rows.append(Row(config.name, scenario.name, None, note=problem))
                continue
            print(f"#   {scenario.name}", file=sys.stderr, flush=True)
            result, cpu_ms = measure(base, pid, scenario, plan)
            if scenario.name == scenarios.BASELINE:
                baselines.append(result.rps)
                if len(baselines) > 1:
                    continue
            report.rows.append(Row(config.name, scenario.name, result, cpu_ms))
        if baselines:
            report.baseline_rps = sum(baselines) / len(baselines)
        memory = procstats.peak_memory(pid)
        report.peak_rss_mb, report.total_rss_mb = memory.peak_rss_mb, memory.total_peak_rss_mb
    return report


# --- output -------------------------------------------------------------------------------


def table(reports: list[ConfigReport]) -> str:
    lines = [
        "| server | scenario | req/s | p50 ms | p99 ms | vs baseline | CPU ms/req | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for report in reports:
        for row in report.rows:
            if row.result is None:
                lines.append(f"| {row.config} | {row.scenario} | - | - | - | - | - | {row.note} |")
                continue
            r = row.result
            ratio = r.rps / report.baseline_rps if report.baseline_rps else 0.0
            lines.append(
                f"| {row.config} | {row.scenario} | {r.rps:,.0f} | {r.p50_ms:.2f} | "
                f"{r.p99_ms:.2f} | {ratio:.0%} | {row.cpu_ms or 0:.2f} | {r.errors} |"
            )
        lines.append(
            f"| {report.config.name} | peak RSS | {report.peak_rss_mb:.0f} MB per process, "
            f"{report.total_rss_mb:.0f} MB in all | | | | | |"
        )
    return "\n".join(lines)


def targets(reports: list[ConfigReport], depth: int) -> list[str]:
    """The targets of issue 8, each with its figure and PASS or MISS."""
    out: list[str] = []

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "MISS"

    for report in reports:
        rows = {r.scenario: r.result for r in report.rows if r.result is not None}
        base = report.baseline_rps
        name = report.config.name
        single = report.config.workers == 1
        read = rows.get(scenarios.READ)
        if single and read and base:
            need = 0.4 if report.config.database == "postgres" else 0.3
            out.append(
                f"{verdict(read.rps / base >= need)} {name}: read {read.rps / base:.0%} "
                f"of baseline (target {need:.0%})"
            )
        new = rows.get(scenarios.PROVISION_NEW)
        if single and new and base and report.config.database == "postgres":
            out.append(
                f"{verdict(new.rps / base >= 0.2)} {name}: provisioning "
                f"{new.rps / base:.0%} of baseline (target 20%)"
            )
        first = rows.get(scenarios.LIST_FIRST)
        deep = rows.get(f"{scenarios.LIST_DEEP} {depth:,}")
        if first and deep:
            out.append(
                f"{verdict(deep.p50_ms <= 1.5 * first.p50_ms)} {name}: list p50 at depth "
                f"{deep.p50_ms:.2f} ms vs first page {first.p50_ms:.2f} ms (target 1.5x)"
            )
        worst = max(
            rows.items(), key=lambda kv: kv[1].p99_ms / max(kv[1].p50_ms, 1e-9), default=None
        )
        if worst:
            ratio = worst[1].p99_ms / max(worst[1].p50_ms, 1e-9)
            out.append(
                f"{verdict(ratio <= 10)} {name}: worst p99/p50 {ratio:.1f} ({worst[0]}) (target 10)"
            )
        out.append(
            f"{verdict(report.peak_rss_mb <= 250)} {name}: peak RSS "
            f"{report.peak_rss_mb:.0f} MB per process (target 250 MB)"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument(
        "--configs",
        default="sqlite,pg,pg2",
        help="comma-separated subset of: " + ", ".join(CONFIGS),
    )
    parser.add_argument("--seconds", type=float, help="measured seconds per scenario")
    parser.add_argument("--connections", type=int, help="wrk connections")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    if args.seconds or args.connections:
        plan = Plan(
            plan.applications,
            plan.depth,
            args.seconds or plan.seconds,
            plan.warmup,
            args.connections or plan.connections,
        )
    chosen = [CONFIGS[name.strip()] for name in args.configs.split(",") if name.strip()]
    started = datetime.now(UTC)
    load_before = procstats.load_average()
    reports: list[ConfigReport] = []
    secret_key = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="gatehouse-bench-") as tmp:
        workdir = Path(tmp)
        cursors: dict[str, str | None] = {}
        for kind in ("sqlite", "postgres"):
            configs = [c for c in chosen if c.database == kind]
            if not configs:
                continue
            with database(kind, workdir) as url:
                print(
                    f"# {kind}: migrating and seeding {plan.applications:,} applications",
                    file=sys.stderr,
                    flush=True,
                )
                upgrade(url)
                t0 = time.monotonic()
                seeded = asyncio.run(
                    seed(Settings(database_url=url, secret_key=secret_key), plan.applications)
                )
                print(f"#   seeded in {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
                for config in configs:
                    try:
                        reports.append(
                            run_config(config, url, secret_key, seeded, plan, workdir, cursors)
                        )
                    except RuntimeError as exc:
                        print(f"# {config.name} failed: {exc}", file=sys.stderr, flush=True)
                        failed = ConfigReport(config)
                        failed.rows.append(Row(config.name, "all", None, note=str(exc)))
                        reports.append(failed)
    print(
        f"Gatehouse benchmark, {started:%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"wrk 1 thread x {plan.connections} connections, {plan.seconds:g} s per scenario; "
        f"{plan.applications:,} applications; load average before {load_before}, "
        f"after {procstats.load_average()}"
    )
    print()
    print(table(reports))
    print()
    for line in targets(reports, plan.depth):
        print(line)


if __name__ == "__main__":
    main()
