"""Prometheus metrics served at /metrics (docs/operations.md, "Metrics").

Requests are tallied per process in plain dictionaries (a dictionary update and a
bisection per request) and moved into the Prometheus counter and histogram by
`flush`: before every scrape, once a second in each serving process
(`flush_periodically`, run by the app's lifespan), and when the process stops.

Under `gatehouse serve --workers N` (N > 1) the command points
PROMETHEUS_MULTIPROC_DIR at a fresh directory for that serve: every process writes
its values there (prometheus-client's multiprocess mode) and /metrics, whichever
process answers, adds up the values of all of them, the processes that have ended
included (their requests happened). A scrape therefore sees the requests of the
other processes up to their last flush, at most `FLUSH_SECONDS` old. A process that
stops marks itself dead, and each process marks the dead ones it finds when it starts
(a worker that crashed), which drops their live gauges.
"""

from __future__ import annotations

import asyncio
import os
from bisect import bisect_left
from collections.abc import Callable
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
FLUSH_SECONDS = 1.0
CONTENT_TYPE = CONTENT_TYPE_LATEST

REGISTRY = CollectorRegistry(auto_describe=True)

REQUESTS = Counter(
    "gatehouse_http_requests_total",
    "HTTP requests by method, route template and status.",
    ["method", "route", "status"],
    registry=REGISTRY,
)
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
LATENCY = Histogram(
    "gatehouse_http_request_seconds",
    "HTTP request latency by route template.",
    ["route"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "gatehouse_rate_limited_total",
    "Requests refused by a rate limit, by kind (ip or key).",
    ["kind"],
    registry=REGISTRY,
)
WEBHOOK_DELIVERIES = Counter(
    "gatehouse_webhook_attempts_total",
    "Webhook delivery attempts by outcome.",
    ["outcome"],
    registry=REGISTRY,
)

# The histogram's upper bounds, +Inf last, as `Histogram.observe` compares them.
_BOUNDS = (*(float(b) for b in LATENCY_BUCKETS), float("inf"))
# Index of the sum, then one count per bucket, in a tally.
_SUM = 1
_FIRST_BUCKET = 2


class RequestTally:
    """Requests of this process not yet moved into `REQUESTS` and `LATENCY`.

    Keyed by (method, route template, status): [count, seconds, count per bucket...].
    Used on the event loop's thread only.
    """

    def __init__(self) -> None:
        self._pending: dict[tuple[str, str, str], list[float]] = {}

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, str(status))
        tally = self._pending.get(key)
        if tally is None:
            tally = self._pending[key] = [0] * (_FIRST_BUCKET + len(_BOUNDS))
        tally[0] += 1
        tally[_SUM] += seconds
        tally[_FIRST_BUCKET + bisect_left(_BOUNDS, seconds)] += 1

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for (method, route, status), tally in pending.items():
            REQUESTS.labels(method, route, status).inc(tally[0])
            child = LATENCY.labels(route)
            # What `observe` would have done once per request, added up.
            child._sum.inc(tally[_SUM])
            for index, count in enumerate(tally[_FIRST_BUCKET:]):
                if count:
                    child._buckets[index].inc(count)


TALLY = RequestTally()


def observe(method: str, route: str, status: int, seconds: float) -> None:
    """Count one request (route: its template, or "unmatched")."""
    TALLY.observe(method, route, status, seconds)


def flush() -> None:
    TALLY.flush()


def multiprocess_dir() -> str | None:
    """The directory shared by the processes of this serve, when there are several."""
    return os.environ.get(MULTIPROC_ENV) or None


def exposition() -> bytes:
    """The text format of every metric, added up over the processes of this serve."""
    flush()
    if multiprocess_dir() is None:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return generate_latest(registry)


async def flush_periodically(
    interval: float = FLUSH_SECONDS, sample: Callable[[], None] | None = None
) -> None:
    """Flush once per `interval` until cancelled (then flush once more); `sample`, when
    given, runs before each flush (the serving process's pool gauge)."""
    try:
        while True:
            await asyncio.sleep(interval)
            if sample is not None:
                sample()
            flush()
    finally:
        flush()


