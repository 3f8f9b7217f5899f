"""The example receivers, fed by a real Gatehouse server: webhook test sends,
secret rotation, real events from the delivery worker, a replayed delivery
acknowledged without repeat work (docs/reference/webhooks.md §4.10, §7.1, §7.2), and verification
callbacks from the callback worker (docs/reference/verification.md)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import httpx
from gatehouse_client import Client, SqliteDedupStore, verify_callback
from tests.support.factories import StaffFixture, TenantFixture
from tests.support.live import free_port, serve_in_thread

from conftest import load_example
from gatehouse.runtime import Runtime
from gatehouse.verification.delivery import run_callback_worker
from gatehouse.webhooks.delivery import DeliveryWorker
from gatehouse.webhooks.outbox import publish

fastapi_example = load_example("fastapi_receiver")
wsgi_example = load_example("wsgi_receiver")
PASSPHRASE = "callback-passphrase-1"


async def eventually(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def wsgi_server(app: Any, port: int) -> Iterator[None]:
    server = make_server("127.0.0.1", port, app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def test_fastapi_example_verifies_test_sends_across_a_secret_rotation(
    live_server: str, tenant: TenantFixture, tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/webhooks/gatehouse"
    store = SqliteDedupStore(tmp_path / "inbox.db")
    with Client(live_server, tenant.api_key) as client:
        endpoint = client.webhooks.create(url, ["*"])
        assert endpoint.secret is not None
        old_secret = endpoint.secret

        def app() -> Any:
            return fastapi_example.create_app(
                [old_secret], store, expected_tenants=[tenant.tenant_id]
            )

        with serve_in_thread(app, port=port):
            result = client.webhooks.test(endpoint.id)
            assert result.success, result
            assert result.http_status == 200, result
            (pending,) = store.pending()
            assert json.loads(pending.payload or b"")["type"] == "webhook.test"

            rotated = client.webhooks.rotate_secret(endpoint.id)
            # The receiver still holds only the old secret: during the overlap the
            # delivery carries one v1 signature per active secret.
            after = client.webhooks.test(endpoint.id)
            assert after.success, after
            signature = {k.lower(): v for k, v in after.sent_headers.items()}["gatehouse-signature"]
            assert len(signature.split()) == 2
            assert len(store.pending()) == 2

        def wrong_app() -> Any:
            return fastapi_example.create_app(["whsec_" + "w" * 40], store)

        with serve_in_thread(wrong_app, port=port):
            refused = client.webhooks.test(endpoint.id)
            assert not refused.success
            assert refused.http_status == 401
        with serve_in_thread(
            lambda: fastapi_example.create_app([rotated.secret], store), port=port
        ):
            assert client.webhooks.test(endpoint.id).success
    store.close()


def test_wsgi_example_verifies_a_test_send(
    live_server: str, tenant: TenantFixture, tmp_path: Path
) -> None:
    port = free_port()
    with Client(live_server, tenant.api_key) as client:
        endpoint = client.webhooks.create(
            f"http://127.0.0.1:{port}/webhooks/gatehouse", ["application.*"]
        )
        store = SqliteDedupStore(tmp_path / "inbox.db")
        app = wsgi_example.make_app(
            [endpoint.secret or ""], store, expected_tenants=[tenant.tenant_id]
        )
        with wsgi_server(app, port):
            result = client.webhooks.test(endpoint.id)
            assert result.success, result
            assert result.http_status == 200, result
            assert [json.loads(p.payload or b"")["type"] for p in store.pending()] == [
                "webhook.test"
            ]
        other_tenant = wsgi_example.make_app([endpoint.secret or ""], store, expected_tenants=["x"])
        with wsgi_server(other_tenant, port):
            assert client.webhooks.test(endpoint.id).http_status == 401
        store.close()


async def test_real_events_are_accepted_once_even_when_delivered_again(
    runtime: Runtime,
    live_server: str,
    tenant: TenantFixture,
    staff: StaffFixture,
    tmp_path: Path,
) -> None:
    port = free_port()
    store = SqliteDedupStore(tmp_path / "inbox.db")
    with Client(live_server, tenant.api_key) as client:
        endpoint = await asyncio.to_thread(
            client.webhooks.create, f"http://127.0.0.1:{port}/webhooks/gatehouse", ["*"]
        )
    secret = endpoint.secret or ""
    stop = asyncio.Event()
    worker = asyncio.create_task(DeliveryWorker(runtime, poll_seconds=0.05).run(stop))
    try:
        with serve_in_thread(
            lambda: fastapi_example.create_app(
                [secret], store, expected_tenants=[tenant.tenant_id]
            ),
            port=port,
        ):
            async with runtime.db.write() as session:
                event = await publish(
                    session,
                    tenant_id=tenant.tenant_id,
                    event_type="application.submitted",
                    occurred_at=runtime.now(),
                    data={"status": "pending", "previousStatus": None},
                )
                event_id = event.id
            await eventually(lambda: store.seen(event_id))

            # Support replays the delivery: the receiver answers 2xx again, no repeat work.
            async with httpx.AsyncClient(base_url=live_server) as http:
                listed = await http.get(
                    f"/v1/webhooks/{endpoint.id}/deliveries",
                    headers={"Authorization": f"Bearer {tenant.api_key}"},
                )
                (delivery,) = listed.json()["data"]
                assert delivery["eventId"] == event_id
                replay = await http.post(
                    f"/staff/v1/deliveries/{delivery['id']}/replay", headers=staff.headers
                )
                assert replay.status_code == 201, replay.text
                replay_id = replay.json()["id"]

                async def replay_succeeded() -> bool:
                    page = await http.get(
                        f"/v1/webhooks/{endpoint.id}/deliveries",
                        headers={"Authorization": f"Bearer {tenant.api_key}"},
                    )
                    return any(
                        d["id"] == replay_id and d["status"] == "succeeded"
                        for d in page.json()["data"]
                    )

                deadline = time.monotonic() + 30
                while not await replay_succeeded():
                    assert time.monotonic() < deadline, "replay was not delivered"
                    await asyncio.sleep(0.05)
            assert [p.event_id for p in store.pending()] == [event_id]
    finally:
        stop.set()
        await asyncio.wait_for(worker, 30)
        store.close()


async def test_verification_callbacks_reach_the_example_receiver(
    runtime: Runtime, live_server: str, staff: StaffFixture, tmp_path: Path
) -> None:
    port = free_port()
    store = SqliteDedupStore(tmp_path / "inbox.db")
    stop = asyncio.Event()
    worker = asyncio.create_task(run_callback_worker(runtime, stop, idle_seconds=0.05))
    try:
        with serve_in_thread(
            lambda: fastapi_example.create_app(
                ["whsec_unused"], store, callback_passphrase=PASSPHRASE
            ),
            port=port,
        ):
            async with httpx.AsyncClient(base_url=live_server) as http:
                made = await http.post(
                    "/staff/v1/verification/clients",
                    json={"name": "KYC"},
                    headers=staff.headers,
                )
                assert made.status_code == 201, made.text
                credentials = made.json()
                registered = await http.post(
                    "/verify/clients/setWebhook/clientAuth",
                    json={
                        "clientUuid": credentials["clientUuid"],
                        "clientSecret": credentials["clientSecret"],
                        "callbackUrl": f"http://127.0.0.1:{port}/callbacks/verification",
                        "callbackPassphrase": PASSPHRASE,
                    },
                )
                assert registered.status_code == 200, registered.text
                customer = await http.post(
                    "/staff/v1/verification/customers",
                    json={
                        "clientUuid": credentials["clientUuid"],
                        "email": "kyc@example.test",
                        "phone": "+441234567890",
                    },
                    headers=staff.headers,
                )
                assert customer.status_code == 201, customer.text
                uuid = customer.json()["uuid"]
                changed = await http.post(
                    f"/staff/v1/verification/customers/{uuid}/status",
                    json={"status": 6},
                    headers=staff.headers,
                )
                assert changed.status_code == 200, changed.text
            (pending,) = await eventually(store.pending)
            callback = verify_callback(pending.payload or b"", PASSPHRASE)
            assert callback.uuid == uuid
            assert callback.new_status.is_accepted
            assert callback.event == "customer_status_changed"
    finally:
        stop.set()
        await asyncio.wait_for(worker, 30)
        store.close()
