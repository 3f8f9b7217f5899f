"""Claiming due deliveries, with what sending them needs (docs/reference/webhooks.md §6.3).

A claim is one write turn (the fair claim of fair.py, leased like every queue of
storage/leases.py): it leases up to `limit` due deliveries of endpoints and tenants
with room — `attempts` + 1, `claim_token`, `lease_until`, and
`next_attempt_at` moved to the lease end — before anything is sent, and reads
each delivery's target (event body, endpoint URL and state, active secrets).
The same turn records the successes the worker brings back (turnover.py).
Deliveries whose endpoint is deleted (or whose event is gone) are retired as
`cancelled`, those whose endpoint is disabled as `dead`, with the attempt
given back: nothing was sent.

PostgreSQL: the whole turn is one statement (turnover.py: record, pick, lock,
lease, targets). SQLite: one write transaction — record, pick, lease, then look
up the targets (its RETURNING cannot name joined tables; its extra queries cost
no network, and its one writer means nothing is taken meanwhile).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    RowMapping,
    Select,
    Table,
    and_,
    bindparam,
    case,
    func,
    literal,
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
from gatehouse.storage.tx_statements import run_in
from gatehouse.webhooks.delivery.fair import (
    Shares,
    Slots,
    claim_parameters,
    claim_picked,
    fair_pick,
    next_due_query,
)
from gatehouse.webhooks.delivery.turnover import (
    TURNOVER,
    Succeeded,
    record_successes,
    turnover_parameters,
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
    def of(cls, row: Mapping[Any, Any], lease: Lease) -> Claim:
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

    async def claim(
        self,
        limit: int,
        slots: Slots[Claim] | None = None,
        *,
        succeeded: Sequence[Succeeded] = (),
        healthy: Sequence[str] = (),
        leaving: Sequence[Claim] = (),
    ) -> list[Claim]:
        """Lease up to `limit` due deliveries, fairly (fair.py), with what sending them
        needs; `slots`: what the worker already holds (none when not given).

        In the same turn (one statement on PostgreSQL, turnover.py; one transaction on
        SQLite), record `succeeded` and mark `healthy` endpoints healthy; `leaving`: the
        held claims those successes end (their room counts as free)."""
        slots = slots or self._no_slots
        now = self.runtime.now()
        lease = Lease.take(now, self.lease)
        params = claim_parameters(now, limit, slots, leaving)
        if self.runtime.db.is_sqlite:
            async with self.runtime.db.write() as session:
                if succeeded:
                    await record_successes(session, succeeded, healthy, now)
                claims, targets = await self._claim_sqlite(session, params, lease, slots.shares)
                ready, retired = self._ready(claims, targets)
                await _retire_all(session, retired)
        else:
            claims, targets = await self._turnover(params, lease, slots.shares, succeeded, healthy)
            ready, retired = self._ready(claims, targets)
            if retired:
                async with self.runtime.db.write() as session:
                    await _retire_all(session, retired)
        for claim, status, error in retired:  # committed: count and say so
            metrics.count_deliveries(QUEUE, status)
            log.info(
                "webhook delivery retired unsent",
                extra={**claim.log_fields(), "outcome": status, "error": error},
            )
        return ready

    def _lease_values(self, lease: Lease) -> dict[str, Any]:
        now = lease.taken_at
        return {
            "attempts": Delivery.attempts + 1,
            "claim_token": lease.token,
            "lease_until": lease.until,
            "next_attempt_at": lease.until,
            "last_attempt_at": now,
            "first_attempt_at": func.coalesce(
                Delivery.first_attempt_at, literal(now, UTCDateTime())
            ),
        }

    async def _claim_sqlite(
        self, session: AsyncSession, params: dict[str, Any], lease: Lease, shares: Shares
    ) -> tuple[list[Claim], dict[str, Target]]:
        """SQLite: the fair pick, the lease of the picked rows, then their targets (one
        writer, so nothing is taken meanwhile; the extra statements cost no network)."""
        pick = self._picks.get(shares)
        if pick is None:
            pick = self._picks[shares] = fair_pick(shares)
        ids = list((await session.execute(pick, params)).scalars())
        if not ids:
            return [], {}
        stmt = claim_picked(self._lease_values(lease)).returning(*_CLAIMED)
        rows = (await session.execute(stmt, {"ids": ids, "now": params["now"]})).mappings()
        order = {key: n for n, key in enumerate(ids)}
        claims = sorted(
            (Claim.of(row, lease) for row in rows.all()), key=lambda c: order[c.delivery_id]
        )
        targets = await self._look_up_targets(session, claims, params["now"]) if claims else {}
        return claims, targets

    async def _turnover(
        self,
        params: dict[str, Any],
        lease: Lease,
        shares: Shares,
        succeeded: Sequence[Succeeded],
        healthy: Sequence[str],
    ) -> tuple[list[Claim], dict[str, Target]]:
        """PostgreSQL: successes recorded, rows picked and leased, targets returned: one
        statement (turnover.py)."""
        claim = {
            **params,
            "per_endpoint": shares.per_endpoint,
            "per_tenant": shares.per_tenant,
            "token": lease.token,
            "until": lease.until,
        }
        values = turnover_parameters(list(succeeded), list(healthy), claim, params["now"])
        async with self.runtime.db.transaction(lazy=True) as connection:
            rows = await run_in(connection, TURNOVER, values, alone=True)
        rows.sort(key=lambda row: (row.tenant_rank, row.due_at))
        claims: list[Claim] = []
        targets: dict[str, Target] = {}
        for row in rows:
            claim_ = Claim.of(row._asdict(), lease)
            claims.append(claim_)
            pairs = (entry.split(" ", 1) for entry in (row.secrets or "").split("|") if entry)
            targets[claim_.delivery_id] = Target(
                body=row.body,
                url=row.url,
                endpoint_status=row.endpoint_status,
                deleted_at=row.deleted_at,
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

    def _ready(
        self, claims: list[Claim], targets: dict[str, Target]
    ) -> tuple[list[Claim], list[tuple[Claim, str, str]]]:
        """Fill in body, URL and secrets; the claims whose endpoint is gone or disabled are
        to be retired, each as (claim, status, reason)."""
        ready: list[Claim] = []
        retired: list[tuple[Claim, str, str]] = []
        for claim in claims:
            target = targets.get(claim.delivery_id)
            if target is None or target.deleted_at is not None or target.body is None:
                retired.append((claim, DeliveryStatus.CANCELLED, "endpoint deleted"))
            elif target.endpoint_status != EndpointStatus.ENABLED:
                retired.append((claim, DeliveryStatus.DEAD, "endpoint disabled"))
            else:
                claim.url = target.url
                claim.body = target.body.encode()
                claim.secrets = tuple(self._secret(*pair) for pair in target.secrets)
                ready.append(claim)
        return ready, retired

    async def give_back(self, claims: list[Claim]) -> None:
        await give_back(self.runtime, claims)

    def _secret(self, secret_id: str, encrypted: str) -> str:
        # Secrets never change once written: decrypt each once per process.
        secret = self._secrets.get(secret_id)
        if secret is None:
            secret = self.runtime.crypto.decrypt_text(encrypted)
            self._secrets[secret_id] = secret
        return secret


async def _retire_all(session: AsyncSession, retired: list[tuple[Claim, str, str]]) -> None:
    for claim, status, error in retired:
        await retire(session, claim, status, error)


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
