"""Fixtures of the verification tests: the callback worker, real loopback
receivers (the documented example receiver and a raw recorder), and a small
driver for the staff and /verify routes."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from gatehouse.verification.delivery import run_callback_worker
from tests.support.factories import StaffFixture
from tests.support.live import serve_in_thread
from tests.support.patience import patient
from tests.verification.example_receiver import CallbackReceiver, CustomerBook

PASSPHRASE = "correct-horse-battery"


async def eventually(check: Callable[[], Any], timeout: float = 5.0, interval: float = 0.02) -> Any:
    """Poll `check` (sync or async) until it returns something truthy."""
    deadline = time.monotonic() + patient(timeout)
    while True:
        value = check()
        if isinstance(value, Awaitable):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(interval)


@pytest.fixture
async def worker(runtime: Runtime) -> AsyncIterator[None]:
    """The real callback worker, polling fast."""
    stop = asyncio.Event()
    task = asyncio.create_task(run_callback_worker(runtime, stop, idle_seconds=0.05))
    yield
    stop.set()
    await asyncio.wait_for(task, 5)


@dataclass
class LiveReceiver:
    url: str
    app: CallbackReceiver
    book: CustomerBook


@pytest.fixture
def receiver() -> Iterator[LiveReceiver]:
    """The documented example receiver on a loopback port, expecting PASSPHRASE."""
    book = CustomerBook()
    app = CallbackReceiver(PASSPHRASE, book.apply)
    with serve_in_thread(lambda: app) as base:  # type: ignore[arg-type,return-value]
        yield LiveReceiver(base + "/gatehouse/callbacks", app, book)


@dataclass
class Recorded:
    body: bytes
    headers: dict[str, str]
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Recorder:
    """A raw receiver: records every request, answers `status` (scriptable)."""

    status: int = 200
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                kind = message["type"].replace("lifespan.", "")
                await send({"type": f"lifespan.{kind}.complete"})
                if kind == "shutdown":
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        with self.lock:
            self.requests.append(Recorded(body, headers, time.monotonic()))
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": b""})


@dataclass
class LiveRecorder:
    url: str
    app: Recorder


@pytest.fixture
def recorder() -> Iterator[LiveRecorder]:
    app = Recorder()
    with serve_in_thread(lambda: app) as base:  # type: ignore[arg-type,return-value]
        yield LiveRecorder(base + "/hook", app)


def basic(client_uuid: str, secret: str) -> dict[str, str]:
    token = base64.b64encode(f"{client_uuid}:{secret}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@dataclass
class Verification:
    """Drives the staff and /verify routes the way an operator and a client would."""

    http: httpx.AsyncClient
    staff: StaffFixture

    async def create_client(self, name: str = "Acme KYC", **extra: Any) -> dict[str, Any]:
        response = await self.http.post(
            "/staff/v1/verification/clients",
            json={"name": name, **extra},
            headers=self.staff.headers,
        )
        assert response.status_code == 201, response.text
        return dict(response.json())

    async def register(
        self, client: dict[str, Any], url: str, passphrase: str = PASSPHRASE
    ) -> httpx.Response:
        return await self.http.post(
            "/verify/clients/setWebhook/clientAuth",
            json={
                "clientUuid": client["clientUuid"],
                "clientSecret": client["clientSecret"],
                "callbackUrl": url,
                "callbackPassphrase": passphrase,
            },
        )

    async def create_customer(
        self, client: dict[str, Any], expect: int = 201, **fields: Any
    ) -> dict[str, Any]:
        body = {
            "clientUuid": client["clientUuid"],
            "email": "Ann.Lee@Example.com",
            "phone": "+971500000001",
            **fields,
        }
        response = await self.http.post(
            "/staff/v1/verification/customers", json=body, headers=self.staff.headers
        )
        assert response.status_code == expect, response.text
        return dict(response.json())

    async def set_status(self, customer_uuid: str, status: Any, **extra: Any) -> httpx.Response:
        return await self.http.post(
            f"/staff/v1/verification/customers/{customer_uuid}/status",
            json={"status": status, **extra},
            headers=self.staff.headers,
        )

    async def sweep(self) -> dict[str, Any]:
        response = await self.http.post("/staff/v1/verification/sweep", headers=self.staff.headers)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def callbacks(self, **params: str) -> list[dict[str, Any]]:
        response = await self.http.get(
            "/staff/v1/verification/callbacks", params=params, headers=self.staff.headers
        )
        assert response.status_code == 200, response.text
        return list(response.json()["data"])


@pytest.fixture
def verification(client: httpx.AsyncClient, staff: StaffFixture) -> Verification:
    return Verification(client, staff)
