"""An OTLP/HTTP trace receiver for the tests: `python -m tests.support.otlp_receiver OUT`.

It listens on a free loopback port (printed on its first line of stdout), accepts
`POST /v1/traces` in the protobuf encoding, decodes each request with opentelemetry-proto
and appends one JSON line per span to OUT: its trace, span and parent ids (hexadecimal), name,
kind, attributes and the resource's attributes. It answers 200 with an empty
ExportTraceServiceResponse, and 404 to anything else.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

_LOCK = threading.Lock()


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return (
        getattr(value, kind)
        if kind in ("string_value", "int_value", "bool_value", "double_value")
        else str(value)
    )


def _attributes(pairs: list[KeyValue]) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def spans_of(body: bytes) -> list[dict[str, Any]]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    found = []
    for resource_spans in request.resource_spans:
        resource = _attributes(list(resource_spans.resource.attributes))
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                found.append(
                    {
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex(),
                        "name": span.name,
                        "kind": span.kind,
                        "attributes": _attributes(list(span.attributes)),
                        "resource": resource,
                    }
                )
    return found


def serve(out: Path) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path != "/v1/traces":
                self.send_response(404)
                self.end_headers()
                return
            lines = "".join(json.dumps(span) + "\n" for span in spans_of(body))
            with _LOCK, out.open("a") as sink:
                sink.write(lines)
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
