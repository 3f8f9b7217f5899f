"""The durable callback queue (spec 3 §6; CONTRACT §3).

`enqueue` writes one callback row in the caller's transaction, so a change and
its callback commit together; the delivery worker (`delivery.py`) sends it.
A client without a registered callback gets none. After the commit, the
worker of this process is woken at once instead of waiting for its next poll.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from gatehouse.domain.verification import CustomerFacts, callback_payload
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import (
    Customer,
    VerificationCallback,
    VerificationClient,
)
from gatehouse.timeutil import format_ts, utcnow

__all__ = ["callback_view", "enqueue", "facts_of", "waker"]

# One wake-up event per runtime (keyed by id: a Runtime is not hashable).
_wakers: dict[int, asyncio.Event] = {}


def waker(runtime: Runtime) -> asyncio.Event:
    """The event that wakes this runtime's callback worker."""
    wake = _wakers.get(id(runtime))
    if wake is None:
        wake = _wakers[id(runtime)] = asyncio.Event()
    return wake


def forget_waker(runtime: Runtime) -> None:
    _wakers.pop(id(runtime), None)


def _wake_after_commit(session: AsyncSession, runtime: Runtime) -> None:
    if session.info.get("verification_wake"):
        return
    session.info["verification_wake"] = True

    def on_commit(_sync_session: Session) -> None:
        wake = _wakers.get(id(runtime))
        if wake is not None:
            wake.set()

    event.listen(session.sync_session, "after_commit", on_commit, once=True)


def facts_of(customer: Customer) -> CustomerFacts:
    return CustomerFacts(
        id=customer.id,
        uuid=customer.uuid,
        email=customer.email,
        phone=customer.phone,
        status=customer.status,
        updated_at=customer.updated_at,
    )


def enqueue(
    session: AsyncSession,
    runtime: Runtime,
    client: VerificationClient,
    customer: Customer,
    event_type: str,
    expiry_warning_for: Sequence[str] = (),
) -> VerificationCallback | None:
    """Queue one callback for `customer` (flushed, so `customer.id` is set)."""
    if not client.callback_url or not client.callback_passphrase_encrypted:
        return None
    row = VerificationCallback(
        id=new_id("vcb"),
        client_uuid=client.uuid,
        customer_id=customer.id,
        event=event_type,
        payload=callback_payload(facts_of(customer), event_type, expiry_warning_for),
        status="pending",
        attempts=0,
        attempts_log=[],
        # Delivery runs on real time, whatever clock the business rules use.
        next_attempt_at=utcnow(),
        created_at=runtime.now(),
    )
    session.add(row)
    _wake_after_commit(session, runtime)
    return row


def callback_view(row: VerificationCallback, customer_uuid: str | None) -> dict[str, Any]:
    """The staff view of one callback: never the passphrase (it is not stored here)."""
    return {
        "callbackId": row.id,
        "clientUuid": row.client_uuid,
        "customerUuid": customer_uuid,
        "event": row.event,
        "newStatus": row.payload.get("newStatus"),
        "expiryWarningFor": row.payload.get("expiryWarningFor", []),
        "status": row.status,
        "attempts": row.attempts,
        "lastStatusCode": row.last_status_code,
        "lastError": row.last_error,
        "nextAttemptAt": format_ts(row.next_attempt_at) if row.status == "pending" else None,
        "createdAt": format_ts(row.created_at),
        "completedAt": format_ts(row.completed_at),
        "attemptLog": row.attempts_log,
    }
