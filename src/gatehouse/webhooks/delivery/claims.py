"""Claiming due deliveries, with what sending them needs (docs/reference/webhooks.md §6.3).

A claim is one write transaction (the fair claim of fair.py, leased like every queue of
storage/leases.py): it leases up to `limit` due deliveries of endpoints and tenants
with room — `attempts` + 1, `claim_token`, `lease_until`, and
`next_attempt_at` moved to the lease end — before anything is sent, then reads
each delivery's target (event body, endpoint URL and state, active secrets).
Deliveries whose endpoint is deleted (or whose event is gone) are retired as
`cancelled`, those whose endpoint is disabled as `dead`, with the attempt
given back: nothing was sent.

PostgreSQL returns the targets from the claim statement itself (one round
trip); SQLite's RETURNING cannot name joined tables, so it looks them up in
the same transaction (its extra queries cost no network).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    RowMapping,
    Select,
    Table,
    Update,
    and_,
    bindparam,
    case,
    func,
    literal,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import metrics
from gatehouse.domain.webhooks import DeliveryStatus, EndpointStatus
from gatehouse.runtime import Runtime
from gatehouse.storage.base import UTCDateTime
from gatehouse.storage.leases import Lease
from gatehouse.storage.tables.core import Event
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint, WebhookSecret
from gatehouse.webhooks.delivery.fair import (
    Shares,
    Slots,
    claim_parameters,
    claim_picked,
    fair_pick,
    next_due_query,
)

log = logging.getLogger("gatehouse.webhooks")

# The `queue` label of this worker's metrics.
QUEUE = "webhooks"
_DELIVERIES: Table = Delivery.__table__  # type: ignore[assignment]
# The columns every claim returns, by name.
_CLAIMED = (
    Delivery.id.label("delivery_id"),
    Delivery.event_id.label("event_id"),
    Delivery.event_type.label("event_type"),
    Delivery.endpoint_id.label("endpoint_id"),
    Delivery.tenant_id.label("tenant_id"),
    Delivery.attempts.label("attempt"),
    Delivery.first_attempt_at.label("first_attempt_at"),
)


@dataclass
class Claim:
    """One attempt this worker holds the lease for."""

    delivery_id: str
    event_id: str
    event_type: str
    endpoint_id: str
    tenant_id: str
    attempt: int
    first_attempt_at: datetime
    token: str
    url: str = ""
    body: bytes = b""
    secrets: tuple[str, ...] = ()

    def log_fields(self) -> dict[str, object]:
        """What every log line about this attempt carries (never the URL, body or secrets)."""
        return {
            "tenant_id": self.tenant_id,
            "endpoint_id": self.endpoint_id,
            "event_id": self.event_id,
            "delivery_id": self.delivery_id,
            "attempt": self.attempt,
        }

    @classmethod
    def of(cls, row: RowMapping, lease: Lease) -> Claim:
        return cls(
            delivery_id=row["delivery_id"],
            event_id=row["event_id"],
            event_type=row["event_type"],
            endpoint_id=row["endpoint_id"],
            tenant_id=row["tenant_id"],
            attempt=int(row["attempt"]),
            first_attempt_at=row["first_attempt_at"] or lease.taken_at,
            token=lease.token,
        )


@dataclass(frozen=True, slots=True)
class Target:
    """Where a claimed delivery goes, as read in the claim's transaction."""

    body: str | None
    url: str
    endpoint_status: str
    deleted_at: datetime | None
    # (secret id, encrypted secret) of the active secrets, newest first.
    secrets: tuple[tuple[str, str], ...]


