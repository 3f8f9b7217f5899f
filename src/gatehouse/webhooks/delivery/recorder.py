"""Recording attempt outcomes in batches (docs/reference/webhooks.md §6.3, §6.6).

Outcomes queue up here while attempts finish, until the worker's next turn (loop.py)
takes them: a batch of successes only is recorded by the turn's claim (turnover.py);
any other batch — or one the turn failed to record — is written here, in one
transaction. Every update is guarded by the claim token, so a
stale outcome (lease expired and re-claimed, endpoint disabled or deleted)
changes nothing. A batch carries many tenants' work, so one outcome that
cannot be written must not undo the others: when the batch transaction fails,
each outcome is written in its own, and one that fails alone is logged and
left leased (its delivery goes out again when the lease ends).

Successes are one bulk update; an endpoint with failures is locked and its
outcomes applied in order: the retry schedule (`rules.next_step`)
for the delivery, then the health rule (`rules.endpoint_health`) for the
endpoint.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.webhooks import DeliveryStatus, EndpointStatus
from gatehouse.outbound.transport import PostResult
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.webhooks import health, rules
from gatehouse.webhooks.delivery.claims import Claim
from gatehouse.webhooks.delivery.turnover import Succeeded, record_successes

log = logging.getLogger("gatehouse.webhooks")

MAX_RECORD_BATCH = 500
HEALTHY_REFRESH_SECONDS = 1.0


@dataclass
class Outcome:
    claim: Claim
    result: PostResult
    finished_at: datetime


@dataclass(frozen=True)
class Tally:
    """Outcomes a batch recorded: successes and failures (of which the batch scheduled
    `retried` again and made `dead`; a stale outcome changes nothing), and the reasons of
    the endpoints it disabled."""

    succeeded: int = 0
    failed: int = 0
    retried: int = 0
    dead: int = 0
    disabled: tuple[str, ...] = ()

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            succeeded=self.succeeded + other.succeeded,
            failed=self.failed + other.failed,
            retried=self.retried + other.retried,
            dead=self.dead + other.dead,
            disabled=self.disabled + other.disabled,
        )


class Recorder:
    """The outcomes of one worker, queued until the worker's next turn records them."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._outcomes: list[Outcome] = []
        # Endpoint -> when this recorder last marked it healthy (monotonic): within
        # HEALTHY_REFRESH_SECONDS, and with no failure recorded here since, a success
        # batch need not touch the endpoint again.
        self._marked_healthy: dict[str, float] = {}

    def put(self, outcome: Outcome) -> None:
        self._outcomes.append(outcome)

    @property
    def queued(self) -> int:
        return len(self._outcomes)

    def take(self) -> list[Outcome]:
        """The queued outcomes (MAX_RECORD_BATCH at most), no longer queued."""
        batch = self._outcomes[:MAX_RECORD_BATCH]
        del self._outcomes[:MAX_RECORD_BATCH]
        return batch

    async def record(self, batch: list[Outcome]) -> Tally:
        """Write `batch`: in one transaction, or outcome by outcome when that fails."""
        try:
            return await self._write(batch)
        except Exception:
            if len(batch) == 1:
                _log_unrecorded(batch[0])
                return Tally()
            log.warning(
                "recording %d webhook outcomes together failed; recording each alone",
                len(batch),
                exc_info=True,
            )
        total = Tally()
        for outcome in sorted(batch, key=lambda o: o.finished_at):
            try:
                tally = await self._write([outcome])
            except Exception:
                _log_unrecorded(outcome)
                continue
            total += tally
        return total

    async def _write(self, batch: list[Outcome]) -> Tally:
        """Write `batch` in one transaction."""
        by_endpoint: dict[str, list[Outcome]] = defaultdict(list)
        for outcome in batch:
            by_endpoint[outcome.claim.endpoint_id].append(outcome)
        now = self.runtime.now()
        failures = Tally()
        async with self.runtime.db.write() as session:
            successes = [o for o in batch if o.result.success]
            healthy_only = [
                eid for eid, outs in by_endpoint.items() if all(o.result.success for o in outs)
            ]
            if successes:
                await record_successes(
                    session, [succeeded(o) for o in successes], self.stale_health(healthy_only), now
                )
            troubled = sorted(eid for eid in by_endpoint if eid not in set(healthy_only))
            for endpoint_id in troubled:
                self._marked_healthy.pop(endpoint_id, None)
            for endpoint_id in troubled:
                failures += await self._record_endpoint(
                    session, endpoint_id, by_endpoint[endpoint_id], now
                )
        return Tally(succeeded=len(successes)) + failures

    def stale_health(self, endpoint_ids: list[str]) -> list[str]:
        """The endpoints whose health this recorder has not written for a second."""
        now = time.monotonic()
        stale = [
            eid
            for eid in endpoint_ids
            if now - self._marked_healthy.get(eid, -HEALTHY_REFRESH_SECONDS)
            >= HEALTHY_REFRESH_SECONDS
        ]
        for eid in stale:
            self._marked_healthy[eid] = now
        if len(self._marked_healthy) > 10_000:
            self._marked_healthy.clear()
        return stale

    async def _record_endpoint(
        self, session: AsyncSession, endpoint_id: str, outcomes: list[Outcome], now: datetime
    ) -> Tally:
        """Apply one endpoint's outcomes in order: its failures, deaths and disabling."""
        settings = self.runtime.settings
        endpoint = await session.scalar(
            select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).with_for_update()
        )
        failed = retried = dead = 0
        disabled: list[str] = []
        for outcome in sorted(outcomes, key=lambda o: o.finished_at):
            result, claim = outcome.result, outcome.claim
            if result.success:
                if endpoint is not None:
                    endpoint.consecutive_failures = 0
                    endpoint.failing_since = None
                    endpoint.last_success_at = now
                continue
            failed += 1
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
            applied = await _finish_attempt(session, claim, result, step)
            if applied and step.status == DeliveryStatus.DEAD:
                dead += 1
            elif applied:
                retried += 1
            if not applied or endpoint is None or endpoint.status != EndpointStatus.ENABLED:
                continue
            verdict = rules.endpoint_health(
                http_status=result.status,
                dead=step.status == DeliveryStatus.DEAD,
                consecutive_failures=endpoint.consecutive_failures,
                failing_since=endpoint.failing_since,
                now=now,
                scale=settings.webhook_backoff_scale,
            )
            if step.status == DeliveryStatus.DEAD:
                endpoint.consecutive_failures = verdict.consecutive_failures
                endpoint.failing_since = verdict.failing_since
                endpoint.updated_at = now
            if verdict.disable is not None:
                await health.disable_endpoint(session, endpoint, reason=verdict.disable, now=now)
                disabled.append(verdict.disable)
        return Tally(failed=failed, retried=retried, dead=dead, disabled=tuple(disabled))


