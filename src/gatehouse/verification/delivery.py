"""The callback delivery worker (docs/reference/verification.md §5.4).

One attempt, then at most 3 retries after nominal 10 s, 20 s and 40 s (times
VERIFY_CALLBACK_BACKOFF_SCALE); 2xx is success; after the fourth failure the
callback is `dropped` and stays recorded as such. Each attempt goes through
the outbound transport, so the URL rules and the 5 s / 10 s timeouts are
those of webhook deliveries. The passphrase is decrypted only to build the
body of an attempt and is never logged.

A leased queue like webhook deliveries (storage/leases.py): a claim is one
write transaction that marks due rows `delivering` until the lease ends
(`FOR UPDATE SKIP LOCKED` on PostgreSQL, the single writer on SQLite), so two
workers never send the same attempt at once, and a worker that dies leaves
its rows to be reclaimed when the lease ends. The lease end fences the
outcome: it is recorded only while the row still holds the lease it was sent
under. Time is the runtime's clock (`runtime.now()`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import ColumnElement, and_, case, func, or_, select

from gatehouse import metrics, tracing
from gatehouse.domain.verification import (
    OPEN_CALLBACK_STATUSES,
    CallbackStatus,
    retry_delay,
    with_passphrase,
)
from gatehouse.outbound.transport import PostResult, close_client, post_json
from gatehouse.runtime import Runtime
from gatehouse.storage.leases import Lease, claim_due, pause, seconds_until
from gatehouse.storage.tables.verification import VerificationCallback, VerificationClient
from gatehouse.timeutil import format_ts
from gatehouse.verification.callbacks import CALLBACKS

__all__ = ["deliver_due", "run_callback_worker", "sample_queue"]

log = logging.getLogger("gatehouse.verification.delivery")

USER_AGENT = "Gatehouse-Verification/1"
# Callbacks in flight at once: the worker claims more as soon as any attempt ends, so a
# slow receiver holds one slot, never the others' callbacks.
CONCURRENCY = 50
LEASE = timedelta(seconds=60)
IDLE_POLL_SECONDS = 1.0
MAX_ERROR = 300
# The `queue` label of this worker's metrics.
QUEUE = "verification_callbacks"


@dataclass(frozen=True, slots=True)
class ClaimedCallback:
    id: str
    client_uuid: str
    event: str
    # The number of the attempt this claim makes (attempts recorded so far, plus one).
    attempt: int
    payload: dict[str, Any]
    url: str | None
    passphrase_encrypted: str | None
    lease_until: datetime


def _due(now: datetime) -> ColumnElement[bool]:
    return or_(
        and_(
            VerificationCallback.status == CallbackStatus.PENDING,
            VerificationCallback.next_attempt_at <= now,
        ),
        and_(
            VerificationCallback.status == CallbackStatus.DELIVERING,
            VerificationCallback.lease_until <= now,
        ),
    )


async def _claim(runtime: Runtime, limit: int) -> list[ClaimedCallback]:
    lease = Lease.take(runtime.now(), LEASE)
    statement = claim_due(
        VerificationCallback,
        VerificationCallback.id,
        _due(lease.taken_at),
        order_by=[VerificationCallback.next_attempt_at, VerificationCallback.id],
        limit=limit,
        values={"status": CallbackStatus.DELIVERING, "lease_until": lease.until},
    ).returning(
        VerificationCallback.id,
        VerificationCallback.client_uuid,
        VerificationCallback.event,
        VerificationCallback.attempts,
        VerificationCallback.payload,
    )
    async with runtime.db.write() as session:
        rows = (await session.execute(statement)).all()
        if not rows:
            return []
        clients = {
            client.uuid: client
            for client in await session.scalars(
                select(VerificationClient).where(
                    VerificationClient.uuid.in_({row.client_uuid for row in rows})
                )
            )
        }
    claimed = []
    for row in rows:
        client = clients.get(row.client_uuid)
        claimed.append(
            ClaimedCallback(
                id=row.id,
                client_uuid=row.client_uuid,
                event=row.event,
                attempt=int(row.attempts) + 1,
                payload=dict(row.payload),
                url=client.callback_url if client else None,
                passphrase_encrypted=client.callback_passphrase_encrypted if client else None,
                lease_until=lease.until,
            )
        )
    return claimed


async def _attempt(runtime: Runtime, callback: ClaimedCallback) -> PostResult:
    if not callback.url or not callback.passphrase_encrypted:
        return PostResult(status=None, error="no callback registered")
    passphrase = runtime.crypto.decrypt_text(callback.passphrase_encrypted)
    body = orjson.dumps(with_passphrase(callback.payload, passphrase))
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
    # Only the status is read from the answer: no header and no body of it is used.
    return await post_json(
        callback.url,
        body,
        headers,
        allow_private=runtime.settings.webhook_allow_private_urls,
        keep_body=0,
    )


async def _record(runtime: Runtime, callback: ClaimedCallback, result: PostResult) -> str | None:
    """Record one attempt; what became of the callback (succeeded, retry, dropped), or None
    when the outcome was stale."""
    now = runtime.now()
    async with runtime.db.write() as session:
        statement = select(VerificationCallback).where(VerificationCallback.id == callback.id)
        if not runtime.db.is_sqlite:
            statement = statement.with_for_update()
        row = await session.scalar(statement)
        if (
            row is None
            or row.status != CallbackStatus.DELIVERING
            or row.lease_until != callback.lease_until
        ):
            return None  # the lease ended and the row was claimed again (or finished)
        row.attempts += 1
        error = (result.error or "")[:MAX_ERROR] or None
        entry = {
            "at": format_ts(now),
            "statusCode": result.status,
            "error": error,
            "latencyMs": result.latency_ms,
        }
        row.attempts_log = [*row.attempts_log, entry]
        row.last_status_code = result.status
        row.last_error = error
        row.lease_until = None
        if result.success:
            row.status = CallbackStatus.SUCCEEDED
            row.next_attempt_at = None
            row.completed_at = now
            return CallbackStatus.SUCCEEDED
        delay = retry_delay(row.attempts, runtime.settings.verify_callback_backoff_scale)
        if delay is None:
            row.status = CallbackStatus.DROPPED
            row.next_attempt_at = None
            row.completed_at = now
            return CallbackStatus.DROPPED
        row.status = CallbackStatus.PENDING
        row.next_attempt_at = now + timedelta(seconds=delay)
        return "retry"


@tracing.traced_outbound("verification callback", lambda _, c: {"callback_id": c.id})
async def _deliver(runtime: Runtime, callback: ClaimedCallback) -> None:
    """One attempt and its record; never raises, so one callback cannot stop the others."""
    try:
        result = await _attempt(runtime, callback)
    except Exception as exc:  # an attempt never takes the worker down
        log.exception("verification callback attempt failed", extra={"callback_id": callback.id})
        result = PostResult(status=None, error=f"internal error: {type(exc).__name__}")
    fields = {
        "callback_id": callback.id,
        "client_uuid": callback.client_uuid,
        "event": callback.event,
        "attempt": callback.attempt,
    }
    metrics.CALLBACK_ATTEMPT_SECONDS.observe(result.latency_ms / 1000)
    tracing.record_http_result(result.status, result.error)
    log.info(
        "verification callback attempt",
        extra={
            **fields,
            "http_status": result.status,
            "error": result.error,
            "latency_ms": result.latency_ms,
        },
    )
    try:
        outcome = await _record(runtime, callback, result)
    except Exception:
        # Its own transaction rolled back alone; the row keeps its lease and is sent
        # again when the lease ends.
        log.exception(
            "recording a verification callback failed; it goes out again when its lease ends",
            extra={"callback_id": callback.id},
        )
        return
    if outcome is None:
        return
    metrics.count_deliveries(QUEUE, outcome)
    if outcome == CallbackStatus.DROPPED:
        log.warning("verification callback dropped", extra=fields)


async def deliver_due(runtime: Runtime) -> int:
    """Claim due callbacks (up to CONCURRENCY) and attempt each once; how many were tried."""
    claimed = await _claim(runtime, CONCURRENCY)
    if claimed:
        await asyncio.gather(*(_deliver(runtime, callback) for callback in claimed))
    return len(claimed)


async def _seconds_to_next(runtime: Runtime, cap: float) -> float:
    async with runtime.db.read() as session:
        soonest = await session.scalar(
            select(func.min(VerificationCallback.next_attempt_at)).where(
                VerificationCallback.status == CallbackStatus.PENDING
            )
        )
    return seconds_until(soonest, runtime.now(), cap)


async def run_callback_worker(
    runtime: Runtime,
    stop: asyncio.Event,
    *,
    idle_seconds: float = IDLE_POLL_SECONDS,
    close_client_at_exit: bool = True,
) -> None:
    """Deliver callbacks until `stop` is set (registered in `gatehouse.workers`).

    Each claimed callback is attempted by its own task; when one ends, its slot is free
    and the loop looks again (a retry may be due), without waiting for the others. On
    stop, attempts under way finish and are recorded. The process's outbound client is
    closed at the end unless `close_client_at_exit` is False (`gatehouse.workers` shares it
    between workers and closes it once they have all stopped).
    """
    wake = asyncio.Event()
    unregister = CALLBACKS.register(wake)
    in_flight: set[asyncio.Task[None]] = set()

    def ended(task: asyncio.Task[None]) -> None:
        in_flight.discard(task)
        wake.set()

    try:
        while not stop.is_set():
            wake.clear()
            free = CONCURRENCY - len(in_flight)
            claimed = await _claim(runtime, free) if free > 0 else []
            for callback in claimed:
                task = asyncio.create_task(_deliver(runtime, callback))
                in_flight.add(task)
                task.add_done_callback(ended)
            if claimed and len(claimed) == free:
                continue
            await pause(wake, await _seconds_to_next(runtime, idle_seconds), stop)
    finally:
        unregister()
        if in_flight:
            await asyncio.wait(set(in_flight), timeout=30)
        if close_client_at_exit:
            await close_client()


async def sample_queue(runtime: Runtime) -> None:
    """Set the queue gauges of verification callbacks: due (a pending attempt whose time has
    come, or a lease that ended), waiting, and how long the oldest due one has been due."""
    now = runtime.now()
    due_since = case(
        (
            VerificationCallback.status == CallbackStatus.PENDING,
            VerificationCallback.next_attempt_at,
        ),
        else_=VerificationCallback.lease_until,
    )
    is_due = _due(now)
    query = select(
        func.count().filter(is_due), func.count(), func.min(due_since).filter(is_due)
    ).where(VerificationCallback.status.in_(OPEN_CALLBACK_STATUSES))
    async with runtime.db.read() as session:
        due, open_, oldest = (await session.execute(query)).one()
    metrics.record_queue(
        QUEUE,
        due=int(due or 0),
        waiting=int(open_ or 0) - int(due or 0),
        oldest_due_seconds=_age(oldest, now),
    )


def _age(since: datetime | str | None, now: datetime) -> float:
    if since is None:
        return 0.0
    if isinstance(since, str):  # SQLite returns an aggregate of an expression as text
        since = datetime.fromisoformat(since)
        if since.tzinfo is None:
            since = since.replace(tzinfo=UTC)
    return (now - since).total_seconds()
