"""The delivery worker: at-least-once, bounded concurrency, leased claims (spec 2 §6.3).

One loop claims due deliveries in a write transaction — on PostgreSQL with
`FOR UPDATE SKIP LOCKED`, on SQLite with the same guarded `UPDATE … RETURNING`
under the single-writer lock — incrementing `attempts` and setting a lease
(`claim_token`, `lease_until`, and `next_attempt_at` moved to the lease end)
before anything is sent. Each claimed delivery is then posted by its own task
(at most `concurrency` at once), and a recorder task commits outcomes in
batches, each update guarded by the claim token. A worker that dies
mid-attempt leaves leased rows that become due again when the lease ends:
the event is sent again (at least once), never lost.

Wake-ups: LISTEN/NOTIFY on PostgreSQL, an in-process event for publishes
made by this process, and a poll that never sleeps past the next due time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Table,
    and_,
    bindparam,
    func,
    literal,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.base import UTCDateTime
from gatehouse.storage.tables.core import Event
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint, WebhookSecret
from gatehouse.webhooks import health, rules, wakeup
from gatehouse.webhooks.transport import PostResult, close_client, post_json

log = logging.getLogger("gatehouse.webhooks")

# httpcore's pool scans every connection on each request: past a few dozen
# connections that scan, not the network, bounds the rate of one process.
DEFAULT_CONCURRENCY = 48
# Longer than the 10 s total timeout, so a live worker's attempt never overlaps a re-claim.
DEFAULT_LEASE_SECONDS = 30.0
DEFAULT_POLL_SECONDS = 1.0
HEALTH_CHECK_SECONDS = 5.0
MAX_RECORD_BATCH = 500
_NEXT_DUE = select(func.min(Delivery.next_attempt_at)).where(Delivery.status == "pending")
_DELIVERIES: Table = Delivery.__table__  # type: ignore[assignment]


@dataclass
class Claim:
    """One attempt this worker holds the lease for."""

    delivery_id: str
    event_id: str
    event_type: str
    endpoint_id: str
    attempt: int
    first_attempt_at: datetime
    token: str
    url: str = ""
    body: bytes = b""
    secrets: tuple[str, ...] = ()


@dataclass
class Outcome:
    claim: Claim
    result: PostResult
    finished_at: datetime


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
    ) -> None:
        self.runtime = runtime
        self.concurrency = concurrency
        self.lease = timedelta(seconds=lease_seconds)
        self.poll_seconds = poll_seconds
        self.stats = WorkerStats()
        self._wake = asyncio.Event()
        self._slot_freed = asyncio.Event()
        self._outcomes: asyncio.Queue[Outcome] = asyncio.Queue()
        self._in_flight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._next_health_check = 0.0
        self._more_due = True
        self._secrets: dict[str, str] = {}

    # --- the loop -------------------------------------------------------------
    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until `stop` is set, then let in-flight attempts finish and record them."""
        unregister = wakeup.register(self._wake)
        helpers = [
            asyncio.create_task(self._record_loop()),
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
                    await self._wait(self._slot_freed, self.poll_seconds, stop)
                    continue
                woken = self._wake.is_set() or self._more_due
                self._wake.clear()
                # Woken by a publish (or a full batch): claim at once. Otherwise look
                # first, so an idle worker does not take the write lock every poll.
                if not woken:
                    next_due = await self._next_due()
                    if next_due is None or next_due > self.runtime.now():
                        await self._wait(self._wake, self._sleep_for(next_due), stop)
                        continue
                claims = await self._claim(free)
                for claim in claims:
                    self._start(claim)
                self._more_due = len(claims) == free
                if self._more_due:
                    continue
                # Sends are under way; now find when the next delivery falls due
                # (not sooner than 10 ms after an empty claim: another worker holds it).
                pause = self._sleep_for(await self._next_due())
                await self._wait(self._wake, pause if claims else max(pause, 0.01), stop)
        finally:
            unregister()
            await self._drain()
            for task in helpers:
                task.cancel()
            for task in helpers:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            with contextlib.suppress(Exception):
                await close_client()

    async def _stopper(self, stop: asyncio.Event) -> None:
        await stop.wait()
        self._wake.set()
        self._slot_freed.set()

    @staticmethod
    async def _wait(event: asyncio.Event, timeout: float, stop: asyncio.Event) -> None:
        if stop.is_set() or timeout <= 0:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    def _sleep_for(self, next_due: datetime | None) -> float:
        if next_due is None:
            return self.poll_seconds
        until = (next_due - self.runtime.now()).total_seconds()
        return max(0.0, min(self.poll_seconds, until))

    def _start(self, claim: Claim) -> None:
        self._in_flight += 1
        task = asyncio.create_task(self._send(claim))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drain(self) -> None:
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=15)
        deadline = time.monotonic() + 15
        while self._in_flight > 0 and time.monotonic() < deadline:
            self._slot_freed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._slot_freed.wait(), 0.5)

    # --- claiming ---------------------------------------------------------------
    async def _next_due(self) -> datetime | None:
        """When the earliest pending delivery (or expiring lease) falls due."""
        async with self.runtime.db.read() as session:
            return await session.scalar(_NEXT_DUE)

    async def _claim(self, limit: int) -> list[Claim]:
        """Lease up to `limit` due deliveries, with what sending them needs."""
        now = self.runtime.now()
        token = new_id("clm")
        lease_end = now + self.lease
        async with self.runtime.db.write() as session:
            due = (
                select(Delivery.id)
                .where(Delivery.status == "pending", Delivery.next_attempt_at <= now)
                .order_by(Delivery.next_attempt_at)
                .limit(limit)
                .with_for_update(skip_locked=True)
                # A CTE runs once: an `IN (subquery)` may be re-run by the planner
                # and, skipping its own locks, claim far more than `limit` rows.
                .cte("due")
            )
            stmt = (
                update(Delivery)
                .where(Delivery.id == due.c.id, Delivery.status == "pending")
                .values(
                    attempts=Delivery.attempts + 1,
                    claim_token=token,
                    lease_until=lease_end,
                    next_attempt_at=lease_end,
                    last_attempt_at=now,
                    first_attempt_at=func.coalesce(
                        Delivery.first_attempt_at, literal(now, UTCDateTime())
                    ),
                )
                .returning(
                    Delivery.id,
                    Delivery.event_id,
                    Delivery.event_type,
                    Delivery.endpoint_id,
                    Delivery.attempts,
                    Delivery.first_attempt_at,
                )
                .execution_options(synchronize_session=False)
            )
            if not self.runtime.db.is_sqlite:
                # PostgreSQL: the event body, the endpoint and its active secrets come
                # back from the claim itself (one round trip). SQLite's RETURNING
                # cannot name joined tables; its extra queries cost no network.
                claims = await self._claim_with_targets(session, stmt, token, now)
            else:
                rows = (await session.execute(stmt)).all()
                claims = [_claim_from_row(row, token, now) for row in rows]
                if claims:
                    claims = await self._load_targets(session, claims, now)
        self.stats.claimed += len(claims)
        return claims

    async def _claim_with_targets(
        self, session: AsyncSession, stmt: Any, token: str, now: datetime
    ) -> list[Claim]:
        from sqlalchemy.dialects.postgresql import aggregate_order_by

        active_secrets = (
            select(
                func.string_agg(
                    WebhookSecret.id + " " + WebhookSecret.secret_encrypted,
                    aggregate_order_by(literal_column("'|'"), WebhookSecret.generation.desc()),
                )
            )
            .where(
                WebhookSecret.endpoint_id == Delivery.endpoint_id,
                or_(WebhookSecret.expires_at.is_(None), WebhookSecret.expires_at > now),
            )
            .correlate(Delivery)
            .scalar_subquery()
        )
        stmt = stmt.where(
            Event.id == Delivery.event_id, WebhookEndpoint.id == Delivery.endpoint_id
        ).returning(
            Event.body,
            WebhookEndpoint.url,
            WebhookEndpoint.status,
            WebhookEndpoint.deleted_at,
            active_secrets,
        )
        ready: list[Claim] = []
        for row in (await session.execute(stmt)).all():
            claim = _claim_from_row(row, token, now)
            if row[9] is not None:
                await self._retire(session, claim, "cancelled", "endpoint deleted")
            elif row[8] != "enabled":
                await self._retire(session, claim, "dead", "endpoint disabled")
            else:
                claim.body = row[6].encode()
                claim.url = row[7]
                claim.secrets = tuple(
                    self._secret(*entry.split(" ", 1))
                    for entry in (row[10] or "").split("|")
                    if entry
                )
                ready.append(claim)
        return ready

    async def _load_targets(
        self, session: AsyncSession, claims: list[Claim], now: datetime
    ) -> list[Claim]:
        """Fill in body, URL and secrets; retire claims whose endpoint is gone or disabled."""
        event_ids = {c.event_id for c in claims}
        endpoint_ids = {c.endpoint_id for c in claims}
        bodies = dict(
            (
                await session.execute(select(Event.id, Event.body).where(Event.id.in_(event_ids)))
            ).all()
        )
        # Endpoints and their active secrets (newest first) in one round trip.
        active_secret = and_(
            WebhookSecret.endpoint_id == WebhookEndpoint.id,
            or_(WebhookSecret.expires_at.is_(None), WebhookSecret.expires_at > now),
        )
        rows = (
            await session.execute(
                select(
                    WebhookEndpoint.id,
                    WebhookEndpoint.url,
                    WebhookEndpoint.status,
                    WebhookEndpoint.deleted_at,
                    WebhookSecret.id,
                    WebhookSecret.secret_encrypted,
                )
                .outerjoin(WebhookSecret, active_secret)
                .where(WebhookEndpoint.id.in_(endpoint_ids))
                .order_by(WebhookEndpoint.id, WebhookSecret.generation.desc())
            )
        ).all()
        endpoints: dict[str, Any] = {}
        secrets: dict[str, list[str]] = defaultdict(list)
        for row in rows:
            endpoints.setdefault(row[0], row)
            if row[4] is not None:
                secrets[row[0]].append(self._secret(row[4], row[5]))
        ready: list[Claim] = []
        for claim in claims:
            endpoint = endpoints.get(claim.endpoint_id)
            body = bodies.get(claim.event_id)
            if endpoint is None or endpoint[3] is not None or body is None:
                await self._retire(session, claim, "cancelled", "endpoint deleted")
            elif endpoint[2] != "enabled":
                await self._retire(session, claim, "dead", "endpoint disabled")
            else:
                claim.url = endpoint[1]
                claim.body = body.encode()
                claim.secrets = tuple(secrets.get(claim.endpoint_id, ()))
                ready.append(claim)
        return ready

    def _secret(self, secret_id: str, encrypted: str) -> str:
        # Secrets never change once written: decrypt each once per process.
        secret = self._secrets.get(secret_id)
        if secret is None:
            secret = self.runtime.crypto.decrypt_text(encrypted)
            self._secrets[secret_id] = secret
        return secret

    @staticmethod
    async def _retire(session: AsyncSession, claim: Claim, status: str, error: str) -> None:
        await session.execute(
            update(Delivery)
            .where(Delivery.id == claim.delivery_id, Delivery.claim_token == claim.token)
            .values(
                status=status,
                attempts=Delivery.attempts - 1,  # nothing was sent
                next_attempt_at=None,
                lease_until=None,
                claim_token=None,
                last_error=error,
            )
            .execution_options(synchronize_session=False)
        )

    # --- sending ------------------------------------------------------------------
    async def _send(self, claim: Claim) -> None:
        try:
            headers = rules.delivery_headers(
                event_id=claim.event_id,
                event_type=claim.event_type,
                timestamp=int(time.time()),
                attempt=claim.attempt,
                body=claim.body,
                active_secrets=claim.secrets,
            )
            result = await post_json(
                claim.url,
                claim.body,
                headers,
                allow_private=self.runtime.settings.webhook_allow_private_urls,
                keep_body=0,  # response bodies of real events are not stored
            )
        except Exception as exc:  # post_json returns errors; this is a bug guard
            log.exception("webhook attempt crashed")
            result = PostResult(status=None, error=f"internal error: {type(exc).__name__}")
        self.stats.attempted += 1
        await self._outcomes.put(Outcome(claim, result, self.runtime.now()))

    # --- recording ------------------------------------------------------------------
    async def _record_loop(self) -> None:
        while True:
            batch = [await self._outcomes.get()]
            while len(batch) < MAX_RECORD_BATCH and not self._outcomes.empty():
                batch.append(self._outcomes.get_nowait())
            try:
                await self._record(batch)
            except asyncio.CancelledError:
                raise
            except Exception:
                # Unrecorded outcomes keep their lease: the deliveries go out again later.
                log.exception("recording webhook outcomes failed")
            finally:
                self._in_flight -= len(batch)
                self._slot_freed.set()

    async def _record(self, batch: list[Outcome]) -> None:
        by_endpoint: dict[str, list[Outcome]] = defaultdict(list)
        for outcome in batch:
            by_endpoint[outcome.claim.endpoint_id].append(outcome)
        now = self.runtime.now()
        async with self.runtime.db.write() as session:
            successes = [o for o in batch if o.result.success]
            if successes:
                await session.execute(
                    update(_DELIVERIES)
                    .where(
                        _DELIVERIES.c.id == bindparam("b_id"),
                        _DELIVERIES.c.claim_token == bindparam("b_token"),
                    )
                    .values(
                        status="succeeded",
                        next_attempt_at=None,
                        lease_until=None,
                        claim_token=None,
                        last_http_status=bindparam("b_status"),
                        last_error=None,
                    ),
                    [
                        {
                            "b_id": o.claim.delivery_id,
                            "b_token": o.claim.token,
                            "b_status": o.result.status,
                        }
                        for o in successes
                    ],
                )
                self.stats.succeeded += len(successes)
            healthy_only = [
                eid for eid, outs in by_endpoint.items() if all(o.result.success for o in outs)
            ]
            if healthy_only:
                await self._mark_healthy(session, healthy_only, now)
            troubled = sorted(eid for eid in by_endpoint if eid not in set(healthy_only))
            for endpoint_id in troubled:
                await self._record_endpoint(session, endpoint_id, by_endpoint[endpoint_id], now)

    async def _mark_healthy(
        self, session: AsyncSession, endpoint_ids: list[str], now: datetime
    ) -> None:
        # Touches (and locks) a row only when something changes, or to refresh the
        # last-success time once a second: a busy healthy endpoint is not a hot row.
        await session.execute(
            update(WebhookEndpoint)
            .where(
                WebhookEndpoint.id.in_(endpoint_ids),
                or_(
                    WebhookEndpoint.consecutive_failures != 0,
                    WebhookEndpoint.failing_since.is_not(None),
                    WebhookEndpoint.last_success_at.is_(None),
                    WebhookEndpoint.last_success_at < now - timedelta(seconds=1),
                ),
            )
            .values(consecutive_failures=0, failing_since=None, last_success_at=now)
            .execution_options(synchronize_session=False)
        )

    async def _record_endpoint(
        self, session: AsyncSession, endpoint_id: str, outcomes: list[Outcome], now: datetime
    ) -> None:
        """Apply one endpoint's outcomes in order: retries, dead letters, disabling."""
        settings = self.runtime.settings
        endpoint = await session.scalar(
            select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).with_for_update()
        )
        for outcome in sorted(outcomes, key=lambda o: o.finished_at):
            result, claim = outcome.result, outcome.claim
            if result.success:
                if endpoint is not None:
                    endpoint.consecutive_failures = 0
                    endpoint.failing_since = None
                    endpoint.last_success_at = now
                continue
            self.stats.failed += 1
            step = rules.next_step(
                rules.Attempted(
                    status=result.status,
                    error=result.error,
                    retry_after=result.headers.get("retry-after"),
                ),
                attempts_made=claim.attempt,
                first_attempt_at=claim.first_attempt_at,
                now=now,
                max_attempts=settings.webhook_max_attempts,
                scale=settings.webhook_backoff_scale,
            )
            error = (result.error or "failed")[:300]
            values: dict[str, object] = {
                "lease_until": None,
                "claim_token": None,
                "last_http_status": result.status,
                "last_error": error,
            }
            if step.status == "pending":
                values["next_attempt_at"] = step.retry_at
            else:
                values["status"] = "dead"
                values["next_attempt_at"] = None
            updated = await session.execute(
                update(Delivery)
                .where(Delivery.id == claim.delivery_id, Delivery.claim_token == claim.token)
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            if updated.rowcount != 1 or endpoint is None or endpoint.status != "enabled":  # type: ignore[attr-defined]
                continue
            if result.status == 410:
                await health.disable_endpoint(session, endpoint, reason=rules.REASON_GONE, now=now)
            if step.status != "dead":
                continue
            endpoint.consecutive_failures += 1
            endpoint.failing_since = endpoint.failing_since or now
            endpoint.updated_at = now
            if endpoint.status != "enabled":
                continue
            if endpoint.consecutive_failures >= rules.CONSECUTIVE_DEAD_LIMIT:
                await health.disable_endpoint(
                    session, endpoint, reason=rules.REASON_CONSECUTIVE, now=now
                )
            elif rules.failing_too_long(
                endpoint.failing_since, now, settings.webhook_backoff_scale
            ):
                await health.disable_endpoint(
                    session, endpoint, reason=rules.REASON_FAILING_24H, now=now
                )

    # --- failing_24h without new dead letters ---------------------------------------
    async def _maybe_check_health(self) -> None:
        if time.monotonic() < self._next_health_check:
            return
        self._next_health_check = time.monotonic() + HEALTH_CHECK_SECONDS
        try:
            await disable_failing_endpoints(self.runtime)
        except Exception:
            log.exception("webhook endpoint health check failed")


async def disable_failing_endpoints(runtime: Runtime) -> int:
    """Disable (`failing_24h`) enabled endpoints whose dead letters are unanswered by a success
    for 24 h, scaled (spec 2 §3; CONTRACT §6). Returns how many were disabled."""
    now = runtime.now()
    cutoff = now - rules.FAILING_WINDOW * runtime.settings.webhook_backoff_scale
    query = select(WebhookEndpoint.id).where(
        WebhookEndpoint.status == "enabled",
        WebhookEndpoint.deleted_at.is_(None),
        WebhookEndpoint.failing_since <= cutoff,
    )
    async with runtime.db.read() as session:
        candidates = list((await session.scalars(query)).all())
    if not candidates:
        return 0
    disabled = 0
    async with runtime.db.write() as session:
        for endpoint_id in sorted(candidates):
            endpoint = await session.scalar(
                select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).with_for_update()
            )
            if (
                endpoint is not None
                and endpoint.status == "enabled"
                and rules.failing_too_long(
                    endpoint.failing_since, now, runtime.settings.webhook_backoff_scale
                )
            ):
                await health.disable_endpoint(
                    session, endpoint, reason=rules.REASON_FAILING_24H, now=now
                )
                disabled += 1
    return disabled


async def run_delivery_worker(runtime: Runtime, stop: asyncio.Event) -> None:
    """The `webhooks` worker registered in `gatehouse.workers`."""
    if runtime.settings.webhook_allow_private_urls:
        log.warning(
            "GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS is set: webhook receivers may be private "
            "addresses (development and tests only)"
        )
    await DeliveryWorker(runtime).run(stop)


def _claim_from_row(row: Any, token: str, now: datetime) -> Claim:
    """A claim from the first six columns the claim statement returns."""
    return Claim(
        delivery_id=row[0],
        event_id=row[1],
        event_type=row[2],
        endpoint_id=row[3],
        attempt=int(row[4]),
        first_attempt_at=row[5] or now,
        token=token,
    )