class Claims:
    """Leases due deliveries for one worker; decrypts each secret once per process."""

    def __init__(self, runtime: Runtime, lease: timedelta) -> None:
        self.runtime = runtime
        self.lease = lease
        self._secrets: dict[str, str] = {}
        self._next_due = next_due_query(not runtime.db.is_sqlite)
        self._no_slots: Slots[Claim] = Slots(Shares())
        self._picks: dict[Shares, Select[Any]] = {}

    async def next_due(self, slots: Slots[Claim] | None = None) -> datetime | None:
        """When the earliest pending delivery (or expiring lease) of an endpoint and a
        tenant with room falls due."""
        slots = slots or self._no_slots
        params = {"full_endpoints": slots.full_endpoints(), "full_tenants": slots.full_tenants()}
        async with self.runtime.db.read() as session:
            return await session.scalar(self._next_due, params)

    async def claim(self, limit: int, slots: Slots[Claim] | None = None) -> list[Claim]:
        """Lease up to `limit` due deliveries, fairly (fair.py), with what sending them
        needs; `slots`: what the worker already holds (none when not given)."""
        slots = slots or self._no_slots
        now = self.runtime.now()
        lease = Lease.take(now, self.lease)
        is_postgres = not self.runtime.db.is_sqlite
        stmt = claim_picked(
            is_postgres,
            {
                "attempts": Delivery.attempts + 1,
                "claim_token": lease.token,
                "lease_until": lease.until,
                "next_attempt_at": lease.until,
                "last_attempt_at": now,
                "first_attempt_at": func.coalesce(
                    Delivery.first_attempt_at, literal(now, UTCDateTime())
                ),
            },
        )
        retired: list[tuple[Claim, str, str]] = []
        async with self.runtime.db.write() as session:
            pick = self._picks.get(slots.shares)
            if pick is None:
                pick = self._picks[slots.shares] = fair_pick(is_postgres, slots.shares)
            ids = list((await session.execute(pick, claim_parameters(now, limit, slots))).scalars())
            if not ids:
                return []
            params = {"ids": ids, "now": now}
            if not is_postgres:
                rows = (await session.execute(stmt.returning(*_CLAIMED), params)).mappings()
                claims = [Claim.of(row, lease) for row in rows.all()]
                targets = await self._look_up_targets(session, claims, now) if claims else {}
            else:
                claims, targets = await self._claim_with_targets(session, stmt, params, lease, now)
            ready = await self._ready(session, claims, targets, retired)
        for claim, status, error in retired:  # committed: count and say so
            metrics.count_deliveries(QUEUE, status)
            log.info(
                "webhook delivery retired unsent",
                extra={**claim.log_fields(), "outcome": status, "error": error},
            )
        return ready

    async def _claim_with_targets(
        self,
        session: AsyncSession,
        stmt: Update,
        params: dict[str, Any],
        lease: Lease,
        now: datetime,
    ) -> tuple[list[Claim], dict[str, Target]]:
        """PostgreSQL: the event body, the endpoint and its active secrets come back from
        the claim itself (`id secret|id secret`, newest first)."""
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
            *_CLAIMED,
            Event.body.label("body"),
            WebhookEndpoint.url.label("url"),
            WebhookEndpoint.status.label("endpoint_status"),
            WebhookEndpoint.deleted_at.label("deleted_at"),
            active_secrets.label("secrets"),
        )
        claims: list[Claim] = []
        targets: dict[str, Target] = {}
        for row in (await session.execute(stmt, params)).mappings().all():
            claim = Claim.of(row, lease)
            claims.append(claim)
            pairs = (entry.split(" ", 1) for entry in (row["secrets"] or "").split("|") if entry)
            targets[claim.delivery_id] = Target(
                body=row["body"],
                url=row["url"],
                endpoint_status=row["endpoint_status"],
                deleted_at=row["deleted_at"],
                secrets=tuple((secret_id, encrypted) for secret_id, encrypted in pairs),
            )
        return claims, targets

    async def _look_up_targets(
        self, session: AsyncSession, claims: list[Claim], now: datetime
    ) -> dict[str, Target]:
        """SQLite: event bodies, then endpoints with their active secrets (newest first)."""
        event_ids = {c.event_id for c in claims}
        endpoint_ids = {c.endpoint_id for c in claims}
        bodies: dict[str, str] = {
            row.id: row.body
            for row in await session.execute(
                select(Event.id, Event.body).where(Event.id.in_(event_ids))
            )
        }
        active_secret = and_(
            WebhookSecret.endpoint_id == WebhookEndpoint.id,
            or_(WebhookSecret.expires_at.is_(None), WebhookSecret.expires_at > now),
        )
        rows = (
            await session.execute(
                select(
                    WebhookEndpoint.id.label("endpoint_id"),
                    WebhookEndpoint.url.label("url"),
                    WebhookEndpoint.status.label("endpoint_status"),
                    WebhookEndpoint.deleted_at.label("deleted_at"),
                    WebhookSecret.id.label("secret_id"),
                    WebhookSecret.secret_encrypted.label("encrypted"),
                )
                .outerjoin(WebhookSecret, active_secret)
                .where(WebhookEndpoint.id.in_(endpoint_ids))
                .order_by(WebhookEndpoint.id, WebhookSecret.generation.desc())
            )
        ).mappings()
        endpoints: dict[str, RowMapping] = {}
        secrets: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for row in rows:
            endpoints.setdefault(row["endpoint_id"], row)
            if row["secret_id"] is not None:
                secrets[row["endpoint_id"]].append((row["secret_id"], row["encrypted"]))
        targets: dict[str, Target] = {}
        for claim in claims:
            endpoint = endpoints.get(claim.endpoint_id)
            if endpoint is not None:
                targets[claim.delivery_id] = Target(
                    body=bodies.get(claim.event_id),
                    url=endpoint["url"],
                    endpoint_status=endpoint["endpoint_status"],
                    deleted_at=endpoint["deleted_at"],
                    secrets=tuple(secrets.get(claim.endpoint_id, ())),
                )
        return targets

    async def _ready(
        self,
        session: AsyncSession,
        claims: list[Claim],
        targets: dict[str, Target],
        retired: list[tuple[Claim, str, str]],
    ) -> list[Claim]:
        """Fill in body, URL and secrets; retire claims whose endpoint is gone or disabled
        (each added to `retired` as (claim, status, reason))."""
        ready: list[Claim] = []
        for claim in claims:
            target = targets.get(claim.delivery_id)
            if target is None or target.deleted_at is not None or target.body is None:
                await retire(session, claim, DeliveryStatus.CANCELLED, "endpoint deleted")
                retired.append((claim, DeliveryStatus.CANCELLED, "endpoint deleted"))
            elif target.endpoint_status != EndpointStatus.ENABLED:
                await retire(session, claim, DeliveryStatus.DEAD, "endpoint disabled")
                retired.append((claim, DeliveryStatus.DEAD, "endpoint disabled"))
            else:
                claim.url = target.url
                claim.body = target.body.encode()
                claim.secrets = tuple(self._secret(*pair) for pair in target.secrets)
                ready.append(claim)
        return ready

    async def give_back(self, claims: list[Claim]) -> None:
        await give_back(self.runtime, claims)

    def _secret(self, secret_id: str, encrypted: str) -> str:
        # Secrets never change once written: decrypt each once per process.
        secret = self._secrets.get(secret_id)
        if secret is None:
            secret = self.runtime.crypto.decrypt_text(encrypted)
            self._secrets[secret_id] = secret
        return secret


