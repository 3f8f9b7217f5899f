"""Lock and unlock applicant portal access (spec 1 §3.2, §4.9, §4.10; CONTRACT §1.3).

Both answer 200 `{clientId, access}` and are idempotent. Locking also
revokes every unused sign-in link and ends every portal session of the
application; it changes neither the case nor its decision.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.access import Operation, access_state
from gatehouse.services import applications_repo as repo
from gatehouse.services.application_reads import get_tenant_application
from gatehouse.services.guards import TenantWrite, enforce


async def lock_application(
    session: AsyncSession, write: TenantWrite, client_id: str
) -> dict[str, Any]:
    """POST …/lock: allowed while the tenant is suspended; erased is 410."""
    application = await get_tenant_application(session, write.tenant_id, client_id, for_update=True)
    enforce(Operation.LOCK, write, application)
    if not application.locked:
        application.locked = True
        application.updated_at = write.now
    await repo.revoke_unused_links(session, application.id, write.now)
    await repo.end_portal_sessions(session, application.id, write.now)
    write.audit(session, "application.lock", application.id, application.id)
    return {"clientId": application.id, "access": access_state(application.locked)}


async def unlock_application(
    session: AsyncSession, write: TenantWrite, client_id: str
) -> dict[str, Any]:
    """POST …/unlock: refused 403 while the tenant is suspended, also when repeated."""
    application = await get_tenant_application(session, write.tenant_id, client_id, for_update=True)
    enforce(Operation.UNLOCK, write, application)
    if application.locked:
        application.locked = False
        application.updated_at = write.now
    write.audit(session, "application.unlock", application.id, application.id)
    return {"clientId": application.id, "access": access_state(application.locked)}
