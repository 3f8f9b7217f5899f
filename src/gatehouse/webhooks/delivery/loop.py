"""The delivery worker's schedule: at least once, fair shares of bounded concurrency
(docs/reference/webhooks.md §6.3; docs/webhooks.md, "The worker" and "Fairness").

One loop takes turns. A turn records the outcomes that came back since the last one
and claims due deliveries (claims.py) for the slots that frees and those already
free: one statement on PostgreSQL (turnover.py), one transaction on SQLite, when
every outcome is a success; a batch with failures is first written by the recorder
(recorder.py, in order per endpoint). Claimed deliveries are held under fair shares
(fair.py: at most a share of the slots per endpoint and per tenant run at once, the
rest wait here); one task per delivery it may start posts it and queues its outcome,
which wakes the loop for its next turn (a turn in progress lets outcomes pile up into
the next batch). A recorded outcome frees its slot. A worker that dies mid-attempt
leaves leased rows that become due again when the lease ends: the event is sent again
(at least once), never lost.

Wake-ups: LISTEN/NOTIFY on PostgreSQL, an in-process event for publishes made by this
process (wakeup.py), an outcome to record, and the next due time. Without LISTEN
(SQLite) the worker also looks every `poll_seconds`; with it only every
LISTEN_POLL_SECONDS, as a safety net.
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
from gatehouse.webhooks.delivery.fair import Shares, Slots
from gatehouse.webhooks.delivery.recorder import Outcome, Recorder, Tally, succeeded

log = logging.getLogger("gatehouse.webhooks")

# Leased deliveries one worker holds at most; an endpoint and a tenant get a share
# (fair.py). aiohttp's pool costs the same per request at any size.
DEFAULT_CONCURRENCY = 256
# Longer than the 10 s total timeout plus the wait for a share (two attempts' time,
# fair.py), so a live worker's attempt never overlaps a re-claim.
DEFAULT_LEASE_SECONDS = 60.0
DEFAULT_POLL_SECONDS = 1.0
# With LISTEN/NOTIFY every commit wakes the worker; this poll is only a safety net.
LISTEN_POLL_SECONDS = 10.0
HEALTH_CHECK_SECONDS = 5.0
# With fewer free slots than this (counting the outcomes to record), a turn waits
# CLAIM_LINGER_SECONDS for more outcomes: batches, not one row per finished attempt.
MIN_CLAIM_BATCH = 16
CLAIM_LINGER_SECONDS = 0.005


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
        per_endpoint: int | None = None,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        close_client_at_exit: bool = True,
    ) -> None:
        self.runtime = runtime
        # False when the process's outbound client is shared with other workers (run_workers
        # closes it once they have all stopped).
        self.close_client_at_exit = close_client_at_exit
        self.slots: Slots[Claim] = Slots(Shares.of(concurrency, per_endpoint))
        self._min_batch = min(MIN_CLAIM_BATCH, concurrency // 4)
        self.poll_seconds = poll_seconds
        if not runtime.db.is_sqlite:
            self.poll_seconds = max(poll_seconds, LISTEN_POLL_SECONDS)
        self.stats = WorkerStats()
        self.claims = Claims(runtime, timedelta(seconds=lease_seconds))
        self.recorder = Recorder(runtime)
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._next_health_check = 0.0
        self._more_due = True
        self._stopping = False
        self._unsent: list[Claim] = []

    @property
    def concurrency(self) -> int:
        return self.slots.shares.slots

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until `stop` is set, then let in-flight attempts finish and record them."""
        unregister = wakeup.register(self._wake)
        helpers = [asyncio.create_task(self._stopper(stop))]
        if not self.runtime.db.is_sqlite:
            helpers.append(
                asyncio.create_task(
                    wakeup.listen(self.runtime.settings.database_url, self._wake, stop)
                )
            )
        try:
            while not stop.is_set():
                await self._step(stop)
        finally:
            unregister()
            self._stopping = True
            await self._drain()
            for task in helpers:
                task.cancel()
            for task in helpers:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if self.close_client_at_exit:
                with contextlib.suppress(Exception):
                    await close_client()

    async def _step(self, stop: asyncio.Event) -> None:
        """One turn: record what came back and claim (or wait for outcomes, a wake-up or
        the next due time)."""
        await self._maybe_check_health()
        if 0 < self.slots.free + self.recorder.queued < self._min_batch and not stop.is_set():
            # A backlog with few free slots: let more outcomes come in first (batches,
            # not one row per finished attempt).
            await asyncio.sleep(CLAIM_LINGER_SECONDS)
        batch = self.recorder.take()
        if batch and not all(outcome.result.success for outcome in batch):
            self._recorded(batch, await self.recorder.record(batch))
            batch = []
        free = self.slots.free + len(batch)
        woken = self._wake.is_set() or self._more_due or bool(batch)
        self._wake.clear()
        if free <= 0:
            await pause(self._wake, self.poll_seconds, stop)  # an outcome sets it
            return
        # Woken by a publish, an outcome or a full batch: claim at once. Otherwise look
        # first, so an idle worker does not take the write lock every poll.
        if not woken:
            next_due = await self.claims.next_due(self.slots)
            if next_due is None or next_due > self.runtime.now():
                await pause(self._wake, self._sleep_for(next_due), stop)
                return
        claims = await self._turn(batch, free)
        self.stats.claimed += len(claims)
        for claim in self.slots.admit(claims):
            self._start(claim)
        # Rows came back: claim again at once (a claim takes at most a share per endpoint
        # and tenant, so more may be due). An empty claim leads to the wait below.
        self._more_due = bool(claims)
        if claims or self._wake.is_set():
            return
        # Nothing claimed: sleep until the next delivery of an endpoint and a tenant with
        # room falls due (not sooner than 10 ms: another worker may hold it), a publish,
        # or an outcome (which gives an endpoint or a tenant its room back).
        pause_for = self._sleep_for(await self.claims.next_due(self.slots))
        await pause(self._wake, max(pause_for, 0.01), stop)

    async def _turn(self, batch: list[Outcome], free: int) -> list[Claim]:
        """Record `batch` (successes only) and claim up to `free` in one turn; should the
        turn fail, the recorder writes the batch (outcome by outcome if need be) and the
        claim is made again on its own."""
        if not batch:
            return await self.claims.claim(free, self.slots)
        healthy = self.recorder.stale_health(sorted({o.claim.endpoint_id for o in batch}))
        leaving = [outcome.claim for outcome in batch]
        try:
            claims = await self.claims.claim(
                free,
                self.slots,
                succeeded=[succeeded(outcome) for outcome in batch],
                healthy=healthy,
                leaving=leaving,
            )
        except Exception:
            log.warning("a webhook turn failed; recording its outcomes apart", exc_info=True)
            self._recorded(batch, await self.recorder.record(batch))
            return await self.claims.claim(self.slots.free, self.slots)
        self._recorded(batch, Tally(succeeded=len(batch)))
        return claims

    async def _stopper(self, stop: asyncio.Event) -> None:
        await stop.wait()
        self._wake.set()

    def _sleep_for(self, next_due: datetime | None) -> float:
        return seconds_until(next_due, self.runtime.now(), self.poll_seconds)

    def _start(self, claim: Claim) -> None:
        task = asyncio.create_task(self._send(claim))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _recorded(self, batch: list[Outcome], tally: Tally) -> None:
        if self.slots.released([outcome.claim for outcome in batch]):
            self._wake.set()  # an endpoint or tenant has room again: its deliveries may go
        self.stats.succeeded += tally.succeeded
        self.stats.failed += tally.failed
        if tally.retried:
            self._wake.set()  # a retry may fall due before what the loop waits for
        # What the batch committed (an unrecorded outcome is sent again, and counted then).
        metrics.count_deliveries(QUEUE, "succeeded", tally.succeeded)
        metrics.count_deliveries(QUEUE, "retry", tally.retried)
        metrics.count_deliveries(QUEUE, "dead", tally.dead)
        for reason in tally.disabled:
            metrics.ENDPOINTS_DISABLED.labels(reason=reason).inc()

    async def _drain(self) -> None:
        """Wait (15 s at most) for in-flight sends, then record their outcomes. Deliveries
        still waiting for their share are given back unsent (due at once)."""
        deadline = time.monotonic() + 15
        while self._tasks and time.monotonic() < deadline:
            await asyncio.wait(set(self._tasks), timeout=deadline - time.monotonic())
        unsent = self._unsent + self.slots.take_waiting()
        if unsent:
            with contextlib.suppress(Exception):
                await self.claims.give_back(unsent)
            self.slots.released(unsent)
        while batch := self.recorder.take():
            self._recorded(batch, await self.recorder.record(batch))

    @tracing.traced_outbound("webhook delivery", lambda _self, claim: claim.log_fields())
    async def _send(self, claim: Claim) -> None:
        result = await attempt(self.runtime, claim)
        self.stats.attempted += 1
        observe(claim, result)
        self.recorder.put(Outcome(claim, result, self.runtime.now()))
        self._wake.set()  # the next turn records it
        for waiting in self.slots.finished(claim):
            if self._stopping:
                self._unsent.append(waiting)
            else:
                self._start(waiting)

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
