"""Delivery history, staff dead-letter list and replay (docs/reference/webhooks.md §4.11;
docs/reference/staff-api.md §7).

Lists are newest first (createdAt, then id, descending) and keyset-paged with signed,
filter-bound cursors (`gatehouse.paging`); query parameters are validated like the
application list (unknown or repeated names, a limit outside 1..100, an unknown status, a
foreign cursor: 400 invalid-argument).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.crypto import Crypto
from gatehouse.domain.webhooks import DELIVERY_STATUSES, DeliveryStatus, EndpointStatus
from gatehouse.errors import failed_precondition, invalid_argument, not_found
from gatehouse.ids import new_id
from gatehouse.paging import (
    STAFF,
    CursorScope,
    PageRequest,
    keyset_after,
    page_of,
    parse_page,
    query_values,
    read_position,
)
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.webhooks import wakeup
from gatehouse.webhooks.schemas import (
    StaffDelivery,
    delivery_view,
    history_view,
    staff_delivery_view,
)


@dataclass(frozen=True)
class DeliveryQuery:
    page: PageRequest
    status: str | None
    tenant_id: str | None = None

    def filters(self) -> dict[str, Any]:
        return {"status": self.status, "tenantId": self.tenant_id}


def parse_delivery_query(
    params: list[tuple[str, str]], *, allowed: frozenset[str] = frozenset()
) -> DeliveryQuery:
    """`limit`, `cursor`, `status` (and, for staff, `tenantId`); anything else is 400."""
    values = query_values(params, frozenset({"limit", "cursor", "status"}) | allowed)
    status = values.get("status")
    if status is not None and status not in DELIVERY_STATUSES:
        raise invalid_argument(
            "status must be one of pending, succeeded, dead, cancelled.", "status", "unknown status"
        )
    return DeliveryQuery(
        page=parse_page(values.get("limit"), values.get("cursor")),
        status=status,
        tenant_id=values.get("tenantId") or None,
    )


async def _page(
    session: AsyncSession,
    crypto: Crypto,
    stmt: Select[Delivery],
    query: DeliveryQuery,
    scope: CursorScope,
    view: Callable[[Delivery], Any],
) -> dict[str, Any]:
    if query.status is not None:
        stmt = stmt.where(Delivery.status == query.status)
    position = read_position(crypto, scope, query.page.cursor)
    stmt = keyset_after(stmt, Delivery.created_at, Delivery.id, position)
    rows = list((await session.scalars(stmt.limit(query.page.limit + 1))).all())
    return page_of(
        rows,
        query.page,
        crypto=crypto,
        scope=scope,
        position_of=lambda delivery: (delivery.created_at, delivery.id),
        view=view,
    )


async def endpoint_deliveries(
    session: AsyncSession,
    crypto: Crypto,
    endpoint: WebhookEndpoint,
    query: DeliveryQuery,
    *,
    with_latency: bool = False,
) -> dict[str, Any]:
    """`GET /v1/webhooks/{id}/deliveries` (the route has loaded the tenant's endpoint);
    `with_latency`: the tenant console's history, with each last attempt's latency.

    Its cursors are bound to the tenant and the endpoint.
    """
    endpoint_id = endpoint.id
    stmt = select(Delivery).where(Delivery.endpoint_id == endpoint_id)
    filters = {**query.filters(), "endpointId": endpoint_id}
    scope = CursorScope("webhook_deliveries", endpoint.tenant_id, filters)
    view = history_view if with_latency else delivery_view
    return await _page(session, crypto, stmt, query, scope, view)


async def staff_deliveries(
    session: AsyncSession, crypto: Crypto, query: DeliveryQuery
) -> dict[str, Any]:
    """`GET /staff/v1/deliveries?status&tenantId` (docs/reference/staff-api.md §7.1)."""
    stmt = select(Delivery)
    if query.tenant_id is not None:
        stmt = stmt.where(Delivery.tenant_id == query.tenant_id)
    scope = CursorScope("staff_deliveries", STAFF, query.filters())
    return await _page(session, crypto, stmt, query, scope, staff_delivery_view)


async def replay_delivery(
    session: AsyncSession, ctx: WriteContext, delivery_id: str
) -> StaffDelivery:
    """A new pending delivery of the same event to the same endpoint.

    docs/reference/staff-api.md §7.2.

    The endpoint must still exist and be enabled (re-enable it first).
    """
    original = await session.scalar(select(Delivery).where(Delivery.id == delivery_id))
    if original is None:
        raise not_found("The delivery was not found.")
    endpoint = await session.scalar(
        select(WebhookEndpoint).where(WebhookEndpoint.id == original.endpoint_id)
    )
    if endpoint is None or endpoint.deleted_at is not None:
        raise failed_precondition("The delivery's webhook endpoint was deleted.")
    if endpoint.status != EndpointStatus.ENABLED:
        raise failed_precondition("The webhook endpoint is disabled; enable it before a replay.")
    replay = Delivery(
        id=new_id("dlv"),
        event_id=original.event_id,
        endpoint_id=original.endpoint_id,
        tenant_id=original.tenant_id,
        event_type=original.event_type,
        status=DeliveryStatus.PENDING,
        attempts=0,
        created_at=ctx.now,
        next_attempt_at=ctx.now,
        replay_of=original.id,
    )
    session.add(replay)
    ctx.audit(session, "webhook.delivery.replay", replay.id, tenant_id=original.tenant_id)
    await session.flush()
    await wakeup.announce(session)
    return staff_delivery_view(replay)
