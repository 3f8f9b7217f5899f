"""A FastAPI receiver for Gatehouse webhooks and verification callbacks.

Run:  GATEHOUSE_WEBHOOK_SECRETS=whsec_... GATEHOUSE_TENANT_ID=ten_... \
      GATEHOUSE_CALLBACK_PASSPHRASE=... uvicorn fastapi_receiver:app

- POST /webhooks/gatehouse: verifies the raw body (docs/reference/webhooks.md §7.1), records the
  event once in a SQLite inbox, answers 200 (also for a repeat), 401 for a
  bad delivery, 500 when the event could not be stored.
- POST /callbacks/verification: checks the passphrase in constant time
  (docs/reference/verification.md §5.3) and answers 2xx quickly; status changes go to the same
  inbox.
- A worker drains the inbox (`process_inbox`) and reads current state with
  the API, since events are hints, not state (docs/reference/webhooks.md §7.2).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from fastapi import FastAPI, Request, Response
from gatehouse_client import (
    CallbackError,
    SqliteDedupStore,
    WebhookReceiver,
    verify_callback,
)
from starlette.concurrency import run_in_threadpool


def create_app(
    secrets: Sequence[str],
    store: SqliteDedupStore,
    *,
    expected_tenants: Sequence[str] | None = None,
    callback_passphrase: str | None = None,
) -> FastAPI:
    receiver = WebhookReceiver(secrets, store, expected_tenants=expected_tenants)
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.post("/webhooks/gatehouse")
    async def gatehouse_webhook(request: Request) -> Response:
        raw_body = await request.body()  # the exact bytes: never parse before verifying
        # The store writes to disk: keep that off the event loop.
        receipt = await run_in_threadpool(receiver.receive, raw_body, request.headers.items())
        return Response(receipt.body, receipt.status_code, media_type="application/json")

    @app.post("/callbacks/verification")
    async def verification_callback(request: Request) -> Response:
        if not callback_passphrase:
            return Response(status_code=404)
        try:
            callback = verify_callback(await request.body(), callback_passphrase)
        except CallbackError as exc:
            return Response(status_code=exc.status_code)
        # Callbacks carry no id: a customer's status at a time is the identity.
        key = f"verification:{callback.uuid}:{callback.event}:{callback.updated_at_text}"
        key += f":{int(callback.new_status)}"
        try:
            await run_in_threadpool(store.accept, key, await request.body())
        except Exception:
            return Response(status_code=500)
        return Response(status_code=204)

    return app


def _from_environment() -> FastAPI:
    secrets = [s for s in os.environ.get("GATEHOUSE_WEBHOOK_SECRETS", "").split(",") if s]
    tenants = [t for t in os.environ.get("GATEHOUSE_TENANT_ID", "").split(",") if t]
    store = SqliteDedupStore(os.environ.get("GATEHOUSE_INBOX", "gatehouse-inbox.db"))
    return create_app(
        secrets or ["whsec_unset"],
        store,
        expected_tenants=tenants or None,
        callback_passphrase=os.environ.get("GATEHOUSE_CALLBACK_PASSPHRASE"),
    )


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(_from_environment(), host="127.0.0.1", port=int(os.environ.get("PORT", "9000")))
