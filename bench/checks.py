"""What Gatehouse needs from its server (uvicorn or granian), checked from the outside.

- headers: Gatehouse's own (`Service-Request-Id`, `RateLimit-*` on `/v1`) pass through, and
  which the server adds itself;
- workers: how many distinct processes answer `GET /bench/pid` over fresh connections;
- lifespan: every process writes a line to the server's log when its lifespan starts and
  ends (bench/product.py);
- graceful shutdown: SIGTERM while a 2-second request (`GET /bench/slow`) is in flight: the
  request must be answered, every lifespan must end and the server must exit.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time

import httpx

from bench import scenarios
from bench.results import Report, ServerChecks
from bench.seed import Seeded
from bench.server import AUTHENTICATED_PATH, BASELINE_PATH, PID_PATH, SLOW_PATH
from bench.serving import Served

LIFESPAN_MARK = "bench-lifespan"  # bench/product.py writes it; not imported (Gatehouse code)

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


def server_checks(reports: list[Report]) -> list[str]:
    """One line per configuration and server: what it was seen to preserve."""
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
