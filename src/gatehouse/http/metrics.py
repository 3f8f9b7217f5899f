"""Prometheus metrics served at /metrics."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

REQUESTS = Counter(
    "gatehouse_http_requests_total",
    "HTTP requests by method, route template and status.",
    ["method", "route", "status"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "gatehouse_http_request_seconds",
    "HTTP request latency by route template.",
    ["route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
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


def observe(method: str, route: str, status: int, started: float) -> None:
    REQUESTS.labels(method=method, route=route, status=str(status)).inc()
    LATENCY.labels(route=route).observe(time.perf_counter() - started)
