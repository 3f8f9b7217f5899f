"""The delivery worker's schedule: at least once, bounded concurrency (docs/reference/webhooks.md
§6.3).

One loop claims due deliveries (claims.py), starts one task per claimed
delivery (at most `concurrency` at once), and hands each outcome to the
recorder (recorder.py), which commits them in batches. A worker that dies
mid-attempt leaves leased rows that become due again when the lease ends: the
event is sent again (at least once), never lost.

Wake-ups: LISTEN/NOTIFY on PostgreSQL, an in-process event for publishes made
by this process (wakeup.py), and a poll that never sleeps past the next due
time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from gatehouse import metrics, tracing
from gatehouse.outbound.transport import PostResult, close_client, post_json
from gatehouse.runtime import Runtime
from gatehouse.storage.leases import pause, seconds_until
from gatehouse.webhooks import health, rules, wakeup
from gatehouse.webhooks.delivery.claims import QUEUE, Claim, Claims
from gatehouse.webhooks.delivery.recorder import Outcome, Recorder, Tally

log = logging.getLogger("gatehouse.webhooks")

# httpcore's pool scans every connection on each request: past a few dozen
# connections that scan, not the network, bounds the rate of one process.
DEFAULT_CONCURRENCY = 48
# Longer than the 10 s total timeout, so a live worker's attempt never overlaps a re-claim.
DEFAULT_LEASE_SECONDS = 30.0
DEFAULT_POLL_SECONDS = 1.0
HEALTH_CHECK_SECONDS = 5.0


@dataclass
class WorkerStats:
    claimed: int = 0
    attempted: int = 0
    succeeded: int = 0
    failed: int = 0


class DeliveryWorker:
    def __init__(
        self,
        runtime: Runtime,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        close_client_at_exit: bool = True,
    ) -> None:
        self.runtime = runtime
        # False when the process's outbound client is shared with other workers (run_workers
        # closes it once they have all stopped).
        self.close_client_at_exit = close_client_at_exit
        self.concurrency = concurrency
        self.poll_seconds = poll_seconds
        self.stats = WorkerStats()
        self.claims = Claims(runtime, timedelta(seconds=lease_seconds))
        self.recorder = Recorder(runtime)
        self._wake = asyncio.Event()
        self._slot_freed = asyncio.Event()
        self._in_flight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._next_health_check = 0.0
        self._more_due = True

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until `stop` is set, then let in-flight attempts finish and record them."""
        unregister = wakeup.register(self._wake)
        helpers = [
            asyncio.create_task(self.recorder.run(self._recorded)),
            asyncio.create_task(self._stopper(stop)),
        ]
        if not self.runtime.db.is_sqlite:
            helpers.append(
                asyncio.create_task(
                    wakeup.listen(self.runtime.settings.database_url, self._wake, stop)
                )
            )
        try:
            while not stop.is_set():
                await self._maybe_check_health()
                free = self.concurrency - self._in_flight
                if free <= 0:
                    self._slot_freed.clear()
                    await pause(self._slot_freed, self.poll_seconds, stop)
                    continue
                woken = self._wake.is_set() or self._more_due
                self._wake.clear()
                # Woken by a publish (or a full batch): claim at once. Otherwise look
                # first, so an idle worker does not take the write lock every poll.
                if not woken:
                    next_due = await self.claims.next_due()
                    if next_due is None or next_due > self.runtime.now():
                        await pause(self._wake, self._sleep_for(next_due), stop)
                        continue
                claims = await self.claims.claim(free)
                self.stats.claimed += len(claims)
                for claim in claims:
                    self._start(claim)
                self._more_due = len(claims) == free
                if self._more_due:
                    continue
                # Sends are under way; now find when the next delivery falls due
                # (not sooner than 10 ms after an empty claim: another worker holds it).
                pause_for = self._sleep_for(await self.claims.next_due())
                await pause(self._wake, pause_for if claims else max(pause_for, 0.01), stop)
        finally:
            unregister()
            await self._drain()
            for task in helpers:
                task.cancel()
            for task in helpers:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if self.close_client_at_exit:
                with contextlib.suppress(Exception):
                    await close_client()

    async def _stopper(self, stop: asyncio.Event) -> None:
        await stop.wait()
        self._wake.set()
        self._slot_freed.set()

    def _sleep_for(self, next_due: datetime | None) -> float:
        return seconds_until(next_due, self.runtime.now(), self.poll_seconds)

    def _start(self, claim: Claim) -> None:
        self._in_flight += 1
        task = asyncio.create_task(self._send(claim))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _recorded(self, count: int, tally: Tally) -> None:
        self._in_flight -= count
        self.stats.succeeded += tally.succeeded
        self.stats.failed += tally.failed
        self._slot_freed.set()
        # What the batch committed (an unrecorded outcome is sent again, and counted then).
        metrics.count_deliveries(QUEUE, "succeeded", tally.succeeded)
        metrics.count_deliveries(QUEUE, "retry", tally.retried)
        metrics.count_deliveries(QUEUE, "dead", tally.dead)
        for reason in tally.disabled:
            metrics.ENDPOINTS_DISABLED.labels(reason=reason).inc()

    async def _drain(self) -> None:
        """Wait (15 s at most each) for in-flight sends, then for their outcomes' recording."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=15)
        deadline = time.monotonic() + 15
        while self._in_flight > 0 and time.monotonic() < deadline:
            self._slot_freed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._slot_freed.wait(), 0.5)

    @tracing.traced_outbound("webhook delivery", lambda _self, claim: claim.log_fields())
    async def _send(self, claim: Claim) -> None:
        result = await attempt(self.runtime, claim)
        self.stats.attempted += 1
        observe(claim, result)
        self.recorder.put(Outcome(claim, result, self.runtime.now()))

    async def _maybe_check_health(self) -> None:
        """`failing_24h` without new dead deliveries, every HEALTH_CHECK_SECONDS."""
        if time.monotonic() < self._next_health_check:
            return
        self._next_health_check = time.monotonic() + HEALTH_CHECK_SECONDS
        try:
            disabled = await health.disable_failing_endpoints(self.runtime)
            if disabled:
                metrics.ENDPOINTS_DISABLED.labels(reason=rules.REASON_FAILING_24H).inc(disabled)
        except Exception:
            log.exception("webhook endpoint health check failed")


async def attempt(runtime: Runtime, claim: Claim) -> PostResult:
    """Post one claimed delivery, signed for this attempt. Never raises."""
    try:
        headers = rules.delivery_headers(
            event_id=claim.event_id,
            event_type=claim.event_type,
            timestamp=int(time.time()),
            attempt=claim.attempt,
            body=claim.body,
            active_secrets=claim.secrets,
        )
        return await post_json(
            claim.url,
            claim.body,
            headers,
            allow_private=runtime.settings.webhook_allow_private_urls,
            keep_body=0,  # response bodies of real events are not stored
        )
    except Exception as exc:  # post_json returns errors; this is a bug guard
        log.exception("webhook attempt crashed")
        return PostResult(status=None, error=f"internal error: {type(exc).__name__}")


def observe(claim: Claim, result: PostResult) -> None:
    """Count one attempt and log it: ids, attempt number, status or error, latency."""
    metrics.observe_webhook_attempt(result.status, result.latency_ms)
    tracing.record_http_result(result.status, result.error)
    log.info(
        "webhook attempt",
        extra={
            **claim.log_fields(),
            "http_status": result.status,
            "error": result.error,
            "latency_ms": result.latency_ms,
        },
    )


async def run_delivery_worker(runtime: Runtime, stop: asyncio.Event) -> None:
    """The `webhooks` worker registered in `gatehouse.workers` (which closes the shared
    outbound client once every worker has stopped)."""
    if runtime.settings.webhook_allow_private_urls:
        log.warning(
            "GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS is set: webhook receivers may be private "
            "addresses (development and tests only)"
        )
    await DeliveryWorker(runtime, close_client_at_exit=False).run(stop)
