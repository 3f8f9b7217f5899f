"""Lock and unlock applicant portal access (docs/reference/tenant-api.md §3.2, §5.9, §5.10).

Both answer 200 `{clientId, access}` and are idempotent. Locking also
revokes every unused sign-in link and ends every portal session of the
application; it changes neither the case nor its decision.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications.queries import rows as repo
from gatehouse.applications.schemas import AccessState
from gatehouse.applications.service.guards import enforce
from gatehouse.applications.service.reads import get_tenant_application
from gatehouse.audit.context import WriteContext
from gatehouse.domain.access import Operation, access_state
from gatehouse.domain.principals import TenantPrincipal


async def lock_application(
    session: AsyncSession, ctx: WriteContext, tenant: TenantPrincipal, client_id: str
) -> AccessState:
    """POST …/lock: allowed while the tenant is suspended; erased is 410."""
    application = await get_tenant_application(
        session, tenant.tenant_id, client_id, for_update=True
    )
    enforce(Operation.LOCK, tenant, application)
    if not application.locked:
        application.locked = True
        application.updated_at = ctx.now
    await repo.revoke_unused_links(session, application.id, ctx.now)
    await repo.end_portal_sessions(session, application.id, ctx.now)
    ctx.audit(session, "application.lock", application.id, application.id)
    return {"clientId": application.id, "access": access_state(application.locked)}


async def unlock_application(
    session: AsyncSession, ctx: WriteContext, tenant: TenantPrincipal, client_id: str
) -> AccessState:
    """POST …/unlock: refused 403 while the tenant is suspended, also when repeated."""
    application = await get_tenant_application(
        session, tenant.tenant_id, client_id, for_update=True
    )
    enforce(Operation.UNLOCK, tenant, application)
    if application.locked:
        application.locked = False
        application.updated_at = ctx.now
    ctx.audit(session, "application.unlock", application.id, application.id)
    return {"clientId": application.id, "access": access_state(application.locked)}
