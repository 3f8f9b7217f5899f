"""Writing events to the outbox, in the transaction of the change (docs/reference/webhooks.md §2.3).

`publish` builds the envelope once, stores its exact bytes, and fans out:
one `pending` delivery per enabled endpoint of the tenant whose filter
matches, in the same transaction, so an event and its deliveries commit (or
vanish) together. Events that occur while an endpoint is disabled make no
delivery for it (docs/reference/webhooks.md §6.6).

Every envelope carries the tenant's `environment` (`live` or `sandbox`, docs/sandbox.md).
A tenant's environment is fixed when it is created, so it is remembered per process once read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.webhooks import DeliveryStatus, EndpointStatus
from gatehouse.ids import new_id
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import Event, Tenant
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.timeutil import format_ts
from gatehouse.webhooks import wakeup
from gatehouse.webhooks.rules import filter_matches

API_VERSION = "v1"
LIVE = "live"

# tenant id -> environment; environments never change, so entries never go stale.
_ENVIRONMENTS: dict[str, str] = {}
_ENVIRONMENTS_MAX = 10_000


async def environment_of(session: AsyncSession, tenant_id: str) -> str:
    """The tenant's `environment` for its envelopes (`live` for an unknown tenant)."""
    known = _ENVIRONMENTS.get(tenant_id)
    if known is not None:
        return known
    found = await session.scalar(select(Tenant.environment).where(Tenant.id == tenant_id))
    if found is None:
        return LIVE
    if len(_ENVIRONMENTS) >= _ENVIRONMENTS_MAX:
        _ENVIRONMENTS.pop(next(iter(_ENVIRONMENTS)))
    _ENVIRONMENTS[tenant_id] = found
    return found


def application_data(application: Application, sequence: int) -> dict[str, Any]:
    """The common `data` fields of an application event (docs/reference/webhooks.md §2.3)."""
    return {
        "clientId": application.id,
        "externalRef": application.external_ref,
        "status": application.status,
        "sequence": sequence,
    }


async def publish(
    session: AsyncSession,
    *,
    tenant_id: str,
    event_type: str,
    occurred_at: datetime,
    data: dict[str, Any],
    application: Application | None = None,
) -> Event:
    """Add one event to the outbox.

    For application events, pass the (row-locked) application: its
    `event_sequence` allocates `data.sequence`, and `clientId`, `externalRef`
    and `status` are filled in from it unless `data` sets them.
    """
    event_id = new_id("evt")
    sequence: int | None = None
    payload = dict(data)
    if application is not None:
        application.event_sequence = (application.event_sequence or 0) + 1
        sequence = application.event_sequence
        payload = {**application_data(application, sequence), **data, "sequence": sequence}
    envelope = {
        "id": event_id,
        "type": event_type,
        "apiVersion": API_VERSION,
        "occurredAt": format_ts(occurred_at),
        "tenantId": tenant_id,
        "environment": await environment_of(session, tenant_id),
        "idempotencyKey": event_id,
        "data": payload,
    }
    event = Event(
        id=event_id,
        tenant_id=tenant_id,
        application_id=application.id if application is not None else None,
        type=event_type,
        sequence=sequence,
        occurred_at=occurred_at,
        body=orjson.dumps(envelope).decode(),
        created_at=occurred_at,
    )
    session.add(event)
    await fan_out(session, event)
    return event


async def fan_out(session: AsyncSession, event: Event) -> int:
    """One pending delivery per enabled, matching endpoint of the event's tenant."""
    endpoints = (
        await session.execute(
            select(WebhookEndpoint.id, WebhookEndpoint.events).where(
                WebhookEndpoint.tenant_id == event.tenant_id,
                WebhookEndpoint.status == EndpointStatus.ENABLED,
                WebhookEndpoint.deleted_at.is_(None),
            )
        )
    ).all()
    matching = [
        endpoint_id for endpoint_id, events in endpoints if filter_matches(events, event.type)
    ]
    if not matching:
        return 0
    # The event row must exist before the deliveries that reference it.
    await session.flush()
    for endpoint_id in matching:
        session.add(
            Delivery(
                id=new_id("dlv"),
                event_id=event.id,
                endpoint_id=endpoint_id,
                tenant_id=event.tenant_id,
                event_type=event.type,
                status=DeliveryStatus.PENDING,
                attempts=0,
                created_at=event.created_at,
                next_attempt_at=event.created_at,
            )
        )
    await wakeup.announce(session)
    return len(matching)
