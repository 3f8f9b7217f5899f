"""The durable callback queue (docs/reference/verification.md §5.4).

`enqueue` writes one callback row in the caller's transaction, so a change and
its callback commit together; the delivery worker (`delivery.py`) sends it.
A client without a registered callback gets none. After the commit, the
callback workers of this process are woken at once instead of waiting for
their next poll (storage/leases.py `WakeChannel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.verification import CallbackStatus, CustomerFacts, callback_payload
from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.leases import WakeChannel
from gatehouse.storage.tables.verification import (
    Customer,
    VerificationCallback,
    VerificationClient,
)
from gatehouse.verification.schemas import callback_view

if TYPE_CHECKING:
    pass

__all__ = ["CALLBACKS", "callback_view", "enqueue", "facts_of"]

# Wakes the callback workers of this process when a transaction that queued one commits.
CALLBACKS = WakeChannel("gatehouse_verification_callbacks")


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
        status=CallbackStatus.PENDING,
        attempts=0,
        attempts_log=[],
        # Due at once, on the clock the worker reads (runtime.now()).
        next_attempt_at=runtime.now(),
        created_at=runtime.now(),
    )
    session.add(row)
    CALLBACKS.on_commit(session)
    return row
