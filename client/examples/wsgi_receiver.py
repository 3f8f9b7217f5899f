"""A plain WSGI receiver for Gatehouse webhooks (standard library plus gatehouse-kyc-client).

Run:  GATEHOUSE_WEBHOOK_SECRETS=whsec_new,whsec_old GATEHOUSE_TENANT_ID=ten_... \
      python wsgi_receiver.py        (or mount `application` in any WSGI server)

Reads the exact raw body (CONTENT_LENGTH bytes of wsgi.input), verifies it
as docs/reference/webhooks.md §7.1 says, records the event once in a SQLite inbox and answers 200
for a new event and for a repeat, 401 for a bad delivery, 500 when the event
could not be stored. Business processing happens elsewhere, from the inbox.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gatehouse_client import SqliteDedupStore, WebhookReceiver

StartResponse = Callable[[str, list[tuple[str, str]]], Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_REASONS = {
    200: "200 OK",
    401: "401 Unauthorized",
    404: "404 Not Found",
    405: "405 Method Not Allowed",
    500: "500 Internal Server Error",
}


def _headers(environ: dict[str, Any]) -> list[tuple[str, str]]:
    headers = [
        (key[5:].replace("_", "-").title(), str(value))
        for key, value in environ.items()
        if key.startswith("HTTP_")
    ]
    if environ.get("CONTENT_TYPE"):
        headers.append(("Content-Type", environ["CONTENT_TYPE"]))
    return headers


def make_app(
    secrets: Sequence[str],
    store: SqliteDedupStore,
    *,
    expected_tenants: Sequence[str] | None = None,
    path: str = "/webhooks/gatehouse",
) -> WsgiApp:
    receiver = WebhookReceiver(secrets, store, expected_tenants=expected_tenants)

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != path:
            start_response(_REASONS[404], [("Content-Length", "0")])
            return [b""]
        if environ.get("REQUEST_METHOD") != "POST":
            start_response(_REASONS[405], [("Allow", "POST"), ("Content-Length", "0")])
            return [b""]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw_body = environ["wsgi.input"].read(length) if length > 0 else b""
        receipt = receiver.receive(raw_body, _headers(environ))
        body = receipt.body
        start_response(
            _REASONS[receipt.status_code],
            [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
        )
        return [body]

    return application


if __name__ == "__main__":
    from wsgiref.simple_server import make_server

    secrets = [s for s in os.environ.get("GATEHOUSE_WEBHOOK_SECRETS", "").split(",") if s]
    tenants = [t for t in os.environ.get("GATEHOUSE_TENANT_ID", "").split(",") if t]
    app = make_app(
        secrets or ["whsec_unset"],
        SqliteDedupStore(os.environ.get("GATEHOUSE_INBOX", "gatehouse-inbox.db")),
        expected_tenants=tenants or None,
    )
    port = int(os.environ.get("PORT", "9001"))
    print(f"listening on http://127.0.0.1:{port}/webhooks/gatehouse")
    make_server("127.0.0.1", port, app).serve_forever()
