"""Traces from a real `gatehouse serve`, exported over OTLP/HTTP to a receiver process on
loopback (tests/support/otlp_receiver.py) and printed by the console exporter at once
(docs/operations.md, "Traces"); OTEL_* and pool settings that cannot work stop every
command at start with one line naming them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.leaks import remember
from tests.support.ports import free_port
from tests.support.processes import clean_env, run, started

ROOT = Path(__file__).resolve().parents[2]
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    out = tmp_path / "spans.jsonl"
    out.touch()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.otlp_receiver", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}", out
    finally:
        process.terminate()
        process.wait(timeout=10)


def received(out: Path, trace_id: str, timeout: float = 20) -> list[dict[str, Any]]:
    """The spans of `trace_id` the receiver got, once the request's own span is among them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        spans = [json.loads(line) for line in out.read_text().splitlines()]
        mine = [span for span in spans if span["trace_id"] == trace_id]
        if any(span["kind"] == 2 for span in mine):  # SPAN_KIND_SERVER
            return mine
        time.sleep(0.1)
    raise AssertionError(f"no server span of {trace_id} arrived")


def test_serve_exports_a_request_trace_over_otlp_http(
    tmp_path: Path, receiver: tuple[str, Path]
) -> None:
    endpoint, out = receiver
    env = clean_env(database_url=f"sqlite:///{tmp_path}/gatehouse.db")
    created = run(
        ["staff", "create", "--email", "ops@example.test", "--role", "admin"], env, tmp_path
    )
    assert created.returncode == 0, created.stderr
    staff = json.loads(created.stdout)
    remember(staff["token"])
    env.update(
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        OTEL_TRACES_EXPORTER="otlp,console",
        OTEL_BSP_SCHEDULE_DELAY="100",
        OTEL_SERVICE_NAME="gatehouse-under-test",
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with started(["serve", "--port", str(port), "--no-worker"], env, tmp_path) as server:
        server.wait_healthy(base)
        answer = httpx.get(
            base + "/staff/v1/tenants",
            headers={"Authorization": f"Bearer {staff['token']}", "traceparent": PARENT},
        )
        assert answer.status_code == 200, answer.text
        spans = received(out, TRACE_ID)
        console = server.wait_for_stdout(lambda text: f"0x{TRACE_ID}" in text)
    (request,) = [span for span in spans if span["kind"] == 2]
    assert request["name"] == "GET /staff/v1/tenants"
    assert request["parent_span_id"] == "b7ad6b7169203331"
    assert request["attributes"]["gatehouse.staff_id"] == staff["staffId"]
    assert request["attributes"]["http.response.status_code"] == 200
    assert request["resource"]["service.name"] == "gatehouse-under-test"
    statements = [span for span in spans if "db.statement" in span["attributes"]]
    assert statements
    assert all(span["parent_span_id"] == request["span_id"] for span in statements)
    assert '"name": "GET /staff/v1/tenants"' in console  # the console exporter's JSON
    access = [
        json.loads(line)
        for line in server.stderr
        if '"gatehouse.access"' in line and TRACE_ID in line
    ]
    assert len(access) == 1
    assert access[0]["staff_id"] == staff["staffId"]
    assert access[0]["span_id"] == request["span_id"]


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER=zipkin"),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"),
        ({"GATEHOUSE_DB_POOL_SIZE": "2"}, "GATEHOUSE_DB_POOL_SIZE=2"),
    ],
)
@pytest.mark.parametrize("command", [["migrate"], ["serve", "--port", "1"], ["worker"]])
def test_settings_that_cannot_work_stop_every_command_with_one_line(
    tmp_path: Path, setting: dict[str, str], named: str, command: list[str]
) -> None:
    env = clean_env(database_url=f"sqlite:///{tmp_path}/gatehouse.db")
    env.update(setting)
    done = run(command, env, tmp_path)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert named in lines[0]
    assert not (tmp_path / "gatehouse.db").exists()  # refused before anything was done


WITHOUT_SDK = """\
import sys
for name in ("opentelemetry.sdk", "opentelemetry.exporter"):
    sys.modules[name] = None
from gatehouse.cli import main
sys.argv[0] = "gatehouse"
main()
"""


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT"),
        ({"OTEL_TRACES_EXPORTER": "console"}, "OTEL_TRACES_EXPORTER"),
    ],
)
def test_without_the_otel_extra_traces_are_refused_saying_what_to_install(
    tmp_path: Path, setting: dict[str, str], named: str
) -> None:
    """The SDK is the optional extra `gatehouse-kyc[otel]`: `sys.modules[name] = None` makes
    it unimportable in a fresh interpreter, as when it is not installed."""
    env = clean_env(database_url=f"sqlite:///{tmp_path}/gatehouse.db")
    env.update(setting)
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_SDK, "migrate"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.strip()]
    assert named in line
    assert "install gatehouse-kyc[otel]" in line
    assert "EXTRAS=otel" in line
    # Without an OTEL_* setting asking for traces, the same interpreter migrates.
    plain = clean_env(database_url=f"sqlite:///{tmp_path}/gatehouse.db")
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_SDK, "migrate"],
        env=plain,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
