"""The link from verification customers to applications (docs/reference/verification.md, last
point).

A customer created with `clientId` is linked to that application; while it is
Accepted (6) it satisfies the application's checklist items of kind
`verification`, and no longer once it leaves 6.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.verification import ACCEPTED
from gatehouse.storage.tables.verification import Customer

__all__ = ["application_verified"]


async def application_verified(session: AsyncSession, application_id: str) -> datetime | None:
    """When a customer linked to `application_id` became Accepted (6).

    The earliest such moment among the linked customers that are Accepted
    now; None when no linked customer is currently Accepted.
    """
    return await session.scalar(
        select(func.min(Customer.accepted_at)).where(
            Customer.application_id == application_id, Customer.status == ACCEPTED
        )
    )
