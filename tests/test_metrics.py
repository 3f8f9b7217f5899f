"""/metrics (docs/operations.md, "Metrics"): requests by route template and status with a
latency histogram, in one process and added up over the processes of `serve --workers 2`."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.parser import text_string_to_metric_families

from gatehouse import metrics
from tests.ops.support import local
from tests.pages.helpers import client_with
from tests.support.factories import TenantFixture, make_tenant
from tests.support.live import free_port
from tests.support.patience import patient
from tests.support.processes import clean_env, started

REQUESTS = "gatehouse_http_requests_total"
LATENCY = "gatehouse_http_request_seconds"
POOL = "gatehouse_db_connections_in_use"
RATE_LIMITED = "gatehouse_rate_limited_total"


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition: (name, labels) -> value."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, frozenset(labels.items())), 0.0)


async def scrape(client: httpx.AsyncClient) -> str:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


async def test_requests_by_route_template_and_status_with_latency(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    before = await scrape(client)
    for _ in range(7):
        assert (await client.get("/healthz")).status_code == 200
    for number in range(3):
        assert (await client.get(f"/v1/nothing/{number}")).status_code == 404
    for _ in range(2):
        response = await client.get("/v1/applications/app_none", headers=tenant.headers)
        assert response.status_code == 404
    after = await scrape(client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew(REQUESTS, method="GET", route="/healthz", status="200") == 7
    # Unmatched paths share one label value: client paths never become series.
    assert grew(REQUESTS, method="GET", route="unmatched", status="404") == 3
    assert grew(REQUESTS, method="GET", route="/v1/applications/{client_id}", status="404") == 2
    assert not [key for key in samples(after) if ("route", "/v1/nothing/0") in key[1]]
    assert grew(LATENCY + "_count", route="/healthz") == 7
    assert grew(LATENCY + "_bucket", route="/healthz", le="+Inf") == 7
    assert grew(LATENCY + "_sum", route="/healthz") > 0
    cumulative = [
        value(after, LATENCY + "_bucket", route="/healthz", le=str(float(bound)))
        for bound in metrics.LATENCY_BUCKETS
    ]
    assert cumulative == sorted(cumulative)


def test_tallied_requests_come_out_as_observed_one_by_one() -> None:
    """The per-process tally adds up to what `Histogram.observe` gives, bucket by bucket
    (bounds included: a request of exactly 5 ms is in the 5 ms bucket)."""
    durations = [0.0, 0.0005, 0.001, 0.0010001, 0.005, 0.0049, 0.3, 2.5, 7.0, 100.0]
    reference_registry = CollectorRegistry()
    reference = Histogram(
        "reference_seconds",
        "reference",
        buckets=metrics.LATENCY_BUCKETS,
        registry=reference_registry,
    )
    route = "/test/tally/" + os.urandom(4).hex()
    for seconds in durations:
        reference.observe(seconds)
        metrics.observe("GET", route, 200, seconds)
    found = samples(metrics.exposition().decode())
    compared = 0
    for family in reference_registry.collect():
        for sample in family.samples:
            if sample.name.endswith(("_bucket", "_count")):
                name = LATENCY + sample.name.removeprefix("reference_seconds")
                key = (name, frozenset({**sample.labels, "route": route}.items()))
                assert found[key] == sample.value, key
                compared += 1
    assert compared == len(metrics.LATENCY_BUCKETS) + 2  # the buckets, +Inf and the count
    assert found[(LATENCY + "_sum", frozenset({("route", route)}))] == pytest.approx(sum(durations))
    key = (REQUESTS, frozenset({("method", "GET"), ("route", route), ("status", "200")}))
    assert found[key] == len(durations)


# --- several processes -------------------------------------------------------------------


def _metrics_dir(lines: list[str]) -> Path:
    for line in lines:
        if line.startswith("{") and '"serving"' in line:
            directory = json.loads(line).get("metrics_dir")
            if directory:
                return Path(directory)
    raise AssertionError("no 'serving' line naming the metrics directory")


def _started(lines: list[str]) -> int:
    """How many serving processes have completed their start."""
    return sum('"Application startup complete."' in line for line in lines)


def _writers(directory: Path) -> set[str]:
    """The processes that wrote request counts into the shared directory."""
    return {file.stem.rpartition("_")[2] for file in directory.glob("counter_*.db")}


def _count(base: str, route: str, status: str) -> float:
    with httpx.Client(base_url=base, timeout=10) as client:
        return value(
            client.get("/metrics").text, REQUESTS, method="GET", route=route, status=status
        )


@pytest.mark.slow
def test_serve_with_two_processes_counts_every_request_once(tmp_path: Path) -> None:
    env = clean_env(database_url=f"sqlite:///{tmp_path}/gatehouse.db")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    args = ["serve", "--port", str(port), "--workers", "2", "--no-worker"]
    with started(args, env, tmp_path) as server:
        server.wait_healthy(base)
        directory = _metrics_dir(server.stderr)
        # Requests on fresh connections until both processes have answered some.
        sent = 0
        deadline = time.monotonic() + patient(30)
        while time.monotonic() < deadline:
            for _ in range(20):
                with httpx.Client(base_url=base, timeout=10) as client:
                    assert client.get("/v1/intakes").status_code == 401
                sent += 1
            if len(_writers(directory)) >= 2:
                break
            time.sleep(0.3)
        assert len(_writers(directory)) >= 2, "one process answered everything"
        # Every process flushes its tally within a second: the total arrives, and stays.
        deadline = time.monotonic() + patient(10)
        while _count(base, "/v1/intakes", "401") < sent and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _count(base, "/v1/intakes", "401") == sent
        time.sleep(metrics.FLUSH_SECONDS * 2)
        assert _count(base, "/v1/intakes", "401") == sent

        # Each serving process keeps its pool gauge, workers or not (--no-worker here).
        with httpx.Client(base_url=base, timeout=10) as client:
            pools = samples(client.get("/metrics").text)
        assert (POOL, frozenset({("pool", "write")})) in pools

        # A process killed outright: what it counted is still counted, once.
        pid = int(sorted(_writers(directory))[0])
        os.kill(pid, signal.SIGKILL)
        server.wait_healthy(base)
        assert _count(base, "/v1/intakes", "401") == sent
        # Stop only once uvicorn's replacement has started: a SIGTERM to the group while
        # it is still being spawned kills it before uvicorn answers the supervisor's
        # ping, and the supervisor then waits out its health-check timeout (60 s)
        # before it stops (docs/operations.md, "Stopping").
        deadline = time.monotonic() + patient(60)
        while _started(server.stderr) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _started(server.stderr) >= 3
    # The directory belonged to this serve only.
    assert not directory.exists()
    access = [
        json.loads(line)
        for line in server.stderr
        if line.startswith("{") and '"gatehouse.access"' in line and "/v1/intakes" in line
    ]
    assert len(access) == sent  # one line per request, from whichever process


async def test_rate_limit_refusals_are_counted_by_kind(database_url: str) -> None:
    """gatehouse_rate_limited_total{kind}: one per refusal, by the limit that refused:
    `key` (per API key), `ip` (per address on /v1, before authentication), `sign_in`."""
    overrides = {"rate_limit_per_key": 2, "rate_limit_per_ip": 3, "sign_in_limit_per_ip": 1}
    async with client_with(database_url, **overrides) as (client, runtime):
        tenant = await make_tenant(runtime)
        before = {kind: local(RATE_LIMITED, kind=kind) for kind in ("key", "ip", "sign_in")}

        def grew() -> dict[str, float]:
            return {kind: local(RATE_LIMITED, kind=kind) - before[kind] for kind in before}

        # Three requests within the address's three: the key's third is refused.
        statuses = [
            (await client.get("/v1/intakes", headers=tenant.headers)).status_code for _ in range(3)
        ]
        assert statuses[2] == 429
        assert 429 not in statuses[:2]
        assert grew() == {"key": 1, "ip": 0, "sign_in": 0}
        # The address's fourth, refused before the key is looked at.
        assert (await client.get("/v1/intakes")).status_code == 429
        assert grew() == {"key": 1, "ip": 1, "sign_in": 0}
        form = {"email": "a@example.test", "password": "x" * 12}
        assert (await client.post("/dashboard/sign-in", data=form)).status_code == 400
        assert (await client.post("/dashboard/sign-in", data=form)).status_code == 429
        assert grew() == {"key": 1, "ip": 1, "sign_in": 1}
