"""Retention and legal holds (docs/operations.md, "Retention"; docs/reference/staff-api.md
§16.5, §16.6).

The retention sweep erases, through the one erasure path (`erasure.service`), the
applications their tenant's retention lets go: each in its own transaction, the rule checked
again on the locked row, the audit actor `system:retention`. `plan` lists the same
applications and erases nothing. A legal hold keeps an application from every erasure.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import erasure
from gatehouse.applications import application_for_write
from gatehouse.audit.context import WriteContext
from gatehouse.domain.retention import check_hold, rule_for
from gatehouse.errors import GatehouseError
from gatehouse.retention import queries
from gatehouse.retention.schemas import LegalHoldView, PlannedErasure
from gatehouse.runtime import Runtime
from gatehouse.storage.db import Database
from gatehouse.timeutil import format_ts

log = logging.getLogger("gatehouse.retention")
ACTOR = "retention"  # the audit actor is `system:retention`
# Applications erased per tenant and sweep: a backlog is worked off sweep after sweep.
SWEEP_BATCH = 200


async def plan(
    db: Database, as_of: datetime, *, per_tenant: int | None = None
) -> list[PlannedErasure]:
    """What the sweep would erase at `as_of`, tenant by tenant (at most `per_tenant` each)."""
    planned: list[PlannedErasure] = []
    async with db.read() as session:
        for tenant_id, retention in await queries.tenants_with_retention(session):
            found = await queries.candidates(session, tenant_id, retention, as_of, per_tenant)
            for application in found:
                rule = rule_for(
                    retention,
                    status=application.status,
                    submitted=application.submitted_at is not None,
                    status_changed_at=application.status_changed_at,
                    updated_at=application.updated_at,
                    as_of=as_of,
                )
                if rule is None:
                    continue
                since = (
                    application.status_changed_at if rule == "rejected" else application.updated_at
                )
                planned.append(
                    {
                        "clientId": application.id,
                        "tenantId": tenant_id,
                        "status": application.status,
                        "rule": rule.value,
                        "since": format_ts(since),
                    }
                )
    return planned


async def _erase_if_due(
    session: AsyncSession, runtime: Runtime, client_id: str, as_of: datetime
) -> bool:
    application = await application_for_write(session, client_id)
    retention = await queries.tenant_retention(session, application.tenant_id)
    rule = rule_for(
        retention,
        status=application.status,
        submitted=application.submitted_at is not None,
        status_changed_at=application.status_changed_at,
        updated_at=application.updated_at,
        as_of=as_of,
    )
    if rule is None or await queries.hold_of(session, application.id) is not None:
        return False
    ctx = WriteContext.system(ACTOR, runtime.now())
    await erasure.erase_application(
        session, ctx, application.id, pseudonymize=runtime.crypto.hash_secret
    )
    return True


async def run_retention_sweep(runtime: Runtime) -> int:
    """Erase what retention lets go now; how many applications were erased."""
    as_of = runtime.now()
    erased = 0
    for planned in await plan(runtime.db, as_of, per_tenant=SWEEP_BATCH):
        try:
            async with runtime.db.write() as session:
                erased += await _erase_if_due(session, runtime, planned["clientId"], as_of)
        except GatehouseError:  # erased or held meanwhile: nothing to do
            continue
        except Exception:  # one application's failure never stops the others
            log.exception("retention could not erase an application")
    if erased:
        await erasure.erase_documents(runtime)
    return erased


async def set_legal_hold(
    session: AsyncSession, ctx: WriteContext, client_id: str, *, hold: object, reason: object
) -> LegalHoldView:
    """Place (`hold` true) or release a legal hold, with a reason; 404 unknown, 410 erased."""
    held, cleaned = check_hold(hold, reason)
    application = await application_for_write(session, client_id)
    if held:
        await queries.place_hold(session, application.id, cleaned, ctx.actor, ctx.now)
    else:
        await queries.release_hold(session, application.id)
    action = "application.legal_hold.placed" if held else "application.legal_hold.released"
    ctx.audit(session, action, application.id, application.id, tenant_id=application.tenant_id)
    return {"clientId": application.id, "legalHold": held, "reason": cleaned}
