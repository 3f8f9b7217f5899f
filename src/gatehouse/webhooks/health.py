"""Endpoint health: disabling, re-enabling, staff notifications (docs/reference/webhooks.md §6.6,
§6.7).

Disabling (automatic or manual) turns the endpoint's pending deliveries
`dead`; an automatic disable also writes a staff notification
(`endpoint_disabled`) and a log line. Re-enabling resets the failure counter
and replays nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.webhooks import DeliveryStatus, EndpointStatus
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Notification
from gatehouse.storage.tables.webhooks import WebhookEndpoint
from gatehouse.timeutil import format_ts
from gatehouse.webhooks import queries, rules
from gatehouse.webhooks.rules import REASON_MANUAL

log = logging.getLogger("gatehouse.webhooks")

NOTIFICATION_KIND = "endpoint_disabled"


async def disable_endpoint(
    session: AsyncSession, endpoint: WebhookEndpoint, *, reason: str, now: datetime
) -> None:
    """Disable `endpoint` for `reason`; pending deliveries become dead.

    Any reason but `manual` is automatic: staff get a notification record and
    a log line (docs/reference/webhooks.md §6.7).
    """
    endpoint.status = EndpointStatus.DISABLED
    endpoint.disabled_reason = reason
    endpoint.updated_at = now
    await queries.end_pending(
        session, endpoint.id, status=DeliveryStatus.DEAD, reason="endpoint disabled"
    )
    if reason == REASON_MANUAL:
        return
    session.add(
        Notification(
            id=new_id("ntf"),
            kind=NOTIFICATION_KIND,
            tenant_id=endpoint.tenant_id,
            endpoint_id=endpoint.id,
            reason=reason,
            created_at=now,
            acknowledged=False,
        )
    )
    log.warning(
        "webhook endpoint disabled automatically",
        extra={"endpoint_id": endpoint.id, "tenant_id": endpoint.tenant_id, "reason": reason},
    )


async def disable_failing_endpoints(runtime: Runtime) -> int:
    """Disable (`failing_24h`) enabled endpoints whose dead deliveries are unanswered by a
    success for 24 h, scaled (docs/reference/webhooks.md §6.6), even when no delivery goes
    dead any more (the worker runs this periodically). Returns how many were disabled."""
    now = runtime.now()
    cutoff = now - rules.FAILING_WINDOW * runtime.settings.webhook_backoff_scale
    async with runtime.db.read() as session:
        candidates = await queries.failing_endpoint_ids(session, cutoff)
    if not candidates:
        return 0
    disabled = 0
    async with runtime.db.write() as session:
        for endpoint_id in sorted(candidates):
            endpoint = await queries.endpoint_for_update(session, endpoint_id)
            if (
                endpoint is not None
                and endpoint.status == EndpointStatus.ENABLED
                and rules.failing_too_long(
                    endpoint.failing_since, now, runtime.settings.webhook_backoff_scale
                )
            ):
                await disable_endpoint(session, endpoint, reason=rules.REASON_FAILING_24H, now=now)
                disabled += 1
    return disabled


def enable_endpoint(endpoint: WebhookEndpoint, *, now: datetime) -> None:
    """Status enabled, counter 0, no reason; dead deliveries stay dead (docs/reference/webhooks.md
    §4.7)."""
    endpoint.status = EndpointStatus.ENABLED
    endpoint.disabled_reason = None
    endpoint.consecutive_failures = 0
    endpoint.failing_since = None
    endpoint.updated_at = now


@dataclass(frozen=True)
class EndpointHealth:
    """One endpoint as the staff dashboard shows it."""

    endpoint_id: str
    tenant_id: str
    url: str
    status: str
    disabled_reason: str | None
    consecutive_failures: int
    last_success_at: datetime | None
    dead_deliveries: int
    pending_deliveries: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "endpointId": self.endpoint_id,
            "tenantId": self.tenant_id,
            "url": self.url,
            "status": self.status,
            "disabledReason": self.disabled_reason,
            "consecutiveFailures": self.consecutive_failures,
            "lastSuccessAt": format_ts(self.last_success_at),
            "deadDeliveries": self.dead_deliveries,
            "pendingDeliveries": self.pending_deliveries,
        }


async def endpoint_health(
    session: AsyncSession, tenant_id: str | None = None
) -> list[EndpointHealth]:
    """Endpoints (of one tenant, or all) with their health, for the dashboard."""
    endpoints = await queries.endpoints_by_tenant(session, tenant_id)
    counts: dict[tuple[str, str], int] = {}
    if endpoints:
        counts = await queries.open_delivery_counts(session, (e.id for e in endpoints))
    return [
        EndpointHealth(
            endpoint_id=e.id,
            tenant_id=e.tenant_id,
            url=e.url,
            status=e.status,
            disabled_reason=e.disabled_reason,
            consecutive_failures=e.consecutive_failures,
            last_success_at=e.last_success_at,
            dead_deliveries=counts.get((e.id, DeliveryStatus.DEAD), 0),
            pending_deliveries=counts.get((e.id, DeliveryStatus.PENDING), 0),
        )
        for e in endpoints
    ]
