"""Benchmarks of the tenant API against its own stack and against a bare FastAPI app.

    .venv/bin/python bench/run.py                    # full run, uvicorn (15 to 20 minutes)
    .venv/bin/python bench/run.py --quick            # smoke run (about 2 minutes)
    .venv/bin/python bench/run.py --quick --server both --rounds 3   # uvicorn and granian

For each configuration (SQLite; PostgreSQL; PostgreSQL with `--workers 2` and
Redis) and each chosen server (uvicorn, the product's; granian, for comparison)
it starts two servers as separate processes with the same server, options and
number of processes (bench/server.py): Gatehouse (bench/product.py: the product's
own factory plus bench-only routes) and the bare FastAPI app (bench/bare.py: one
"hello" route, no Gatehouse code). It seeds a tenant with 100,000+ applications
by bulk INSERTs and drives every scenario with wrk.

A round measures the bare app, the same-stack baseline (a trivial route through
Gatehouse's edge), every scenario, the baseline again and the bare app again.
Each scenario's ratios are taken against the references of its own round (the
mean of their two samples), so a slow minute of a shared machine moves both
sides; with `--rounds N` every figure printed is the median of the N rounds.
Then it prints the targets (PASS/MISS), the uvicorn/granian comparison and what
each server was seen to preserve (headers, lifespan, workers, graceful stop).

Environment: GATEHOUSE_BENCH_POSTGRES_URL (an admin DSN, default
postgresql://postgres@127.0.0.1:5432/postgres; a scratch database is created
and dropped), GATEHOUSE_BENCH_REDIS_URL (default redis://127.0.0.1:6379/13).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import platform
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this folder comes first on sys.path, where bench/queue.py and
# bench/profile.py would shadow the standard library's modules of those names.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import httpx  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from bench import procstats, scenarios  # noqa: E402
from bench.bare import HELLO_PATH  # noqa: E402
from bench.loadgen import Load, WrkResult, run_wrk, wrk_path  # noqa: E402
from bench.seed import Seeded, seed  # noqa: E402
from bench.server import AUTHENTICATED_PATH, BASELINE_PATH, PID_PATH, SLOW_PATH  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402
from gatehouse.storage.migrate import upgrade  # noqa: E402

POSTGRES_ADMIN = os.environ.get(
    "GATEHOUSE_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("GATEHOUSE_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
UNLIMITED = "1000000000"
SERVER_KINDS = ("uvicorn", "granian")
BARE = "bare FastAPI app (GET /hello)"
BARE_SCENARIO = scenarios.Scenario(BARE, Load("GET", [HELLO_PATH]), 200)
LIFESPAN_MARK = "bench-lifespan"  # bench/product.py writes it; not imported (Gatehouse code)


@dataclass(frozen=True)
class Plan:
    applications: int
    depth: int
    seconds: float
    warmup: float
    connections: int
    rounds: int


FULL = Plan(applications=101_000, depth=100_000, seconds=10, warmup=2, connections=16, rounds=1)
QUICK = Plan(applications=3_000, depth=2_000, seconds=1, warmup=1, connections=8, rounds=1)


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

# --- targets ------------------------------------------------------------------------------
# Throughput of a Gatehouse scenario divided by the bare FastAPI app's, on the same server,
# options and number of processes, measured in the same round. (sqlite, postgres)
TARGETS_VS_BARE: dict[str, tuple[float, float]] = {
    scenarios.BASELINE: (0.80, 0.80),
    scenarios.AUTHENTICATED: (0.60, 0.60),
    scenarios.READ: (0.40, 0.35),
    scenarios.LIST_FIRST: (0.10, 0.10),
    scenarios.LIST_DEEP: (0.10, 0.10),  # the deep page is a list page of 100 too
    scenarios.PROVISION_NEW: (0.08, 0.12),
}
TARGET_NAMES = {
    scenarios.BASELINE: "trivial route through the edge (baseline)",
    scenarios.AUTHENTICATED: "authenticated no-op /v1",
    scenarios.READ: "authenticated application read",
    scenarios.LIST_FIRST: "list page of 100",
    scenarios.PROVISION_NEW: "provisioning a new identity",
}
MAX_P99_OVER_P50 = 10.0
MAX_RSS_MB = 200.0


def target_for(scenario: str, database: str) -> float | None:
    key = scenarios.LIST_DEEP if scenario.startswith(scenarios.LIST_DEEP) else scenario
    pair = TARGETS_VS_BARE.get(key)
    if pair is None:
        return None
    return pair[0] if database == "sqlite" else pair[1]


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    result: WrkResult
    cpu_ms: float  # server CPU (user + system, whole process tree) per request


@dataclass
class Series:
    """One scenario on one server: its samples and its per-round ratios."""

    samples: list[Sample] = field(default_factory=list)
    vs_bare: list[float] = field(default_factory=list)
    vs_bare_cpu: list[float] = field(default_factory=list)
    vs_baseline: list[float] = field(default_factory=list)

    def median(self, attribute: str) -> float:
        values = [float(getattr(s.result, attribute)) for s in self.samples]
        return statistics.median(values) if values else 0.0

    @property
    def rps(self) -> float:
        return self.median("rps")

    @property
    def p50_ms(self) -> float:
        return self.median("p50_ms")

    @property
    def p99_ms(self) -> float:
        return self.median("p99_ms")

    @property
    def tail(self) -> float:
        """Median over samples of p99 / p50."""
        values = [s.result.p99_ms / max(s.result.p50_ms, 1e-9) for s in self.samples]
        return statistics.median(values) if values else 0.0

    @property
    def cpu_ms(self) -> float:
        return statistics.median([s.cpu_ms for s in self.samples]) if self.samples else 0.0

    @property
    def errors(self) -> int:
        return sum(s.result.errors for s in self.samples)


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


@dataclass
class ServerChecks:
    """What a server was seen to preserve, from the outside."""

    headers: dict[str, list[str]] = field(default_factory=dict)  # route -> header names
    missing: list[str] = field(default_factory=list)
    pids_seen: int = 0
    lifespan_startups: int = 0
    lifespan_shutdowns: int = 0
    in_flight_at_stop: str = ""  # what the request in flight at SIGTERM got
    stop_seconds: float | None = None
    exit_code: int | None = None


@dataclass
class Report:
    config: Config
    kind: str  # "uvicorn" or "granian"
    series: dict[str, Series] = field(default_factory=dict)  # scenario name -> series
    bare: Series = field(default_factory=Series)
    skipped: dict[str, str] = field(default_factory=dict)
    failure: str = ""
    peak_rss_mb: float = 0.0
    total_rss_mb: float = 0.0
    bare_peak_rss_mb: float = 0.0
    bare_total_rss_mb: float = 0.0
    checks: ServerChecks = field(default_factory=ServerChecks)

    @property
    def label(self) -> str:
        return f"{self.config.name} · {self.kind}"


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


# --- servers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Served:
    kind: str  # "uvicorn" or "granian"
    app: str  # "gatehouse" or "bare"
    workers: int
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def serve(
    env: dict[str, str],
    port: int,
    workers: int,
    workdir: Path,
    *,
    kind: str = "uvicorn",
    app: str = "gatehouse",
) -> Iterator[Served]:
    """Start bench/server.py as its own process; yield it once it answers and has settled."""
    log_path = workdir / f"server-{app}-{kind}-{port}.log"
    ready = "/healthz" if app == "gatehouse" else HELLO_PATH
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bench" / "server.py"),
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--server",
                kind,
                "--app",
                app,
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
                    raise RuntimeError(f"{kind} server ({app}) exited: {_last_line(log_path)}")
                try:
                    if httpx.get(f"http://127.0.0.1:{port}{ready}", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{kind} server ({app}) did not start: {_last_line(log_path)}"
                    )
                time.sleep(0.2)
            _settle(process.pid, deadline)
            yield Served(kind, app, workers, port, process, log_path)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@contextmanager
def server(env: dict[str, str], port: int, workers: int, workdir: Path) -> Iterator[int]:
    """Gatehouse under uvicorn; yields its pid (used by bench/profile.py)."""
    with serve(env, port, workers, workdir) as served:
        yield served.pid


def _last_line(log: Path) -> str:
    """The server log's last line (a traceback's verdict); the whole tail goes to stderr."""
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    for line in lines[-15:]:
        print(f"#     | {line}", file=sys.stderr, flush=True)
    return lines[-1].strip() if lines else "(empty log)"


def _settle(pid: int, deadline: float) -> None:
    """Wait until the server's processes stop burning CPU (every worker has started)."""
    before = procstats.cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = procstats.cpu_seconds(pid)
        if now - before < 0.1:
            return
        before = now


