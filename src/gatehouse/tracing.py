"""OpenTelemetry traces, configured by the standard OTEL_* variables (docs/operations.md,
"Traces").

The SDK and the exporter are the optional extra `gatehouse-kyc[otel]` (the API comes with
FastAPI). Off unless an exporter is asked for: `OTEL_EXPORTER_OTLP_ENDPOINT` (or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) turns on the OTLP/HTTP exporter, and
`OTEL_TRACES_EXPORTER` names exporters outright (`otlp`, `console`, `none`). Off, nothing of
the SDK is imported and every hook below is one `is None` test: no middleware is installed
and no statement listener is registered.

On, spans are made for every request (web/edge_tracing.py), every database statement run
inside a request or a delivery, and every webhook delivery and verification callback attempt
(`outbound`), and log lines written inside a span carry its `trace_id` and `span_id`
(logs.py). Database statements outside a span (the workers' polling, the sweeps) are not
traced: each would be a trace of its own every second.

Settings that cannot work (an unknown exporter, a protocol other than http/protobuf, an
unknown sampler) are refused at start with one line naming them (`check_environment`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from gatehouse import __version__, logs

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.sdk.trace.sampling import Sampler
    from opentelemetry.trace import Span, Tracer
    from sqlalchemy import Engine

SERVICE_NAME = "gatehouse"
EXPORTERS = ("otlp", "console", "none")
PROTOCOLS = ("http/protobuf",)
SAMPLERS = (
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
)
# Without OTEL_TRACES_SAMPLER: the specification's default, every request (or delivery)
# recorded, and every one whose caller recorded it. Recording a span costs tens of
# microseconds of CPU here (creating it, then encoding and exporting it): recording every
# read roughly doubles its CPU, where one in a hundred (`parentbased_traceidratio` at 0.01)
# costs a few per cent; docs/operations.md ("Traces") says so and bench/RESULTS.md has the
# figures.
DEFAULT_SAMPLER = "parentbased_always_on"
# OTEL_TRACES_SAMPLER_ARG unset for a ratio sampler: the specification's 1.0.
DEFAULT_RATIO = 1.0
# The span attribute names of the request's principal (the same names as the log fields).
PRINCIPAL_ATTRIBUTES = ("tenant_id", "key_id", "staff_id")

_tracer: Tracer | None = None
# True inside a recorded request or outbound span: the one test a statement makes before it
# opens a span (a context variable read, where asking OpenTelemetry for the current span and
# whether it records costs some microseconds per statement).
_recording: ContextVar[bool] = ContextVar("gatehouse_span_recording", default=False)
_provider: Any = None
_NOTHING = contextlib.nullcontext()

P = ParamSpec("P")
T = TypeVar("T")


class TracingSettingsError(ValueError):
    """An OTEL_* variable this process cannot honour; the message is one line naming it."""


# The SDK and the OTLP exporter are the optional extra `gatehouse-kyc[otel]`.
OTEL_EXTRA_MISSING = (
    "{setting} asks for traces, but the OpenTelemetry SDK is not installed: install "
    "gatehouse-kyc[otel] (pip install 'gatehouse-kyc[otel]'), or build the container image "
    "with --build-arg EXTRAS=otel"
)


def sdk_installed(exporters: list[str]) -> bool:
    """The SDK, and the OTLP exporter when it is asked for, can be imported (looked up)."""
    needed = ["opentelemetry.sdk"]
    if "otlp" in exporters:
        needed.append("opentelemetry.exporter.otlp.proto.http")
    try:
        return all(importlib.util.find_spec(name) is not None for name in needed)
    except ModuleNotFoundError:  # a parent package is missing
        return False


def exporters_asked(environ: Mapping[str, str]) -> list[str]:
    """The exporters the environment asks for (empty: traces are off).

    Raises TracingSettingsError for a setting that cannot work.
    """
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    for name in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        protocol = environ.get(name, "").strip()
        if protocol and protocol not in PROTOCOLS:
            raise TracingSettingsError(
                f"{name}={protocol} is not supported: Gatehouse exports OTLP over HTTP "
                "(use http/protobuf)"
            )
    sampler = environ.get("OTEL_TRACES_SAMPLER", "").strip()
    if sampler and sampler not in SAMPLERS:
        raise TracingSettingsError(
            f"OTEL_TRACES_SAMPLER={sampler} is not a known sampler (use one of "
            + ", ".join(SAMPLERS)
            + ")"
        )
    if sampler.endswith("traceidratio"):
        _check_ratio(environ.get("OTEL_TRACES_SAMPLER_ARG", "1.0"))
    named = environ.get("OTEL_TRACES_EXPORTER", "").strip()
    if not named:
        endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
        return ["otlp"] if endpoint and endpoint.strip() else []
    asked = [part.strip().lower() for part in named.split(",") if part.strip()]
    unknown = [part for part in asked if part not in EXPORTERS]
    if unknown:
        raise TracingSettingsError(
            f"OTEL_TRACES_EXPORTER={named}: unknown exporter {', '.join(unknown)} "
            "(use otlp, console or none)"
        )
    return [part for part in asked if part != "none"]


def _check_ratio(value: str) -> None:
    try:
        ratio = float(value)
    except ValueError:
        ratio = -1.0
    if not 0.0 <= ratio <= 1.0:
        raise TracingSettingsError(
            f"OTEL_TRACES_SAMPLER_ARG={value} is not a ratio between 0 and 1"
        )


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Refuse OTEL_* settings that cannot work (every command calls this at start)."""
    environ = os.environ if environ is None else environ
    asked = exporters_asked(environ)
    if asked and not sdk_installed(asked):
        named = (
            "OTEL_TRACES_EXPORTER"
            if environ.get("OTEL_TRACES_EXPORTER")
            else ("OTEL_EXPORTER_OTLP_ENDPOINT")
        )
        raise TracingSettingsError(OTEL_EXTRA_MISSING.format(setting=named))


