"""Delivery history, staff dead-letter list and replay (spec 2 §4.5; CONTRACT §2.1, §4).

Lists are newest first (createdAt, then id, descending; CONTRACT §6) and
cursor-paged with signed, filter-bound cursors; query parameters are
validated like the application list (unknown or repeated names, a limit
outside 1..100, an unknown status, a foreign cursor: 400 invalid-argument).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import audit
from gatehouse.crypto import Crypto
from gatehouse.http.cursors import decode_cursor, encode_cursor
from gatehouse.http.errors import failed_precondition, invalid_argument, not_found
from gatehouse.ids import new_id
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.webhooks import wakeup
from gatehouse.webhooks.views import delivery_view, staff_delivery_view

DELIVERY_STATUSES = ("pending", "succeeded", "dead", "cancelled")
DEFAULT_LIMIT = 25
MAX_LIMIT = 100
_DIGITS = re.compile(r"[0-9]{1,6}")


@dataclass(frozen=True)
class DeliveryQuery:
    limit: int
    cursor: str | None
    status: str | None
    tenant_id: str | None = None

    def filters(self, scope: str) -> dict[str, Any]:
        return {"scope": scope, "status": self.status, "tenantId": self.tenant_id}


def parse_delivery_query(
    params: list[tuple[str, str]], *, allowed: frozenset[str] = frozenset()
) -> DeliveryQuery:
    """`limit`, `cursor`, `status` (and, for staff, `tenantId`); anything else is 400."""
    names = frozenset({"limit", "cursor", "status"}) | allowed
    values: dict[str, str] = {}
    for name, value in params:
        if name not in names:
            raise invalid_argument(f"Unknown query parameter {name}.", name, "unknown parameter")
        if name in values:
            raise invalid_argument(f"{name} is given more than once.", name, "repeated")
        values[name] = value
    limit = DEFAULT_LIMIT
    if "limit" in values:
        text = values["limit"].strip()
        if not _DIGITS.fullmatch(text) or not 1 <= int(text) <= MAX_LIMIT:
            raise invalid_argument(
                "limit must be an integer from 1 to 100.", "limit", "must be an integer 1..100"
            )
        limit = int(text)
    status = values.get("status")
    if status is not None and status not in DELIVERY_STATUSES:
        raise invalid_argument(
            "status must be one of pending, succeeded, dead, cancelled.", "status", "unknown status"
        )
    cursor = values.get("cursor")
    if cursor is not None and not cursor:
        raise invalid_argument("The cursor is not valid for this request.", "cursor", "empty")
    return DeliveryQuery(
        limit=limit, cursor=cursor, status=status, tenant_id=values.get("tenantId") or None
    )


def _position(
    crypto: Crypto, kind: str, filters: dict[str, Any], cursor: str
) -> tuple[datetime, str]:
    position = decode_cursor(crypto, kind, filters, cursor)
    try:
        return datetime.fromisoformat(str(position[0])), str(position[1])
    except (ValueError, IndexError):
        raise invalid_argument(
            "The cursor is not valid for this request.", "cursor", "invalid cursor"
        ) from None


async def _page(
    session: AsyncSession,
    crypto: Crypto,
    stmt: Any,
    query: DeliveryQuery,
    kind: str,
    filters: dict[str, Any],
    view: Any,
) -> dict[str, Any]:
    if query.status is not None:
        stmt = stmt.where(Delivery.status == query.status)
    if query.cursor is not None:
        created_at, delivery_id = _position(crypto, kind, filters, query.cursor)
        stmt = stmt.where(
            or_(
                Delivery.created_at < created_at,
                and_(Delivery.created_at == created_at, Delivery.id < delivery_id),
            )
        )
    stmt = stmt.order_by(Delivery.created_at.desc(), Delivery.id.desc()).limit(query.limit + 1)
    rows = list((await session.scalars(stmt)).all())
    has_more = len(rows) > query.limit
    page = rows[: query.limit]
    next_cursor = None
    if has_more and page:
        last = page[-1]
        next_cursor = encode_cursor(crypto, kind, filters, [last.created_at.isoformat(), last.id])
    return {"data": [view(row) for row in page], "nextCursor": next_cursor, "hasMore": has_more}


async def endpoint_deliveries(
    session: AsyncSession, crypto: Crypto, endpoint_id: str, query: DeliveryQuery
) -> dict[str, Any]:
    """`GET /v1/webhooks/{id}/deliveries` (the route has checked the endpoint is the tenant's)."""
    stmt = select(Delivery).where(Delivery.endpoint_id == endpoint_id)
    filters = query.filters(endpoint_id)
    return await _page(session, crypto, stmt, query, "webhook_deliveries", filters, delivery_view)


async def staff_deliveries(
    session: AsyncSession, crypto: Crypto, query: DeliveryQuery
) -> dict[str, Any]:
    """`GET /staff/v1/deliveries?status&tenantId` (CONTRACT §4)."""
    stmt = select(Delivery)
    if query.tenant_id is not None:
        stmt = stmt.where(Delivery.tenant_id == query.tenant_id)
    filters = query.filters("staff")
    return await _page(
        session, crypto, stmt, query, "staff_deliveries", filters, staff_delivery_view
    )


async def replay_delivery(
    session: AsyncSession,
    *,
    delivery_id: str,
    now: datetime,
    actor: str,
    request_id: str | None,
) -> dict[str, Any]:
    """A new pending delivery of the same event to the same endpoint (CONTRACT §4).

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
    if endpoint.status != "enabled":
        raise failed_precondition("The webhook endpoint is disabled; enable it before a replay.")
    replay = Delivery(
        id=new_id("dlv"),
        event_id=original.event_id,
        endpoint_id=original.endpoint_id,
        tenant_id=original.tenant_id,
        event_type=original.event_type,
        status="pending",
        attempts=0,
        created_at=now,
        next_attempt_at=now,
        replay_of=original.id,
    )
    session.add(replay)
    audit.record(
        session,
        at=now,
        actor=actor,
        action="webhook.delivery.replay",
        target=replay.id,
        tenant_id=original.tenant_id,
        request_id=request_id,
    )
    await session.flush()
    await wakeup.announce(session)
    return staff_delivery_view(replay)