# --- server checks (what Gatehouse needs from its server) ----------------------------------

REQUIRED_HEADERS = {
    "baseline": ["content-type", "content-length", "service-request-id"],
    "/v1": [
        "content-type",
        "service-request-id",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
    ],
}


def check_headers(served: Served, seeded: Seeded, checks: ServerChecks) -> None:
    requests = {
        "baseline": (BASELINE_PATH, {}),
        "/v1": (AUTHENTICATED_PATH, {"Authorization": f"Bearer {seeded.api_key}"}),
    }
    with httpx.Client(base_url=served.base, timeout=30) as client:
        for name, (path, headers) in requests.items():
            response = client.get(path, headers=headers)
            names = sorted({k.lower() for k in response.headers})
            checks.headers[name] = names
            checks.missing += [f"{name}: {h}" for h in REQUIRED_HEADERS[name] if h not in names]


def count_pids(served: Served, tries: int = 40) -> int:
    """How many distinct processes answer, over fresh connections."""
    pids: set[int] = set()
    for _ in range(tries):
        try:
            with httpx.Client(base_url=served.base, timeout=10) as client:
                pids.add(int(client.get(PID_PATH).json()["pid"]))
        except (httpx.HTTPError, ValueError, KeyError):
            continue
        if len(pids) >= served.workers:
            break
    return len(pids)


