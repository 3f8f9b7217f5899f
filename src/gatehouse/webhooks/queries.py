"""The SQL of webhook endpoints, their secrets and their deliveries' states
(docs/reference/webhooks.md §4, §6.6, §6.7): lookups, counts and the one bulk update that ends
an endpoint's pending deliveries. No rules; the delivery worker's own statements live with it
(`webhooks/delivery/`), the outbox's with the outbox (`webhooks/outbox.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.webhooks import DeliveryStatus, EndpointStatus
from gatehouse.storage.tables.core import Notification, Tenant
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint, WebhookSecret


async def live_endpoint(
    session: AsyncSession, tenant_id: str, endpoint_id: str, *, lock: bool = False
) -> WebhookEndpoint | None:
    """The tenant's endpoint unless deleted; row-locked when `lock`."""
    stmt = select(WebhookEndpoint).where(
        WebhookEndpoint.id == endpoint_id,
        WebhookEndpoint.tenant_id == tenant_id,
        WebhookEndpoint.deleted_at.is_(None),
    )
    if lock:
        stmt = stmt.with_for_update()
    return await session.scalar(stmt)


async def endpoint_for_update(session: AsyncSession, endpoint_id: str) -> WebhookEndpoint | None:
    """Any endpoint by id, row-locked."""
    return await session.scalar(
        select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).with_for_update()
    )


async def tenant_for_update(session: AsyncSession, tenant_id: str) -> Tenant | None:
    """The tenant row, locked: endpoint creation counts against its cap under this lock."""
    return await session.scalar(select(Tenant).where(Tenant.id == tenant_id).with_for_update())


async def live_endpoint_count(session: AsyncSession, tenant_id: str) -> int:
    """How many endpoints the tenant has, deleted ones aside."""
    count = await session.scalar(
        select(func.count())
        .select_from(WebhookEndpoint)
        .where(WebhookEndpoint.tenant_id == tenant_id, WebhookEndpoint.deleted_at.is_(None))
    )
    return int(count or 0)


async def live_endpoints(session: AsyncSession, tenant_id: str) -> list[WebhookEndpoint]:
    """The tenant's endpoints, deleted ones aside, oldest first."""
    rows = await session.scalars(
        select(WebhookEndpoint)
        .where(WebhookEndpoint.tenant_id == tenant_id, WebhookEndpoint.deleted_at.is_(None))
        .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id)
    )
    return list(rows.all())


async def endpoints_by_tenant(
    session: AsyncSession, tenant_id: str | None = None
) -> list[WebhookEndpoint]:
    """Endpoints (of one tenant, or all), deleted ones aside, by tenant then id."""
    query = select(WebhookEndpoint).where(WebhookEndpoint.deleted_at.is_(None))
    if tenant_id is not None:
        query = query.where(WebhookEndpoint.tenant_id == tenant_id)
    query = query.order_by(WebhookEndpoint.tenant_id, WebhookEndpoint.id)
    return list((await session.scalars(query)).all())


async def failing_endpoint_ids(session: AsyncSession, failing_before: datetime) -> list[str]:
    """Enabled live endpoints failing since `failing_before` or earlier."""
    query = select(WebhookEndpoint.id).where(
        WebhookEndpoint.status == EndpointStatus.ENABLED,
        WebhookEndpoint.deleted_at.is_(None),
        WebhookEndpoint.failing_since <= failing_before,
    )
    return list((await session.scalars(query)).all())


async def secrets_newest_first(session: AsyncSession, endpoint_id: str) -> list[WebhookSecret]:
    """Every secret of the endpoint, newest generation first."""
    rows = await session.scalars(
        select(WebhookSecret)
        .where(WebhookSecret.endpoint_id == endpoint_id)
        .order_by(WebhookSecret.generation.desc())
    )
    return list(rows.all())


async def active_secret_rows(
    session: AsyncSession, endpoint_id: str, now: datetime
) -> list[WebhookSecret]:
    """The endpoint's secrets still active at `now`, newest generation first."""
    rows = await session.scalars(
        select(WebhookSecret)
        .where(
            WebhookSecret.endpoint_id == endpoint_id,
            (WebhookSecret.expires_at.is_(None)) | (WebhookSecret.expires_at > now),
        )
        .order_by(WebhookSecret.generation.desc())
    )
    return list(rows.all())


async def end_pending(
    session: AsyncSession, endpoint_id: str, *, status: DeliveryStatus, reason: str
) -> None:
    """The endpoint's pending deliveries end in `status` (dead when it is disabled, cancelled
    when deleted) with `reason` as their last error, unscheduled and unleased."""
    await session.execute(
        update(Delivery)
        .where(Delivery.endpoint_id == endpoint_id, Delivery.status == DeliveryStatus.PENDING)
        .values(
            status=status,
            last_error=reason,
            next_attempt_at=None,
            lease_until=None,
            claim_token=None,
        )
    )


async def open_delivery_counts(
    session: AsyncSession, endpoint_ids: Iterable[str]
) -> dict[tuple[str, str], int]:
    """(endpoint id, status) -> how many of its deliveries are dead or pending."""
    rows = await session.execute(
        select(Delivery.endpoint_id, Delivery.status, func.count())
        .where(
            Delivery.endpoint_id.in_(list(endpoint_ids)),
            Delivery.status.in_((DeliveryStatus.DEAD, DeliveryStatus.PENDING)),
        )
        .group_by(Delivery.endpoint_id, Delivery.status)
    )
    return {(endpoint_id, status): int(n) for endpoint_id, status, n in rows.all()}


async def dead_deliveries(
    session: AsyncSession, tenant_id: str | None = None, limit: int = 50
) -> list[Delivery]:
    """The newest dead deliveries (of one tenant, or all), for the dashboard."""
    query = select(Delivery).where(Delivery.status == DeliveryStatus.DEAD)
    if tenant_id is not None:
        query = query.where(Delivery.tenant_id == tenant_id)
    query = query.order_by(Delivery.created_at.desc(), Delivery.id.desc()).limit(limit)
    return list((await session.scalars(query)).all())


async def recent_notifications(
    session: AsyncSession, tenant_id: str | None = None, limit: int = 50
) -> list[Notification]:
    """The newest staff notifications (of one tenant, or all), newest first: the staff list
    (docs/reference/staff-api.md §7) and the dashboard's webhooks page."""
    query = select(Notification)
    if tenant_id:
        query = query.where(Notification.tenant_id == tenant_id)
    query = query.order_by(Notification.created_at.desc(), Notification.id.desc()).limit(limit)
    return list((await session.scalars(query)).all())