def configure(
    environ: Mapping[str, str] | None = None, *, exporter: SpanExporter | None = None
) -> bool:
    """Turn traces on for this process when the environment (or `exporter`, for tests) asks
    for it; whether they are on. Once on, later calls change nothing."""
    global _tracer, _provider
    if _tracer is not None:
        return True
    environ = os.environ if environ is None else environ
    check_environment(environ)
    asked = exporters_asked(environ)
    if exporter is None and not asked:
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES as usual; the name is `gatehouse` unless
    # they give one.
    resource = Resource.create({"service.version": __version__})
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    provider = TracerProvider(resource=resource, sampler=sampler_of(environ))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    for name in asked:
        provider.add_span_processor(BatchSpanProcessor(_exporter(name)))
    # Not made the global provider: libraries that trace on their own when one is set
    # (FastAPI's native telemetry among them) would add spans of their own to every request
    # and cost more than ours; the spans here are the ones documented.
    _provider = provider
    _tracer = provider.get_tracer("gatehouse", __version__)
    logs.trace_ids = current_ids
    return True


def sampler_of(environ: Mapping[str, str]) -> Sampler:
    """OTEL_TRACES_SAMPLER and its argument; unset, DEFAULT_SAMPLER (a ratio sampler without
    its argument: DEFAULT_RATIO)."""
    from opentelemetry.sdk.trace import sampling

    name = environ.get("OTEL_TRACES_SAMPLER", "").strip() or DEFAULT_SAMPLER
    ratio = float(environ.get("OTEL_TRACES_SAMPLER_ARG", "").strip() or DEFAULT_RATIO)
    chosen: dict[str, Sampler] = {
        "always_on": sampling.ALWAYS_ON,
        "always_off": sampling.ALWAYS_OFF,
        "traceidratio": sampling.TraceIdRatioBased(ratio),
        "parentbased_always_on": sampling.ParentBased(sampling.ALWAYS_ON),
        "parentbased_always_off": sampling.ParentBased(sampling.ALWAYS_OFF),
        "parentbased_traceidratio": sampling.ParentBased(sampling.TraceIdRatioBased(ratio)),
    }
    return chosen[name]


def _exporter(name: str) -> SpanExporter:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter()
    # Endpoint, headers, timeout and compression come from OTEL_EXPORTER_OTLP_* as usual.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def shutdown() -> None:
    """Export what is buffered and turn traces off (tests, and a process that stops)."""
    global _tracer, _provider
    provider, _provider, _tracer = _provider, None, None
    logs.trace_ids = None
    if provider is not None:
        provider.shutdown()


def enabled() -> bool:
    return _tracer is not None


def tracer() -> Tracer:
    if _tracer is None:
        raise RuntimeError("traces are off")
    return _tracer


def current_ids() -> tuple[str, str] | None:
    """(trace_id, span_id) of the span in progress, as hexadecimal, or None."""
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


