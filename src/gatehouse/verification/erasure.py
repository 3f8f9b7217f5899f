"""What erasing an application does to the verification customers linked to it.

docs/documents.md §6; docs/reference/verification.md §7. In the erasure's transaction, for
every customer whose `application_id` is the erased application:

- `email` and `phone` become empty strings (the interface's fields stay strings) and the
  staff's `reason` is cleared; status, documents, link and times stay, so the verification
  client still learns the outcome by `uuid`;
- every callback of that customer not sent yet (`pending`, or `delivering` under a lease)
  becomes `dropped` with `lastError` "application erased": it is never sent, and an attempt
  already under way records no outcome (its lease no longer matches);
- every stored callback body loses the email and phone it carried (they become empty).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.verification import OPEN_CALLBACK_STATUSES, CallbackStatus
from gatehouse.storage.tables.verification import Customer, VerificationCallback

__all__ = ["ERASED_REASON", "erase_linked_customers"]

ERASED_REASON = "application erased"
# The personal fields of a customer, in the customer row and in every callback body.
PERSONAL_FIELDS = ("email", "phone")


async def erase_linked_customers(session: AsyncSession, application_id: str, at: datetime) -> int:
    """Clear the personal fields of the customers linked to the application; how many."""
    customers = list(
        await session.scalars(select(Customer).where(Customer.application_id == application_id))
    )
    if not customers:
        return 0
    ids = [customer.id for customer in customers]
    for customer in customers:
        customer.email = ""
        customer.phone = ""
        customer.status_reason = None
    await session.execute(
        update(VerificationCallback)
        .where(
            VerificationCallback.customer_id.in_(ids),
            VerificationCallback.status.in_(OPEN_CALLBACK_STATUSES),
        )
        .values(
            status=CallbackStatus.DROPPED,
            last_error=ERASED_REASON,
            next_attempt_at=None,
            lease_until=None,
            completed_at=at,
        )
    )
    callbacks = await session.scalars(
        select(VerificationCallback).where(VerificationCallback.customer_id.in_(ids))
    )
    for callback in callbacks:
        # A new dict: the JSON column notices reassignment, not mutation in place.
        callback.payload = {**callback.payload, **dict.fromkeys(PERSONAL_FIELDS, "")}
    await session.flush()
    return len(customers)
