"""What erasure does to an application's webhook events (docs/reference/staff-api.md §6.7).

Events are stored with the exact body that was (or will be) delivered, and that body carries
the tenant's reference and the application's state. In the erasure's transaction:

- every delivery of those events still `pending` becomes `cancelled` ("application erased"),
  its lease and claim dropped, so no worker sends it again or records an outcome for it;
- every stored body becomes a redacted tombstone that keeps only ids, type, times and the
  tenant's environment (docs/sandbox.md):
  `{"id", "type", "occurredAt", "tenantId", "environment", "data": {"clientId"},
  "redacted": true}`.

The event rows stay (ids, type, sequence and times are not personal data) so delivery logs and
the case's history keep their shape.
"""

from __future__ import annotations

from datetime import datetime

import orjson
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.webhooks import DeliveryStatus
from gatehouse.storage.tables.core import Event
from gatehouse.storage.tables.webhooks import Delivery
from gatehouse.timeutil import format_ts
from gatehouse.webhooks import environment_of

ERASED_REASON = "application erased"


def tombstone(
    event_id: str,
    event_type: str,
    occurred_at: datetime,
    tenant_id: str,
    client_id: str,
    environment: str,
) -> str:
    """The body an erased application's event keeps."""
    return orjson.dumps(
        {
            "id": event_id,
            "type": event_type,
            "occurredAt": format_ts(occurred_at),
            "tenantId": tenant_id,
            "environment": environment,
            "data": {"clientId": client_id},
            "redacted": True,
        }
    ).decode()


async def redact_events(session: AsyncSession, application_id: str) -> tuple[int, int]:
    """Cancel pending deliveries and tombstone the bodies; (cancelled, redacted) counts."""
    event_ids = select(Event.id).where(Event.application_id == application_id)
    cancelled = await session.execute(
        update(Delivery)
        .where(Delivery.event_id.in_(event_ids), Delivery.status == DeliveryStatus.PENDING)
        .values(
            status=DeliveryStatus.CANCELLED,
            last_error=ERASED_REASON,
            next_attempt_at=None,
            lease_until=None,
            claim_token=None,
        )
    )
    rows = (
        await session.execute(
            select(Event.id, Event.type, Event.occurred_at, Event.tenant_id).where(
                Event.application_id == application_id
            )
        )
    ).all()
    for event_id, event_type, occurred_at, tenant_id in rows:
        environment = await environment_of(session, tenant_id)
        body = tombstone(event_id, event_type, occurred_at, tenant_id, application_id, environment)
        await session.execute(update(Event).where(Event.id == event_id).values(body=body))
    return int(cancelled.rowcount or 0), len(rows)  # type: ignore[attr-defined]
