"""Traces in one process, recorded by the SDK's in-memory exporter (docs/operations.md,
"Traces"): a span per request continuing the caller's trace, statement spans inside it, a
span per webhook delivery and verification callback attempt, and log lines that carry the
trace id and who asked. Off, nothing of it is installed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import orjson
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from gatehouse import tracing
from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.web.edge_tracing import TraceMiddleware
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.conftest import make_settings
from tests.support.databases import clear_all_tables
from tests.support.factories import make_staff, make_tenant
from tests.webhooks.conftest import create_endpoint, emit, wait_requests
from tests.webhooks.receiver import Receiver, running_receiver

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    memory = InMemorySpanExporter()
    assert tracing.configure({"OTEL_TRACES_SAMPLER": "always_on"}, exporter=memory)
    try:
        yield memory
    finally:
        tracing.shutdown()


@pytest.fixture
async def traced_runtime(
    exporter: InMemorySpanExporter, database_url: str
) -> AsyncIterator[Runtime]:
    runtime = Runtime.build(make_settings(database_url))  # engines made while traces are on
    await clear_all_tables(runtime.db)
    exporter.clear()
    yield runtime
    await runtime.close()


@pytest.fixture
async def traced_client(traced_runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(traced_runtime.settings, traced_runtime)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


def hex_trace(span: ReadableSpan) -> str:
    assert span.context is not None
    return format(span.context.trace_id, "032x")


def access_lines(captured: list[str], trace_id: str) -> list[dict[str, Any]]:
    found = []
    for line in captured:
        entry = orjson.loads(line)
        if entry.get("logger") == "gatehouse.access" and entry.get("trace_id") == trace_id:
            found.append(entry)
    return found


async def test_a_request_is_a_span_of_the_callers_trace_with_its_statements(
    exporter: InMemorySpanExporter,
    traced_runtime: Runtime,
    traced_client: httpx.AsyncClient,
    captured_logs: list[str],
) -> None:
    tenant = await make_tenant(traced_runtime)
    exporter.clear()
    answer = await traced_client.get(
        "/v1/applications", headers={**tenant.headers, "traceparent": PARENT}
    )
    assert answer.status_code == 200, answer.text
    spans = exporter.get_finished_spans()
    (request,) = [span for span in spans if span.kind == SpanKind.SERVER]
    assert request.name == "GET /v1/applications"
    assert hex_trace(request) == TRACE_ID  # the caller's trace continues
    assert request.parent is not None
    assert request.parent.span_id == 0x00F067AA0BA902B7
    attributes = dict(request.attributes or {})
    assert attributes["http.route"] == "/v1/applications"
    assert attributes["http.response.status_code"] == 200
    assert attributes["gatehouse.tenant_id"] == tenant.tenant_id
    assert attributes["gatehouse.key_id"] == tenant.key_id
    statements = [span for span in spans if "db.statement" in (span.attributes or {})]
    assert statements, [span.name for span in spans]
    assert request.context is not None
    for span in statements:
        assert hex_trace(span) == TRACE_ID
        assert span.parent is not None
        assert span.parent.span_id == request.context.span_id
        assert (span.attributes or {})["db.system"] == traced_runtime.db.dialect
    # The access line carries the trace and who asked; the key itself never.
    (line,) = access_lines(captured_logs, TRACE_ID)
    assert line["tenant_id"] == tenant.tenant_id
    assert line["key_id"] == tenant.key_id
    assert line["route"] == "/v1/applications"
    assert tenant.api_key not in str(spans[0].to_json()) + orjson.dumps(line).decode()


async def test_a_staff_request_names_the_staff_member(
    exporter: InMemorySpanExporter,
    traced_runtime: Runtime,
    traced_client: httpx.AsyncClient,
    captured_logs: list[str],
) -> None:
    staff = await make_staff(traced_runtime)
    exporter.clear()
    answer = await traced_client.get("/staff/v1/tenants", headers=staff.headers)
    assert answer.status_code == 200, answer.text
    (request,) = [s for s in exporter.get_finished_spans() if s.kind == SpanKind.SERVER]
    assert (request.attributes or {})["gatehouse.staff_id"] == staff.staff_id
    (line,) = access_lines(captured_logs, hex_trace(request))
    assert line["staff_id"] == staff.staff_id
    assert "tenant_id" not in line


async def test_an_unauthenticated_request_is_traced_without_a_principal(
    exporter: InMemorySpanExporter, traced_client: httpx.AsyncClient, captured_logs: list[str]
) -> None:
    answer = await traced_client.get("/v1/applications")
    assert answer.status_code == 401
    (request,) = [s for s in exporter.get_finished_spans() if s.kind == SpanKind.SERVER]
    assert (request.attributes or {})["http.response.status_code"] == 401
    (line,) = access_lines(captured_logs, hex_trace(request))
    assert line["status"] == 401
    assert not {"tenant_id", "key_id", "staff_id"} & set(line)


async def test_a_webhook_delivery_is_a_span_and_its_log_line_carries_the_trace(
    exporter: InMemorySpanExporter,
    traced_runtime: Runtime,
    traced_client: httpx.AsyncClient,
    captured_logs: list[str],
) -> None:
    tenant = await make_tenant(traced_runtime)
    with running_receiver(Receiver()) as receiver:
        endpoint = await create_endpoint(traced_client, tenant, receiver.url)
        await emit(traced_runtime, tenant.tenant_id)
        exporter.clear()
        stop = asyncio.Event()
        worker = DeliveryWorker(traced_runtime, poll_seconds=0.05, lease_seconds=5)
        task = asyncio.create_task(worker.run(stop))
        try:
            await wait_requests(receiver, 1)
            for _ in range(200):
                if any(s.name == "webhook delivery" for s in exporter.get_finished_spans()):
                    break
                await asyncio.sleep(0.02)
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)
    (delivery,) = [s for s in exporter.get_finished_spans() if s.name == "webhook delivery"]
    attributes = dict(delivery.attributes or {})
    assert attributes["tenant_id"] == tenant.tenant_id
    assert attributes["endpoint_id"] == endpoint["id"]
    assert attributes["http.response.status_code"] == 200
    lines = [
        orjson.loads(line)
        for line in captured_logs
        if '"webhook attempt"' in line and hex_trace(delivery) in line
    ]
    assert len(lines) == 1
    assert lines[0]["tenant_id"] == tenant.tenant_id
    assert lines[0]["trace_id"] == hex_trace(delivery)


async def test_off_nothing_is_installed(database_url: str, captured_logs: list[str]) -> None:
    assert not tracing.enabled()
    assert not tracing.configure({})  # no OTEL_* variable: off
    runtime = Runtime.build(make_settings(database_url))
    try:
        app = create_app(runtime.settings, runtime)
        assert not any(m.cls is TraceMiddleware for m in app.user_middleware)
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            before = len(captured_logs)
            assert (await c.get("/v1/applications", headers={"traceparent": PARENT})).status_code
        assert all('"trace_id"' not in line for line in captured_logs[before:])
    finally:
        await runtime.close()


def test_unset_the_specifications_default_records_every_request() -> None:
    assert tracing.sampler_of({}).get_description() == (
        "ParentBased{root:AlwaysOnSampler,remoteParentSampled:AlwaysOnSampler,"
        "remoteParentNotSampled:AlwaysOffSampler,localParentSampled:AlwaysOnSampler,"
        "localParentNotSampled:AlwaysOffSampler}"
    )
    chosen = tracing.sampler_of(
        {"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5"}
    )
    assert chosen.get_description() == "TraceIdRatioBased{0.5}"
    unset_ratio = tracing.sampler_of({"OTEL_TRACES_SAMPLER": "traceidratio"})
    assert unset_ratio.get_description() == "TraceIdRatioBased{1.0}"


async def test_a_request_not_recorded_still_logs_its_trace_id(
    database_url: str, captured_logs: list[str]
) -> None:
    memory = InMemorySpanExporter()
    assert tracing.configure({"OTEL_TRACES_SAMPLER": "parentbased_always_off"}, exporter=memory)
    runtime = Runtime.build(make_settings(database_url))
    try:
        app = create_app(runtime.settings, runtime)
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            before = len(captured_logs)
            assert (await c.get("/v1/applications")).status_code == 401
            assert memory.get_finished_spans() == ()  # not sampled: nothing recorded
            lines = [orjson.loads(line) for line in captured_logs[before:]]
            (access,) = [e for e in lines if e.get("logger") == "gatehouse.access"]
            assert len(access["trace_id"]) == 32
            # The caller sampled its trace: this request is recorded, in that trace.
            assert (await c.get("/v1/applications", headers={"traceparent": PARENT})).status_code
            (span,) = memory.get_finished_spans()
            assert hex_trace(span) == TRACE_ID
    finally:
        await runtime.close()
        tracing.shutdown()


@pytest.mark.parametrize(
    ("environ", "asked"),
    [
        ({}, []),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, ["otlp"]),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://h:4318/v1/traces"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "console"}, ["console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp,console"}, ["otlp", "console"]),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://h"}, []),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"}, []),
    ],
)
def test_which_exporters_the_environment_asks_for(
    environ: dict[str, str], asked: list[str]
) -> None:
    assert tracing.exporters_asked(environ) == asked


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER=zipkin"),
        ({"OTEL_TRACES_EXPORTER": "console,jaeger"}, "unknown exporter jaeger"),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"),
        ({"OTEL_TRACES_SAMPLER": "sometimes"}, "OTEL_TRACES_SAMPLER=sometimes"),
        (
            {"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
            "OTEL_TRACES_SAMPLER_ARG=2",
        ),
    ],
)
def test_settings_that_cannot_work_are_refused_naming_them(
    environ: dict[str, str], named: str
) -> None:
    with pytest.raises(tracing.TracingSettingsError) as refused:
        tracing.check_environment(environ)
    assert named in str(refused.value)
    assert "\n" not in str(refused.value)