async def retire(session: AsyncSession, claim: Claim, status: str, error: str) -> None:
    """End a claimed delivery without sending it (its attempt is given back)."""
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


async def give_back(runtime: Runtime, claims: list[Claim]) -> None:
    """Claims never sent (the worker stopped while they waited for their share): due again
    at once, their attempt given back. Guarded by the claim token like every outcome."""
    now = runtime.now()
    async with runtime.db.write() as session:
        await session.execute(
            update(_DELIVERIES)
            .where(
                _DELIVERIES.c.id == bindparam("b_id"),
                _DELIVERIES.c.claim_token == bindparam("b_token"),
            )
            .values(
                attempts=_DELIVERIES.c.attempts - 1,
                first_attempt_at=case(
                    (_DELIVERIES.c.attempts == 1, None), else_=_DELIVERIES.c.first_attempt_at
                ),
                next_attempt_at=now,
                lease_until=None,
                claim_token=None,
            ),
            [{"b_id": c.delivery_id, "b_token": c.token} for c in claims],
        )


async def sample_queue(runtime: Runtime) -> None:
    """Set the queue gauges of webhook deliveries: due, waiting, and how long the oldest
    due one has been due (one indexed query; docs/operations.md, "Worker metrics")."""
    now = runtime.now()
    is_due = Delivery.next_attempt_at <= now
    query = select(
        func.count().filter(is_due),
        func.count(),
        func.min(Delivery.next_attempt_at),
    ).where(Delivery.status == DeliveryStatus.PENDING)
    async with runtime.db.read() as session:
        due, pending, oldest = (await session.execute(query)).one()
    metrics.record_queue(
        QUEUE,
        due=int(due or 0),
        waiting=int(pending or 0) - int(due or 0),
        oldest_due_seconds=(now - oldest).total_seconds() if due and oldest else 0.0,
    )