def process_started() -> None:
    """Mark the processes of this serve that ended without saying so (a crash)."""
    directory = multiprocess_dir()
    if directory is None:
        return
    for pid in _pids_in(Path(directory)):
        if pid != os.getpid() and not _alive(pid):
            multiprocess.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]


def process_stopping() -> None:
    """Flush, and mark this process dead in the shared directory."""
    flush()
    directory = multiprocess_dir()
    if directory is not None:
        multiprocess.mark_process_dead(os.getpid(), directory)  # type: ignore[no-untyped-call]


def _pids_in(directory: Path) -> set[int]:
    pids = set()
    for file in directory.glob("*.db"):
        tail = file.stem.rpartition("_")[2]
        if tail.isdigit():
            pids.add(int(tail))
    return pids


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- Background workers (docs/operations.md, "Worker metrics") ---------------------------
# Counted where the worker runs: `gatehouse worker` (its --metrics-port) or `serve` with the
# workers in-process. Outcomes are counted once the transaction that records them commits.

ATTEMPT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

WEBHOOK_ATTEMPT_SECONDS = Histogram(
    "gatehouse_webhook_attempt_seconds",
    "Duration of webhook delivery attempts (the POST, from the URL check to the answer).",
    buckets=ATTEMPT_BUCKETS,
    registry=REGISTRY,
)
DELIVERIES = Counter(
    "gatehouse_deliveries_total",
    "Outcomes of delivery attempts by queue (webhooks, verification_callbacks): succeeded, "
    "retry, dead, cancelled (webhooks), dropped (callbacks).",
    ["queue", "outcome"],
    registry=REGISTRY,
)
CALLBACK_ATTEMPT_SECONDS = Histogram(
    "gatehouse_verification_callback_attempt_seconds",
    "Duration of verification callback attempts.",
    buckets=ATTEMPT_BUCKETS,
    registry=REGISTRY,
)
QUEUE_DEPTH = Gauge(
    "gatehouse_queue_depth",
    "Deliveries not finished, by queue and state: due (waiting for a worker) or "
    "waiting (a retry scheduled for later, or an attempt under way).",
    ["queue", "state"],
    multiprocess_mode="livemostrecent",
    registry=REGISTRY,
)
QUEUE_OLDEST_DUE = Gauge(
    "gatehouse_queue_oldest_due_age_seconds",
    "How long the oldest due delivery of the queue has been due (0 when none is).",
    ["queue"],
    multiprocess_mode="livemostrecent",
    registry=REGISTRY,
)
ENDPOINTS_DISABLED = Counter(
    "gatehouse_webhook_endpoints_disabled_total",
    "Webhook endpoints the worker disabled, by reason.",
    ["reason"],
    registry=REGISTRY,
)
DB_CONNECTIONS_IN_USE = Gauge(
    "gatehouse_db_connections_in_use",
    "Database connections checked out of the process's SQLAlchemy pools (summed over "
    "processes), by pool.",
    ["pool"],
    multiprocess_mode="livesum",
    registry=REGISTRY,
)


def attempt_outcome(status: int | None) -> str:
    """The `outcome` label of gatehouse_webhook_attempts_total for an answer's status."""
    if status is None:
        return "network_error"
    return "succeeded" if 200 <= status <= 299 else "http_error"


def observe_webhook_attempt(status: int | None, latency_ms: float) -> None:
    WEBHOOK_DELIVERIES.labels(outcome=attempt_outcome(status)).inc()
    WEBHOOK_ATTEMPT_SECONDS.observe(latency_ms / 1000)


def count_deliveries(queue: str, outcome: str, count: int = 1) -> None:
    if count:
        DELIVERIES.labels(queue=queue, outcome=outcome).inc(count)


def record_queue(queue: str, *, due: int, waiting: int, oldest_due_seconds: float) -> None:
    QUEUE_DEPTH.labels(queue=queue, state="due").set(due)
    QUEUE_DEPTH.labels(queue=queue, state="waiting").set(waiting)
    QUEUE_OLDEST_DUE.labels(queue=queue).set(max(0.0, oldest_due_seconds))