def stop_gracefully(served: Served, checks: ServerChecks) -> None:
    """SIGTERM while a 2 s request is in flight: it must be answered, lifespan must end."""
    outcome: dict[str, str] = {}

    def slow() -> None:
        try:
            response = httpx.get(f"{served.base}{SLOW_PATH}?ms=2000", timeout=30)
            outcome["got"] = f"answered {response.status_code}"
        except httpx.HTTPError as exc:
            outcome["got"] = f"failed ({type(exc).__name__})"

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.5)
    started = time.monotonic()
    served.process.send_signal(signal.SIGTERM)
    thread.join(timeout=40)
    try:
        checks.exit_code = served.process.wait(timeout=40)
        checks.stop_seconds = time.monotonic() - started
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()
        checks.exit_code = None
    checks.in_flight_at_stop = outcome.get("got", "no answer")
    text = served.log.read_text(errors="replace")
    checks.lifespan_startups = text.count(f"{LIFESPAN_MARK} startup")
    checks.lifespan_shutdowns = text.count(f"{LIFESPAN_MARK} shutdown")


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


def _sample(served: Served, scenario: scenarios.Scenario, plan: Plan) -> Sample:
    print(f"#   {served.kind}: {scenario.name}", file=sys.stderr, flush=True)
    result, cpu_ms = measure(served.base, served.pid, scenario, plan)
    return Sample(result, cpu_ms)