def statement(dialect: str, sql: object) -> contextlib.AbstractContextManager[Any]:
    """A span for one database statement inside a recorded span (nothing otherwise).

    `sql` is the SQL, or a statement object whose text is made (compiled) only when the span
    is recorded: compiling costs as much as a small read.
    """
    if _tracer is None or not _recording.get():
        return _NOTHING
    from opentelemetry import trace  # imported already: the tracer is made

    text = sql if isinstance(sql, str) else str(sql)
    # A child of the current span, never made current itself (a statement has no children):
    # start_as_current_span's context switch and wrappers cost as much again per statement.
    return _StatementSpan(
        _tracer.start_span(
            _statement_name(text),
            kind=trace.SpanKind.CLIENT,
            attributes={"db.system": dialect, "db.statement": text},
        )
    )


class _StatementSpan:
    """Ends a statement's span on exit, with the error if one was raised."""

    __slots__ = ("span",)

    def __init__(self, span: Span) -> None:
        self.span = span

    def __enter__(self) -> Span:
        return self.span

    def __exit__(self, kind: Any, error: BaseException | None, _traceback: Any) -> None:
        if error is not None:
            from opentelemetry.trace import Status, StatusCode

            self.span.record_exception(error)
            self.span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
        self.span.end()


def mark_recording(span: Span) -> Token[bool] | None:
    """Note that `span`, just made current, records (its statements get spans); the token
    to reset when it ends, or None when it does not record."""
    return _recording.set(True) if span.is_recording() else None


def unmark_recording(token: Token[bool] | None) -> None:
    if token is not None:
        _recording.reset(token)


def _statement_name(sql: str) -> str:
    words = sql.lstrip().split(None, 1)
    return words[0].upper() if words else "SQL"


def instrument_engine(engine: Engine, dialect: str) -> None:
    """Statement spans for every statement the (synchronous face of an) engine runs.

    For engines whose statements run in the event loop's thread, where the request's span
    is current; does nothing while traces are off.
    """
    if _tracer is None:
        return
    from sqlalchemy import event

    key = "gatehouse_span"

    @event.listens_for(engine, "before_cursor_execute")
    def _before(conn: Any, cursor: Any, sql: str, *_args: Any) -> None:
        span = statement(dialect, sql)
        if span is not _NOTHING:
            span.__enter__()
            conn.info[key] = span

    @event.listens_for(engine, "after_cursor_execute")
    def _after(conn: Any, *_args: Any) -> None:
        span = conn.info.pop(key, None)
        if span is not None:
            span.__exit__(None, None, None)

    @event.listens_for(engine, "handle_error")
    def _error(context: Any) -> None:
        span = context.connection.info.pop(key, None) if context.connection else None
        if span is not None:
            error = context.original_exception
            span.__exit__(type(error), error, error.__traceback__)


@contextlib.contextmanager
def outbound(name: str, attributes: Mapping[str, Any]) -> Iterator[Span | None]:
    """A span for one outbound attempt (a webhook delivery, a verification callback): the
    root of its own trace, or a child of the current span."""
    if _tracer is None:
        yield None
        return
    from opentelemetry import trace

    clean = {key: value for key, value in attributes.items() if value is not None}
    kind = trace.SpanKind.PRODUCER
    with _tracer.start_as_current_span(name, kind=kind, attributes=clean) as span:
        token = mark_recording(span)
        try:
            yield span
        finally:
            unmark_recording(token)


def traced_outbound(
    name: str, attributes: Callable[..., Mapping[str, Any]]
) -> Callable[[Callable[P, Coroutine[Any, Any, T]]], Callable[P, Coroutine[Any, Any, T]]]:
    """`outbound` around every call of an async function; `attributes` gets its arguments."""

    def decorate(
        function: Callable[P, Coroutine[Any, Any, T]],
    ) -> Callable[P, Coroutine[Any, Any, T]]:
        @functools.wraps(function)
        async def traced(*args: P.args, **kwargs: P.kwargs) -> T:
            if _tracer is None:
                return await function(*args, **kwargs)
            with outbound(name, attributes(*args, **kwargs)):
                return await function(*args, **kwargs)

        return traced

    return decorate


def record_http_result(status: int | None, error: str | None) -> None:
    """The answer of the outbound call in progress, on its span."""
    if _tracer is None:
        return
    from opentelemetry import trace
    from opentelemetry.trace import Status, StatusCode

    span = trace.get_current_span()
    if status is not None:
        span.set_attribute("http.response.status_code", status)
    if error or status is None or status >= 300:
        span.set_status(Status(StatusCode.ERROR, error or f"HTTP {status}"))
