"""The callback delivery worker (spec 3 §6; CONTRACT §3).

One attempt, then at most 3 retries after nominal 10 s, 20 s and 40 s (times
VERIFY_CALLBACK_BACKOFF_SCALE); 2xx is success; after the fourth failure the
callback is `dropped` and stays recorded as such. Each attempt goes through
the webhooks transport, so the SSRF rules and the 5 s / 10 s timeouts are
those of webhook deliveries. The passphrase is decrypted only to build the
body of an attempt and is never logged.

Work is claimed in a write transaction that marks rows `delivering` with a
lease: `FOR UPDATE SKIP LOCKED` on PostgreSQL, the single writer on SQLite,
so two workers never send the same attempt at once; a worker that dies
leaves its rows to be reclaimed when the lease ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import and_, func, or_, select

from gatehouse.domain.verification import retry_delay, with_passphrase
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import VerificationCallback, VerificationClient
from gatehouse.timeutil import format_ts, utcnow
from gatehouse.verification.callbacks import forget_waker, waker
from gatehouse.webhooks.transport import PostResult, close_client, post_json

__all__ = ["deliver_due", "run_callback_worker"]

log = logging.getLogger("gatehouse.verification.delivery")

USER_AGENT = "Gatehouse-Verification/1"
BATCH = 50
LEASE = timedelta(seconds=60)
IDLE_POLL_SECONDS = 1.0
MAX_ERROR = 300


@dataclass(frozen=True, slots=True)
class ClaimedCallback:
    id: str
    client_uuid: str
    payload: dict[str, Any]
    url: str | None
    passphrase_encrypted: str | None


def _due(now: datetime) -> Any:
    return or_(
        and_(VerificationCallback.status == "pending", VerificationCallback.next_attempt_at <= now),
        and_(VerificationCallback.status == "delivering", VerificationCallback.lease_until <= now),
    )


async def _claim(runtime: Runtime) -> list[ClaimedCallback]:
    now = utcnow()
    async with runtime.db.write() as session:
        statement = (
            select(VerificationCallback)
            .where(_due(now))
            .order_by(VerificationCallback.next_attempt_at, VerificationCallback.id)
            .limit(BATCH)
        )
        if not runtime.db.is_sqlite:
            statement = statement.with_for_update(skip_locked=True)
        rows = list(await session.scalars(statement))
        if not rows:
            return []
        client_uuids = {row.client_uuid for row in rows}
        clients = {
            client.uuid: client
            for client in await session.scalars(
                select(VerificationClient).where(VerificationClient.uuid.in_(client_uuids))
            )
        }
        claimed = []
        for row in rows:
            row.status = "delivering"
            row.lease_until = now + LEASE
            client = clients.get(row.client_uuid)
            claimed.append(
                ClaimedCallback(
                    id=row.id,
                    client_uuid=row.client_uuid,
                    payload=dict(row.payload),
                    url=client.callback_url if client else None,
                    passphrase_encrypted=client.callback_passphrase_encrypted if client else None,
                )
            )
        return claimed


async def _attempt(runtime: Runtime, callback: ClaimedCallback) -> PostResult:
    if not callback.url or not callback.passphrase_encrypted:
        return PostResult(status=None, error="no callback registered")
    passphrase = runtime.crypto.decrypt_text(callback.passphrase_encrypted)
    body = orjson.dumps(with_passphrase(callback.payload, passphrase))
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
    return await post_json(
        callback.url,
        body,
        headers,
        allow_private=runtime.settings.webhook_allow_private_urls,
    )


async def _record(runtime: Runtime, callback: ClaimedCallback, result: PostResult) -> None:
    now = utcnow()
    async with runtime.db.write() as session:
        statement = select(VerificationCallback).where(VerificationCallback.id == callback.id)
        if not runtime.db.is_sqlite:
            statement = statement.with_for_update()
        row = await session.scalar(statement)
        if row is None or row.status != "delivering":
            return
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
            row.status = "succeeded"
            row.next_attempt_at = None
            row.completed_at = now
            return
        delay = retry_delay(row.attempts, runtime.settings.verify_callback_backoff_scale)
        if delay is None:
            row.status = "dropped"
            row.next_attempt_at = None
            row.completed_at = now
            log.warning(
                "verification callback dropped",
                extra={
                    "callback_id": row.id,
                    "client_uuid": row.client_uuid,
                    "attempts": row.attempts,
                },
            )
            return
        row.status = "pending"
        row.next_attempt_at = now + timedelta(seconds=delay)


async def _deliver(runtime: Runtime, callback: ClaimedCallback) -> None:
    try:
        result = await _attempt(runtime, callback)
    except Exception as exc:  # an attempt never takes the worker down
        log.exception("verification callback attempt failed", extra={"callback_id": callback.id})
        result = PostResult(status=None, error=f"internal error: {type(exc).__name__}")
    await _record(runtime, callback, result)


async def deliver_due(runtime: Runtime) -> int:
    """Claim every due callback (one batch) and attempt each once; how many were tried."""
    claimed = await _claim(runtime)
    if claimed:
        await asyncio.gather(*(_deliver(runtime, callback) for callback in claimed))
    return len(claimed)


async def _seconds_to_next(runtime: Runtime, cap: float) -> float:
    async with runtime.db.read() as session:
        soonest = await session.scalar(
            select(func.min(VerificationCallback.next_attempt_at)).where(
                VerificationCallback.status == "pending"
            )
        )
    if soonest is None:
        return cap
    return max(0.0, min(cap, (soonest - utcnow()).total_seconds()))


async def run_callback_worker(
    runtime: Runtime, stop: asyncio.Event, *, idle_seconds: float = IDLE_POLL_SECONDS
) -> None:
    """Deliver callbacks until `stop` is set (registered in `gatehouse.workers`)."""
    wake = waker(runtime)
    try:
        while not stop.is_set():
            wake.clear()
            if await deliver_due(runtime):
                continue
            pause = await _seconds_to_next(runtime, idle_seconds)
            if pause <= 0:
                continue
            stop_wait = asyncio.ensure_future(stop.wait())
            wake_wait = asyncio.ensure_future(wake.wait())
            try:
                await asyncio.wait(
                    {stop_wait, wake_wait}, timeout=pause, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                for task in (stop_wait, wake_wait):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
    finally:
        forget_waker(runtime)
        await close_client()
