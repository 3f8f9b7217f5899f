"""A receiver that records each delivery's exact body and headers (standard library
WSGI server on a loopback port), for live tests that verify them afterwards."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server


@dataclass
class Captured:
    body: bytes
    headers: list[tuple[str, str]]

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def only(self, *prefixes: str) -> list[tuple[str, str]]:
        """The headers whose names start with one of `prefixes` (case-insensitive)."""
        wanted = tuple(p.lower() for p in prefixes)
        return [(k, v) for k, v in self.headers if k.lower().startswith(wanted)]


@dataclass
class CaptureReceiver:
    deliveries: list[Captured] = field(default_factory=list)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        headers = [
            (key[5:].replace("_", "-").title(), str(value))
            for key, value in environ.items()
            if key.startswith("HTTP_")
        ]
        self.deliveries.append(Captured(body, headers))
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b'{"received": true}']


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def capturing(port: int) -> Iterator[CaptureReceiver]:
    receiver = CaptureReceiver()
    server = make_server("127.0.0.1", port, receiver, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
