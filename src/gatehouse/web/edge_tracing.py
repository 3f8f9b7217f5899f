"""The request's span (docs/operations.md, "Traces").

Installed outside the edge (web/edge.py) only while traces are on (tracing.py), so that off
it costs nothing. The span continues the caller's trace when the request carries W3C
`traceparent` (and `tracestate`, `baggage`); it is named by the
method and the route template, never the path (a path may carry a sign-in token), and
carries the status and the principal (tenant and key, or staff member).
"""

from __future__ import annotations

from opentelemetry import context, propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gatehouse import tracing
from gatehouse.web.edge_access import principal_fields

PROPAGATION_HEADERS = frozenset({b"traceparent", b"tracestate", b"baggage"})


class TraceMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # Only the propagation headers (W3C trace context and baggage): most requests carry
        # none, and then there is nothing to extract.
        carrier = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope["headers"]
            if name in PROPAGATION_HEADERS
        }
        method = scope["method"]
        status = [0]

        async def send_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        # The span made and made current by hand (start_as_current_span's wrappers cost as
        # much again, on every request, sampled or not).
        span = tracing.tracer().start_span(
            method,
            context=propagate.extract(carrier) if carrier else None,
            kind=SpanKind.SERVER,
        )
        token = context.attach(trace.set_span_in_context(span))
        recording = tracing.mark_recording(span)
        try:
            await self.app(scope, receive, send_status)
        except BaseException as exc:
            if span.is_recording():
                span.record_exception(exc)
                span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            raise
        finally:
            if span.is_recording():
                _describe(span, scope, method, status[0])
            span.end()
            tracing.unmark_recording(recording)
            context.detach(token)


def _describe(span: trace.Span, scope: Scope, method: str, status: int) -> None:
    attributes: dict[str, str | int] = {"http.request.method": method}
    route = getattr(scope.get("route"), "path", None)
    if route is not None:
        span.update_name(f"{method} {route}")
        attributes["http.route"] = route
    if status:
        attributes["http.response.status_code"] = status
        if status >= 500:
            span.set_status(Status(StatusCode.ERROR))
    for name, value in principal_fields(scope.get("state")).items():
        attributes[f"gatehouse.{name}"] = value
    span.set_attributes(attributes)  # one call: each set_attribute takes the span's lock
