"""One round trip per turn of the delivery worker on PostgreSQL (docs/webhooks.md, "The worker").

A worker's turn records the successes that came back since its last turn and claims the
next batch: `TURNOVER` is that turn as ONE statement, run on its own (autocommit, so one
round trip and one commit) and kept prepared by asyncpg's statement cache (behind a
transaction pooler, storage/pooler.py, it is prepared and run inside one transaction):

- `done`: the successes, by id and claim token (a stale outcome changes nothing);
- `healthy`: their endpoints, when this worker has not marked them healthy for a second;
- `candidates`: the oldest due deliveries of endpoints and tenants with room, locked
  `FOR UPDATE SKIP LOCKED` (another worker's rows are skipped, a row that stopped being due
  is checked again as it is locked) — `window` of them, never one just recorded;
- `ranked` and `picked`: the fair pick of fair.py (at most a share per endpoint and per
  tenant, every tenant's first before any tenant's second), `limit` rows;
- the UPDATE leases the picked rows, found by primary key (`= ANY(ARRAY(…))` keeps the
  planner from scanning the table to join a few rows): `attempts` + 1, token, lease end,
  `next_attempt_at` moved to it; it returns what sending them needs: the event body, the
  endpoint's URL and state, its active secrets (`id secret|id secret`, newest first), and
  the fair order.

Every sub-statement sees the same snapshot and they touch different rows (the recorded
successes are leased, so never due, and are left out of the candidates by id). Failures
are not recorded here: they keep the ordered path of recorder.py. SQLite runs the same
turn as one write transaction of several statements (claims.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Integer, String, Table, bindparam, or_, text, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.webhooks import DeliveryStatus
from gatehouse.storage.base import UTCDateTime
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.storage.tx_statements import TxStatement

__all__ = ["TURNOVER", "Succeeded", "mark_healthy", "record_successes", "turnover_parameters"]

_DELIVERIES: Table = Delivery.__table__  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Succeeded:
    """A success to record: the delivery, the claim it was sent under, the answer."""

    delivery_id: str
    token: str
    http_status: int | None
    latency_ms: int


# The statuses are the code's own constants, never input.
_SQL = f"""
WITH done AS (
    UPDATE webhook_deliveries AS d
    SET status = '{DeliveryStatus.SUCCEEDED}', next_attempt_at = NULL, lease_until = NULL,
        claim_token = NULL, last_http_status = o.http_status, last_latency_ms = o.latency_ms,
        last_error = NULL
    FROM unnest(CAST(:done_ids AS varchar[]), CAST(:done_tokens AS varchar[]),
                CAST(:done_statuses AS integer[]), CAST(:done_latencies AS integer[]))
        AS o (id, token, http_status, latency_ms)
    WHERE d.id = o.id AND d.claim_token = o.token
    RETURNING d.id
), healthy AS (
    UPDATE webhook_endpoints
    SET consecutive_failures = 0, failing_since = NULL, last_success_at = :now
    WHERE id = ANY(CAST(:healthy_ids AS varchar[]))
      AND (consecutive_failures <> 0 OR failing_since IS NOT NULL
           OR last_success_at IS NULL OR last_success_at < :now - interval '1 second')
    RETURNING id
), candidates AS MATERIALIZED (
    SELECT id, endpoint_id, tenant_id, next_attempt_at
    FROM webhook_deliveries
    WHERE status = '{DeliveryStatus.PENDING}' AND next_attempt_at <= :now
      AND endpoint_id <> ALL(CAST(:full_endpoints AS varchar[]))
      AND tenant_id <> ALL(CAST(:full_tenants AS varchar[]))
      AND id <> ALL(CAST(:done_ids AS varchar[]))
    ORDER BY next_attempt_at
    LIMIT :window
    FOR UPDATE SKIP LOCKED
), ranked AS (
    SELECT id, next_attempt_at,
        row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id)
            AS endpoint_rank,
        row_number() OVER (PARTITION BY tenant_id ORDER BY next_attempt_at, id) AS tenant_rank
    FROM candidates
), picked AS (
    SELECT id, tenant_rank, next_attempt_at
    FROM ranked
    WHERE endpoint_rank <= :per_endpoint AND tenant_rank <= :per_tenant
    ORDER BY tenant_rank, next_attempt_at
    LIMIT :limit
)
UPDATE webhook_deliveries AS d
SET attempts = d.attempts + 1, claim_token = :token, lease_until = :until,
    next_attempt_at = :until, last_attempt_at = :now,
    first_attempt_at = coalesce(d.first_attempt_at, :now)