def run_round(
    report: Report,
    gatehouse: Served,
    bare: Served,
    planned: list[scenarios.Scenario],
    plan: Plan,
) -> None:
    """Bare app, baseline, every scenario, baseline, bare app; ratios within the round."""
    bare_samples = [_sample(bare, BARE_SCENARIO, plan)]
    baseline_samples: list[Sample] = []
    samples: dict[str, Sample] = {}
    for scenario in [*planned, planned[0]]:  # the baseline again at the end
        if scenario.name in report.skipped:
            continue
        sample = _sample(gatehouse, scenario, plan)
        if scenario.name == scenarios.BASELINE:
            baseline_samples.append(sample)
        else:
            samples[scenario.name] = sample
    bare_samples.append(_sample(bare, BARE_SCENARIO, plan))

    bare_rps = statistics.mean(s.result.rps for s in bare_samples)
    bare_cpu = statistics.mean(s.cpu_ms for s in bare_samples)
    report.bare.samples += bare_samples
    base_rps = statistics.mean(s.result.rps for s in baseline_samples) if baseline_samples else 0
    if baseline_samples:
        samples = {scenarios.BASELINE: baseline_samples[0], **samples}
    for name, sample in samples.items():
        series = report.series.setdefault(name, Series())
        if name == scenarios.BASELINE:
            series.samples += baseline_samples
            rps = base_rps
            cpu = statistics.mean(s.cpu_ms for s in baseline_samples)
        else:
            series.samples.append(sample)
            rps, cpu = sample.result.rps, sample.cpu_ms
        if bare_rps:
            series.vs_bare.append(rps / bare_rps)
        if cpu:
            series.vs_bare_cpu.append(bare_cpu / cpu)
        if base_rps:
            series.vs_baseline.append(rps / base_rps)


def run_config(
    config: Config,
    kinds: Sequence[str],
    database_url: str,
    secret_key: str,
    seeded: Seeded,
    plan: Plan,
    workdir: Path,
    cursors: dict[str, str | None],
) -> list[Report]:
    reports = {kind: Report(config, kind) for kind in kinds}
    with ExitStack() as stack:
        pairs: dict[str, tuple[Served, Served]] = {}
        for kind in kinds:
            try:
                port, bare_port = free_port(), free_port()
                env = server_env(database_url, secret_key, config, port)
                print(f"# {config.name}, {kind}: starting", file=sys.stderr, flush=True)
                gatehouse = stack.enter_context(
                    serve(env, port, config.workers, workdir, kind=kind, app="gatehouse")
                )
                bare = stack.enter_context(
                    serve(env, bare_port, config.workers, workdir, kind=kind, app="bare")
                )
                pairs[kind] = (gatehouse, bare)
            except RuntimeError as exc:
                print(f"# {config.name}, {kind} failed: {exc}", file=sys.stderr, flush=True)
                reports[kind].failure = str(exc)
        if not pairs:
            return list(reports.values())
        first = next(iter(pairs.values()))[0]
        if database_url not in cursors:
            print(f"#   walking the list to depth {plan.depth:,}", file=sys.stderr, flush=True)
            cursors[database_url] = scenarios.deep_cursor(first.base, seeded, plan.depth)
        planned = scenarios.build(seeded, cursors[database_url], plan.depth)
        for kind, (gatehouse, _) in pairs.items():
            report = reports[kind]
            for scenario in planned:
                problem = scenarios.check(gatehouse.base, scenario, secrets.token_hex(4))
                if problem is not None:
                    report.skipped[scenario.name] = problem
            check_headers(gatehouse, seeded, report.checks)
            report.checks.pids_seen = count_pids(gatehouse)
        order = list(pairs)
        for number in range(plan.rounds):
            print(f"# {config.name}: round {number + 1} of {plan.rounds}", file=sys.stderr)
            # Alternate which server goes first, so neither always has the later minutes.
            for kind in order if number % 2 == 0 else order[::-1]:
                gatehouse, bare = pairs[kind]
                run_round(reports[kind], gatehouse, bare, planned, plan)
        for kind, (gatehouse, bare) in pairs.items():
            report = reports[kind]
            memory = procstats.peak_memory(gatehouse.pid)
            report.peak_rss_mb, report.total_rss_mb = memory.peak_rss_mb, memory.total_peak_rss_mb
            memory = procstats.peak_memory(bare.pid)
            report.bare_peak_rss_mb = memory.peak_rss_mb
            report.bare_total_rss_mb = memory.total_peak_rss_mb
            stop_gracefully(gatehouse, report.checks)
    return list(reports.values())


