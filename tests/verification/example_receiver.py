"""An example receiver for Gatehouse verification callbacks (docs/reference/verification.md §5.3,
§5.2).

Documented in `docs/verification-receiver.md`; the verification tests run it on
a real loopback port and send it real callbacks. It is a plain ASGI app with
no dependencies beyond the standard library, so it can be copied into any
ASGI server (uvicorn, hypercorn, granian) or translated to another stack.

What it does, in the order docs/reference/verification.md §5.3 asks:
1. read the JSON body (at most 64 KiB; anything else is 400);
2. compare `passphrase` with the registered callbackPassphrase in constant
   time (`hmac.compare_digest`); a mismatch is 401 and nothing else happens;
3. put the update on an in-process queue and answer 202 at once: the slow
   work (database writes, emails) runs in a background task, so Gatehouse
   never waits for it and never times out;
4. the background task applies the update: known codes move the customer's
   record, unknown or reserved codes (docs/reference/verification.md §3: "handle unrecognized codes
   defensively") are held for manual review and never treated as a decision;
   an update older than the one already applied is ignored (callbacks may
   arrive out of order after retries), and an exact repeat is a no-op.

The passphrase comes from configuration (an environment variable in a real
deployment), is never logged, and is rotated by registering a new one with
`POST {verify_api_url}/clients/setWebhook/clientAuth` and then updating the
receiver's configuration (accept both during the switch, see the docs).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("example_receiver")

MAX_BODY = 64 * 1024

# docs/reference/verification.md §3: the codes Gatehouse sends, and what a receiver does with each.
STATUS_ACTIONS: dict[int, str] = {
    2: "reverify",  # Draft: re-verification required (document expiry, dashboard)
    5: "wait",  # Pending: verifying and screening
    6: "accept",  # Accepted: passed all checks
    7: "reject",  # Rejected: did not pass
    9: "wait",  # Conflict: held for review
    10: "wait",  # Duplicate: held for review
}
KNOWN_EVENTS = frozenset({"customer_status_changed", "customer_created", "expiry_warning"})


@dataclass(frozen=True)
class StatusUpdate:
    """One verified callback, as the receiver's own code sees it."""

    customer_uuid: str
    customer_id: Any
    new_status: Any
    event: str
    updated_at: str
    expiry_warning_for: tuple[str, ...]
    raw: dict[str, Any] = field(repr=False)

    @property
    def action(self) -> str:
        """What to do; `review` for any code or event this receiver does not know."""
        if self.event not in KNOWN_EVENTS:
            return "review"
        if self.event == "expiry_warning":
            return "remind"
        status = self.new_status
        if type(status) is not int or status not in STATUS_ACTIONS:
            return "review"
        return STATUS_ACTIONS[status]


def passphrase_matches(received: object, expected: str | Sequence[str]) -> bool:
    """Constant-time comparison against the registered passphrase(s).

    Several expected values are allowed so a rotation can accept the old and
    the new passphrase for a while; every candidate is compared, so timing
    does not tell which one (if any) matched.
    """
    if not isinstance(received, str):
        return False
    candidates = [expected] if isinstance(expected, str) else list(expected)
    matched = False
    for candidate in candidates:
        matched |= hmac.compare_digest(received.encode(), candidate.encode())
    return matched


def parse_update(payload: object) -> StatusUpdate | None:
    """The update in a verified body, or None when the body lacks what we act on."""
    if not isinstance(payload, dict):
        return None
    customer_uuid = payload.get("uuid")
    event = payload.get("event")
    updated_at = payload.get("updatedAt")
    if not isinstance(customer_uuid, str) or not customer_uuid:
        return None
    if not isinstance(event, str) or not isinstance(updated_at, str):
        return None
    warned = payload.get("expiryWarningFor") or []
    if not isinstance(warned, list):
        warned = []
    return StatusUpdate(
        customer_uuid=customer_uuid,
        customer_id=payload.get("id"),
        new_status=payload.get("newStatus"),
        event=event,
        updated_at=updated_at,
        expiry_warning_for=tuple(str(w) for w in warned),
        raw=payload,
    )


@dataclass
class CustomerBook:
    """The receiver's own record of each customer (a database table in real life)."""

    status: dict[str, int] = field(default_factory=dict)
    updated_at: dict[str, str] = field(default_factory=dict)
    reminders: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    for_review: list[StatusUpdate] = field(default_factory=list)
    applied: list[StatusUpdate] = field(default_factory=list)

    async def apply(self, update: StatusUpdate) -> str:
        """Act on one update; returns what was done (for logs and tests)."""
        action = update.action
        if action == "review":
            # Never guess: an unknown or reserved code is not a decision.
            self.for_review.append(update)
            log.warning("callback held for review", extra={"customer": update.customer_uuid})
            return "review"
        if action == "remind":
            self.reminders.append((update.customer_uuid, update.expiry_warning_for))
            return "remind"
        last = self.updated_at.get(update.customer_uuid)
        # RFC 3339 UTC timestamps of one format sort as strings.
        if last is not None and update.updated_at < last:
            return "stale"
        if last == update.updated_at and self.status.get(update.customer_uuid) == update.new_status:
            return "repeat"
        self.status[update.customer_uuid] = int(update.new_status)
        self.updated_at[update.customer_uuid] = update.updated_at
        self.applied.append(update)
        return action


Handler = Callable[[StatusUpdate], Awaitable[object]]


class CallbackReceiver:
    """ASGI app answering every POST as docs/reference/verification.md §5.3 asks a receiver to.

    `passphrase` is the registered callbackPassphrase (or several during a
    rotation); `handler` runs in the background for each accepted update.
    """

    def __init__(self, passphrase: str | Sequence[str], handler: Handler) -> None:
        self._passphrase = passphrase
        self._handler = handler
        self._queue: asyncio.Queue[StatusUpdate] | None = None
        self._worker: asyncio.Task[None] | None = None
        self.accepted = 0
        self.refused = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["method"] != "POST":
            await _answer(send, 405, {"message": "use POST"}, [(b"allow", b"POST")])
            return
        body = await _read_body(receive)
        if body is None:
            await _answer(send, 413, {"message": "body too large"})
            return
        try:
            payload = json.loads(body)
        except ValueError:
            await _answer(send, 400, {"message": "body is not JSON"})
            return
        secret = payload.get("passphrase") if isinstance(payload, dict) else None
        if not passphrase_matches(secret, self._passphrase):
            self.refused += 1
            await _answer(send, 401, {"message": "passphrase mismatch"})
            return
        update = parse_update(payload)
        if update is None:
            await _answer(send, 400, {"message": "missing uuid, event or updatedAt"})
            return
        self._ensure_worker()
        assert self._queue is not None
        self._queue.put_nowait(update)
        self.accepted += 1
        await _answer(send, 202, {"message": "accepted"})

    def _ensure_worker(self) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._process())

    async def _process(self) -> None:
        assert self._queue is not None
        while True:
            update = await self._queue.get()
            try:
                await self._handler(update)
            except Exception:
                # A failing handler must not stop later updates; real code retries.
                log.exception("callback handler failed", extra={"customer": update.customer_uuid})
            finally:
                self._queue.task_done()

    async def drain(self) -> None:
        """Wait until every accepted update has been processed."""
        if self._queue is not None:
            await self._queue.join()

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._ensure_worker()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._worker is not None:
                    self._worker.cancel()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _read_body(receive: Any) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def _answer(
    send: Any, status: int, content: dict[str, str], extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps(content).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send(
        {"type": "http.response.start", "status": status, "headers": headers + (extra or [])}
    )
    await send({"type": "http.response.body", "body": body})
