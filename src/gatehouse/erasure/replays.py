"""What erasure does to the answers remembered for `Idempotency-Key` replays.

docs/documents.md §6; docs/reference/tenant-api.md §4.6. A remembered answer can hold the
applicant's data (the application read answered by provisioning: email, company name,
reference). In the erasure's transaction, every finished record of the application's tenant
that names the application (`idempotency_records.application_id`) becomes `erased`: its
stored answer and status are dropped. The record keeps its key, fingerprint and expiry, so
for the rest of its 24 hours the same request with the same key is answered 410
`failed-precondition` ("The application was erased.", with `Idempotent-Replayed: true`), as
the request itself would now be, without running again; the same key with another request
is still 400.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.tables.core import IdempotencyRecord

__all__ = ["ERASED_STATE", "forget_replays"]

# The state `gatehouse.web.idempotency` answers with 410 (beside `in_flight` and `done`).
ERASED_STATE = "erased"


async def forget_replays(session: AsyncSession, tenant_id: str, application_id: str) -> int:
    """Drop the remembered answers about the application; how many."""
    result = await session.execute(
        update(IdempotencyRecord)
        .where(
            IdempotencyRecord.tenant_id == tenant_id,
            IdempotencyRecord.application_id == application_id,
            IdempotencyRecord.state == "done",
        )
        .values(state=ERASED_STATE, status_code=None, response_encrypted=None)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)
