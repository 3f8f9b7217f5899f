"""A real HTTP receiver on a loopback port that verifies deliveries as docs/reference/webhooks.md
§7.1 says.

Runs uvicorn (httptools) in a background thread with a bare ASGI app. Every
request is recorded with its headers, raw body, arrival time and verdict. The
answer is chosen by `respond` (a function of the request, default 200), so a
test can script 500s, 410, 429 with Retry-After, redirects and so on.

Verification, step by step as docs/reference/webhooks.md §7.1 tells receivers:
1. secrets are opaque UTF-8 strings, used as-is;
2. HMAC-SHA256 over `<Gatehouse-Timestamp>.<raw body bytes>`, body not reparsed;
3. the header holds space-separated `v1=` values; any held secret may match;
   compared in constant time;
4. the timestamp must be integer seconds within 300 s of the receiver clock;
5. after verification the body's `id` and `type` must equal the headers and
   `tenantId` must be expected;
6. a previously accepted event id is acknowledged again without repeat work.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from tests.support.patience import patient
from tests.support.ports import free_port

TOLERANCE_SECONDS = 300


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float
    verified: bool = False
    refusal: str | None = None
    duplicate: bool = False
    status: int = 200

    @property
    def event_id(self) -> str | None:
        return self.headers.get("gatehouse-event-id")

    @property
    def attempt(self) -> int:
        return int(self.headers.get("gatehouse-attempt", "0"))

    @property
    def timestamp(self) -> int:
        return int(self.headers.get("gatehouse-timestamp", "0"))

    def json(self) -> Any:
        return json.loads(self.body)


Answer = tuple[int, dict[str, str], bytes]
Responder = Callable[[Received], Answer | int]


def verify_delivery(
    headers: dict[str, str],
    body: bytes,
    secrets: list[str],
    *,
    expected_tenants: set[str] | None = None,
    now: float | None = None,
) -> str | None:
    """docs/reference/webhooks.md §7.1 steps 1-4; None when the delivery verifies, else why not."""
    stamp = headers.get("gatehouse-timestamp", "")
    if not re.fullmatch(r"[0-9]+", stamp):
        return "timestamp is not integer seconds"
    clock = time.time() if now is None else now
    if abs(clock - int(stamp)) > TOLERANCE_SECONDS:
        return "timestamp outside tolerance"
    signed = stamp.encode() + b"." + body
    offered = [
        part[3:] for part in headers.get("gatehouse-signature", "").split(" ") if part[:3] == "v1="
    ]
    if not offered:
        return "no v1 signature"
    matched = False
    for secret in secrets:
        expected = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
        for candidate in offered:
            # Constant-time comparison; keep looping so timing does not leak which matched.
            matched = hmac.compare_digest(expected, candidate) or matched
    if not matched:
        return "signature mismatch"
    try:
        envelope = json.loads(body)
    except ValueError:
        return "body is not JSON"
    if envelope.get("id") != headers.get("gatehouse-event-id"):
        return "id differs from header"
    if envelope.get("type") != headers.get("gatehouse-event-type"):
        return "type differs from header"
    if expected_tenants is not None and envelope.get("tenantId") not in expected_tenants:
        return "unexpected tenant"
    return None


@dataclass
class Receiver:
    secrets: list[str] = field(default_factory=list)
    expected_tenants: set[str] | None = None
    respond: Responder | None = None
    verify: bool = True
    requests: list[Received] = field(default_factory=list)
    accepted_ids: set[str] = field(default_factory=set)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _arrived: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self._arrived = threading.Condition(self._lock)

    # --- the ASGI app -------------------------------------------------------
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the sender died mid-request (the crash test): nothing arrived
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        item = Received(path=scope["path"], headers=headers, body=b"".join(chunks), at=time.time())
        status, answer_headers, answer_body = self._answer(item)
        item.status = status
        with self._lock:
            self.requests.append(item)
            self._arrived.notify_all()
        raw_headers = [(k.encode(), v.encode()) for k, v in answer_headers.items()]
        raw_headers.append((b"content-length", str(len(answer_body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": answer_body})

    def _answer(self, item: Received) -> Answer:
        if self.verify and self.secrets:
            item.refusal = verify_delivery(
                item.headers, item.body, self.secrets, expected_tenants=self.expected_tenants
            )
            if item.refusal is not None:
                return 401, {}, b"bad signature"
            item.verified = True
        if self.respond is not None:
            answer = self.respond(item)
            if isinstance(answer, int):
                answer = (answer, {}, b"")
            if 200 <= answer[0] <= 299:
                self._accept(item)
            return answer
        self._accept(item)
        return 200, {"content-type": "text/plain"}, b"ok"

    def _accept(self, item: Received) -> None:
        # Step 6: atomic dedupe before acknowledging.
        with self._lock:
            if item.event_id in self.accepted_ids:
                item.duplicate = True
            elif item.event_id:
                self.accepted_ids.add(item.event_id)

    # --- helpers for tests ----------------------------------------------------
    def snapshot(self) -> list[Received]:
        with self._lock:
            return list(self.requests)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Block until `count` requests arrived (or fail the test)."""
        deadline = time.monotonic() + patient(timeout)
        with self._lock:
            while len(self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"receiver got {len(self.requests)} requests, expected {count}"
                    )
                self._arrived.wait(left)
            return list(self.requests)

    def wait_until(
        self, predicate: Callable[[list[Received]], bool], timeout: float = 10.0
    ) -> None:
        deadline = time.monotonic() + patient(timeout)
        with self._lock:
            while not predicate(self.requests):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"condition not met; got {len(self.requests)} requests")
                self._arrived.wait(left)


@contextmanager
def running_receiver(receiver: Receiver, host: str = "127.0.0.1") -> Iterator[Receiver]:
    """Serve `receiver` on a free loopback port for the duration of the block."""
    port = free_port()
    config = uvicorn.Config(
        receiver,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        lifespan="off",
        http="httptools",
        loop="asyncio",
        timeout_keep_alive=30,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("receiver did not start")
        time.sleep(0.01)
    receiver.url = f"http://{host}:{port}/hooks"
    try:
        yield receiver
    finally:
        server.should_exit = True
        thread.join(timeout=10)