def _log_unrecorded(outcome: Outcome) -> None:
    log.exception(
        "recording a webhook outcome failed; the delivery goes out again when its lease ends",
        extra={
            "delivery_id": outcome.claim.delivery_id,
            "endpoint_id": outcome.claim.endpoint_id,
        },
    )


def succeeded(outcome: Outcome) -> Succeeded:
    """A success as the turn records it."""
    claim = outcome.claim
    return Succeeded(
        claim.delivery_id, claim.token, outcome.result.status, round(outcome.result.latency_ms)
    )


async def _finish_attempt(
    session: AsyncSession, claim: Claim, result: PostResult, step: rules.NextStep
) -> bool:
    """A failed attempt: schedule the retry or make the delivery dead. False when the
    claim was no longer held (a stale outcome changes nothing)."""
    values: dict[str, object] = {
        "lease_until": None,
        "claim_token": None,
        "last_http_status": result.status,
        "last_latency_ms": round(result.latency_ms),
        "last_error": (result.error or "failed")[:300],
    }
    if step.status == DeliveryStatus.PENDING:
        values["next_attempt_at"] = step.retry_at
    else:
        values["status"] = DeliveryStatus.DEAD
        values["next_attempt_at"] = None
    updated = await session.execute(
        update(Delivery)
        .where(Delivery.id == claim.delivery_id, Delivery.claim_token == claim.token)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return bool(updated.rowcount == 1)  # type: ignore[attr-defined]