FROM picked, events AS e, webhook_endpoints AS w
WHERE d.id = ANY(ARRAY(SELECT id FROM picked)) AND d.id = picked.id
  AND e.id = d.event_id AND w.id = d.endpoint_id
RETURNING d.id AS delivery_id, d.event_id, d.event_type, d.endpoint_id, d.tenant_id,
    d.attempts AS attempt, d.first_attempt_at, e.body, w.url, w.status AS endpoint_status,
    w.deleted_at,
    (SELECT string_agg(s.id || ' ' || s.secret_encrypted, '|' ORDER BY s.generation DESC)
     FROM webhook_secrets AS s
     WHERE s.endpoint_id = d.endpoint_id AND (s.expires_at IS NULL OR s.expires_at > :now))
        AS secrets,
    picked.tenant_rank, picked.next_attempt_at AS due_at
"""  # noqa: S608

_NAMES = ARRAY(String())
_NUMBERS = ARRAY(Integer())

TURNOVER = TxStatement(
    text(_SQL)
    .bindparams(
        bindparam("done_ids", type_=_NAMES),
        bindparam("done_tokens", type_=_NAMES),
        bindparam("done_statuses", type_=_NUMBERS),
        bindparam("done_latencies", type_=_NUMBERS),
        bindparam("healthy_ids", type_=_NAMES),
        bindparam("full_endpoints", type_=_NAMES),
        bindparam("full_tenants", type_=_NAMES),
        bindparam("now", type_=UTCDateTime()),
        bindparam("until", type_=UTCDateTime()),
        bindparam("token", type_=String()),
        bindparam("window", type_=Integer()),
        bindparam("limit", type_=Integer()),
        bindparam("per_endpoint", type_=Integer()),
        bindparam("per_tenant", type_=Integer()),
    )
    .columns(
        delivery_id=String(),
        event_id=String(),
        event_type=String(),
        endpoint_id=String(),
        tenant_id=String(),
        attempt=Integer(),
        first_attempt_at=UTCDateTime(),
        body=String(),
        url=String(),
        endpoint_status=String(),
        deleted_at=UTCDateTime(),
        secrets=String(),
        tenant_rank=Integer(),
        due_at=UTCDateTime(),
    )
)


def turnover_parameters(
    succeeded: list[Succeeded], healthy: list[str], claim: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """TURNOVER's parameters: `claim` holds `limit`, `window`, `full_endpoints`,
    `full_tenants`, `per_endpoint`, `per_tenant`, `token` and `until`."""
    return {
        **claim,
        "now": now,
        "done_ids": [s.delivery_id for s in succeeded],
        "done_tokens": [s.token for s in succeeded],
        "done_statuses": [s.http_status for s in succeeded],
        "done_latencies": [s.latency_ms for s in succeeded],
        "healthy_ids": healthy,
    }


async def record_successes(
    session: AsyncSession, succeeded: Sequence[Succeeded], healthy: Sequence[str], now: datetime
) -> None:
    """What TURNOVER's `done` and `healthy` do, as statements of `session`'s transaction
    (SQLite's turn, and the batches of recorder.py)."""
    await session.execute(
        update(_DELIVERIES)
        .where(
            _DELIVERIES.c.id == bindparam("b_id"),
            _DELIVERIES.c.claim_token == bindparam("b_token"),
        )
        .values(
            status=DeliveryStatus.SUCCEEDED,
            next_attempt_at=None,
            lease_until=None,
            claim_token=None,
            last_http_status=bindparam("b_status"),
            last_latency_ms=bindparam("b_latency"),
            last_error=None,
        ),
        [
            {
                "b_id": s.delivery_id,
                "b_token": s.token,
                "b_status": s.http_status,
                "b_latency": s.latency_ms,
            }
            for s in succeeded
        ],
    )
    if healthy:
        await mark_healthy(session, healthy, now)


async def mark_healthy(session: AsyncSession, endpoint_ids: Sequence[str], now: datetime) -> None:
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
