"""A first case in a sandbox tenant, end to end (README: "A first case, end to end").

Run, with a sandbox tenant's API key (scopes applications:write, applications:read and
webhooks:manage) against a server that accepts local receivers
(GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS=true, development only):

    GATEHOUSE_URL=http://127.0.0.1:8001 GATEHOUSE_API_KEY=service_... python sandbox_walk.py

It serves a receiver on a loopback port (`WebhookReceiver` over a SQLite inbox, standard
library WSGI), registers it, creates an application, simulates the applicant's submission
and the approval (a proposal by an analyst and a countersignature by an mlro), and waits
until the inbox holds the verified approval and the status change to active (deliveries are
unordered, so it waits for both). Then it prints the events it received, in the
application's order, and removes the endpoint it registered.

Every run makes a new application (its email and external reference carry a run id), so it
can be run again against the same tenant; removing the endpoint keeps the tenant under its
endpoint cap.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from gatehouse_client import Client, Event, SqliteDedupStore, WebhookReceiver

PATH = "/webhooks/gatehouse"


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving(holder: dict[str, WebhookReceiver], port: int = 0) -> Iterator[str]:
    """A loopback receiver whose `WebhookReceiver` is set once the endpoint exists."""

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw_body = environ["wsgi.input"].read(length) if length > 0 else b""
        headers = [
            (key[5:].replace("_", "-"), str(value))
            for key, value in environ.items()
            if key.startswith("HTTP_")
        ]
        receiver = holder.get("receiver")
        if receiver is None or environ.get("PATH_INFO") != PATH:
            start_response("404 Not Found", [("Content-Length", "0")])
            return [b""]
        receipt = receiver.receive(raw_body, headers)
        start_response(f"{receipt.status_code} -", [("Content-Type", "application/json")])
        return [receipt.body]

    server = make_server("127.0.0.1", port, app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{PATH}"
    finally:
        server.shutdown()
        server.server_close()


def received(store: SqliteDedupStore) -> list[Event]:
    """The verified events in the inbox, in the application's order."""
    events = [
        Event.from_json(json.loads(p.payload)) for p in store.pending() if p.payload is not None
    ]
    return sorted(events, key=lambda e: e.data.get("sequence") or 0)


def delivered(events: list[Event]) -> bool:
    """Whether the approval and the status change it made have both arrived."""
    return any(e.type == "application.decision.approved" for e in events) and any(
        e.type == "application.status.changed" and e.data.get("status") == "active" for e in events
    )


def walk(base_url: str, api_key: str, inbox: Path, *, timeout: float = 30.0) -> list[Event]:
    """Provision, simulate submit and approve, and return the events the receiver verified."""
    holder: dict[str, WebhookReceiver] = {}
    store = SqliteDedupStore(inbox)
    run = secrets.token_hex(4)
    try:
        with serving(holder) as url, Client(base_url, api_key) as gh:
            endpoint = gh.webhooks.create(url, ["application.*"])
            holder["receiver"] = WebhookReceiver(endpoint.secret or "", store)
            try:
                app = gh.create_application(
                    f"ada+{run}@example.test", external_ref=f"sandbox-{run}"
                )
                gh.sandbox.simulate(app.client_id, "submit")
                approved = gh.sandbox.simulate(app.client_id, "approve", comment="Welcome")
                if not approved.is_approved:  # exactly "active"
                    raise RuntimeError(f"the simulated approval left the status {approved.status}")

                def mine() -> list[Event]:
                    return [e for e in received(store) if e.data.get("clientId") == app.client_id]

                deadline = time.monotonic() + timeout
                while not delivered(mine()):
                    if time.monotonic() > deadline:
                        raise TimeoutError("the approval was not delivered in time")
                    time.sleep(0.1)
                return mine()
            finally:
                gh.webhooks.delete(endpoint.id)
    finally:
        store.close()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        for event in walk(
            os.environ.get("GATEHOUSE_URL", "http://127.0.0.1:8000"),
            os.environ["GATEHOUSE_API_KEY"],
            Path(folder) / "inbox.db",
        ):
            print(event.environment, event.type, event.data.get("status"))