# --- output -------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def table(reports: list[Report]) -> str:
    lines = [
        "| server | scenario | req/s | p50 ms | p99 ms | p99/p50 | CPU ms/req | errors "
        "| vs baseline | vs bare | target (vs bare) | vs bare, by CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for report in reports:
        if report.failure:
            lines.append(f"| {report.label} | all | {report.failure} | | | | | | | | | |")
            continue
        bare = report.bare
        lines.append(
            f"| {report.label} | {BARE} | {bare.rps:,.0f} | {bare.p50_ms:.2f} | "
            f"{bare.p99_ms:.2f} | {bare.tail:.1f} | {bare.cpu_ms:.3f} | {bare.errors} "
            "| - | 100% | - | 100% |"
        )
        for name, series in report.series.items():
            need = target_for(name, report.config.database)
            ratio = _median(series.vs_bare)
            goal = "-"
            if need is not None and ratio is not None:
                goal = f"≥ {need:.0%} {_verdict(ratio >= need)}"
                cpu = _median(series.vs_bare_cpu)
                if cpu is not None and (cpu >= need) != (ratio >= need):
                    goal += f" (by CPU {_verdict(cpu >= need)})"
            lines.append(
                f"| {report.label} | {name} | {series.rps:,.0f} | {series.p50_ms:.2f} | "
                f"{series.p99_ms:.2f} | {series.tail:.1f} | {series.cpu_ms:.3f} | "
                f"{series.errors} | {_pct(_median(series.vs_baseline))} | {_pct(ratio)} | "
                f"{goal} | {_pct(_median(series.vs_bare_cpu))} |"
            )
        for name, problem in report.skipped.items():
            lines.append(f"| {report.label} | {name} | not run: {problem} | | | | | | | | | |")
        lines.append(
            f"| {report.label} | peak RSS | Gatehouse {report.peak_rss_mb:.0f} MB per process "
            f"({report.total_rss_mb:.0f} MB in all); bare app {report.bare_peak_rss_mb:.0f} MB "
            f"per process | | | | | | | | ≤ {MAX_RSS_MB:.0f} MB "
            f"{_verdict(report.peak_rss_mb <= MAX_RSS_MB)} | |"
        )
    return "\n".join(lines)


def targets(reports: list[Report]) -> list[str]:
    """The targets against the bare FastAPI app, each with its figure and PASS or MISS."""
    out: list[str] = []
    for report in reports:
        if report.failure:
            out.append(f"MISS {report.label}: not measured ({report.failure})")
            continue
        db = report.config.database
        for name, series in report.series.items():
            need = target_for(name, db)
            ratio = _median(series.vs_bare)
            if need is None or ratio is None:
                continue
            title = TARGET_NAMES.get(name, name)
            cpu = _median(series.vs_bare_cpu)
            # Throughput decides; when CPU per request says otherwise, the machine was
            # probably busy with other work during one of the samples: say so.
            tail = ")"
            if cpu is not None and (cpu >= need) != (ratio >= need):
                tail = f": {_verdict(cpu >= need)}, the two disagree, a noisy sample?)"
            out.append(
                f"{_verdict(ratio >= need)} {report.label}: {title} {ratio:.0%} of the bare "
                f"app (target ≥ {need:.0%}; by CPU {_pct(cpu)}{tail}"
            )
        for name in report.skipped:
            if target_for(name, db) is not None:
                out.append(f"MISS {report.label}: {name} not run ({report.skipped[name]})")
        worst = max(report.series.items(), key=lambda kv: kv[1].tail, default=None)
        if worst is not None:
            out.append(
                f"{_verdict(worst[1].tail <= MAX_P99_OVER_P50)} {report.label}: worst p99/p50 "
                f"{worst[1].tail:.1f} ({worst[0]}) (target ≤ {MAX_P99_OVER_P50:.0f} in every "
                "scenario)"
            )
        out.append(
            f"{_verdict(report.peak_rss_mb <= MAX_RSS_MB)} {report.label}: peak RSS "
            f"{report.peak_rss_mb:.0f} MB per process (target ≤ {MAX_RSS_MB:.0f} MB)"
        )
    return out


def earlier_targets(reports: list[Report], depth: int) -> list[str]:
    """Issue 8's targets, against the same-stack baseline (kept for continuity)."""
    out: list[str] = []
    for report in reports:
        if report.failure or report.kind != "uvicorn":
            continue
        rows = report.series
        single = report.config.workers == 1
        read = rows.get(scenarios.READ)
        ratio = _median(read.vs_baseline) if read else None
        if single and ratio is not None:
            need = 0.4 if report.config.database == "postgres" else 0.3
            out.append(
                f"{_verdict(ratio >= need)} {report.label}: read {ratio:.0%} of baseline "
                f"(target {need:.0%})"
            )
        new = rows.get(scenarios.PROVISION_NEW)
        ratio = _median(new.vs_baseline) if new else None
        if single and ratio is not None and report.config.database == "postgres":
            out.append(
                f"{_verdict(ratio >= 0.2)} {report.label}: provisioning {ratio:.0%} of "
                "baseline (target 20%)"
            )
        first = rows.get(scenarios.LIST_FIRST)
        deep = rows.get(f"{scenarios.LIST_DEEP} {depth:,}")
        if first and deep:
            out.append(
                f"{_verdict(deep.p50_ms <= 1.5 * first.p50_ms)} {report.label}: list p50 at "
                f"depth {deep.p50_ms:.2f} ms vs first page {first.p50_ms:.2f} ms (target 1.5x)"
            )
    return out


def comparison(reports: list[Report]) -> str:
    """uvicorn against granian, scenario by scenario (only with both servers)."""
    by_config: dict[str, dict[str, Report]] = {}
    for report in reports:
        if not report.failure:
            by_config.setdefault(report.config.name, {})[report.kind] = report
    lines = [
        "| configuration | scenario | uvicorn req/s | granian req/s | granian ÷ uvicorn "
        "| uvicorn CPU ms/req | granian CPU ms/req | uvicorn p99 ms | granian p99 ms "
        "| uvicorn vs bare | granian vs bare |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for config, pair in by_config.items():
        if set(pair) != set(SERVER_KINDS):
            continue
        uv, gr = pair["uvicorn"], pair["granian"]
        names = [BARE, *uv.series]
        for name in names:
            a = uv.bare if name == BARE else uv.series.get(name)
            b = gr.bare if name == BARE else gr.series.get(name)
            if a is None or b is None:
                continue
            lines.append(
                f"| {config} | {name} | {a.rps:,.0f} | {b.rps:,.0f} | "
                f"{b.rps / a.rps if a.rps else 0:.2f} | {a.cpu_ms:.3f} | {b.cpu_ms:.3f} | "
                f"{a.p99_ms:.2f} | {b.p99_ms:.2f} | "
                f"{'100%' if name == BARE else _pct(_median(a.vs_bare))} | "
                f"{'100%' if name == BARE else _pct(_median(b.vs_bare))} |"
            )
        lines.append(
            f"| {config} | peak RSS per process (Gatehouse / bare) | "
            f"{uv.peak_rss_mb:.0f} / {uv.bare_peak_rss_mb:.0f} MB | "
            f"{gr.peak_rss_mb:.0f} / {gr.bare_peak_rss_mb:.0f} MB | | | | | | | |"
        )
    return "\n".join(lines) if len(lines) > 2 else ""


def server_checks(reports: list[Report]) -> list[str]:
    out: list[str] = []
    for report in reports:
        if report.failure:
            continue
        c = report.checks
        workers = report.config.workers
        headers = "ok" if not c.missing else "MISSING " + ", ".join(c.missing)
        extra = sorted(
            set(c.headers.get("baseline", [])) - set(REQUIRED_HEADERS["baseline"]),
        )
        replay = report.skipped.get(scenarios.REPLAY)
        if c.stop_seconds is None or c.exit_code is None:
            stopped = "did not stop within 40 s (killed)"
        elif c.exit_code < 0:
            # uvicorn re-raises the signal once its graceful shutdown is done.
            stopped = f"exited in {c.stop_seconds:.1f} s by signal {-c.exit_code}"
        else:
            stopped = f"exited in {c.stop_seconds:.1f} s with code {c.exit_code}"
        out.append(
            f"{report.label}: Gatehouse's headers {headers} (Service-Request-Id, RateLimit-*"
            f"{', Idempotent-Replayed' if replay is None else ''}); the server adds: "
            f"{', '.join(extra) or 'nothing'}; {c.pids_seen} of {workers} worker "
            f"process(es) answered; lifespan startup {c.lifespan_startups}/{workers}, "
            f"shutdown {c.lifespan_shutdowns}/{workers}; SIGTERM with a request in flight: "
            f"the request {c.in_flight_at_stop}, {stopped}"
        )
    return out


def versions() -> str:
    names = ("fastapi", "starlette", "uvicorn", "uvloop", "httptools", "granian")
    found: list[str] = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} absent")
    return ", ".join(found)


def to_json(reports: list[Report]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for report in reports:
        out.append(
            {
                "config": report.config.name,
                "server": report.kind,
                "failure": report.failure,
                "bare": asdict(report.bare),
                "series": {name: asdict(series) for name, series in report.series.items()},
                "skipped": report.skipped,
                "peak_rss_mb": report.peak_rss_mb,
                "bare_peak_rss_mb": report.bare_peak_rss_mb,
                "checks": asdict(report.checks),
            }
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
    parser.add_argument(
        "--server",
        choices=(*SERVER_KINDS, "both"),
        default="uvicorn",
        help="which server runs Gatehouse and the bare app (default: uvicorn, the product's)",
    )
    parser.add_argument("--rounds", type=int, help="rounds per server; figures are medians")
    parser.add_argument("--seconds", type=float, help="measured seconds per scenario")
    parser.add_argument("--connections", type=int, help="wrk connections")
    parser.add_argument("--json", type=Path, help="also write every sample to this file")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    plan = Plan(
        plan.applications,
        plan.depth,
        args.seconds or plan.seconds,
        plan.warmup,
        args.connections or plan.connections,
        max(1, args.rounds or plan.rounds),
    )
    kinds = list(SERVER_KINDS) if args.server == "both" else [args.server]
    wrk_path()  # exits with the install command when wrk is missing
    if "granian" in kinds and importlib.util.find_spec("granian") is None:
        raise SystemExit("granian is not installed: .venv/bin/pip install granian")
    chosen = [CONFIGS[name.strip()] for name in args.configs.split(",") if name.strip()]
    started = datetime.now(UTC)
    load_before = procstats.load_average()
    busy_before = os.getloadavg()[0]
    reports: list[Report] = []
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
                    reports += run_config(
                        config, kinds, url, secret_key, seeded, plan, workdir, cursors
                    )
    finished = datetime.now(UTC)
    print(
        f"Gatehouse benchmark, {started:%Y-%m-%d %H:%M} to {finished:%H:%M} UTC, "
        f"{platform.node()}, {os.cpu_count()} CPUs ({procstats.cpu_model()}), "
        f"Python {platform.python_version()}; {versions()}; wrk 1 thread x "
        f"{plan.connections} connections, {plan.warmup:g} s warm-up + {plan.seconds:g} s per "
        f"scenario, {plan.rounds} round(s), medians; {plan.applications:,} applications; "
        f"load average before {load_before}, after {procstats.load_average()}"
    )
    if busy_before > (os.cpu_count() or 1) / 2:
        print(
            f"Note: the load average was {busy_before:.1f} on {os.cpu_count()} CPUs before the "
            "run started: other work shared the machine, and throughput figures move with it "
            "(read the 'by CPU' ratios, and repeat with --rounds)."
        )
    print()
    print(table(reports))
    print()
    print("Targets (throughput against the bare FastAPI app on the same server):")
    for line in targets(reports):
        print(line)
    earlier = earlier_targets(reports, plan.depth)
    if earlier:
        print()
        print("Earlier targets (bench/RESULTS.md: against the same-stack baseline):")
        for line in earlier:
            print(line)
    compared = comparison(reports)
    if compared:
        print()
        print("uvicorn against granian (same apps, options and processes):")
        print()
        print(compared)
    print()
    print("What each server preserved (seen from outside):")
    for line in server_checks(reports):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(to_json(reports), indent=1) + "\n")


if __name__ == "__main__":
    main()
