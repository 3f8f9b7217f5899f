"""Writing events to the outbox, in the transaction of the change (spec 2 §2.2).

`publish` builds the envelope once, stores its exact bytes, and (once the
webhooks area lands its fan-out) creates one delivery per matching endpoint
in the same transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.ids import new_id
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import Event
from gatehouse.timeutil import format_ts

API_VERSION = "v1"


def application_data(application: Application, sequence: int) -> dict[str, Any]:
    """The common `data` fields of an application event (spec 2 §2.2)."""
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
    return event
