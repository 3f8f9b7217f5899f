"""Erasing an applicant's personal data (CONTRACT §4 `erase`; spec 1 §4.3, §4.8, §4.11).

Erasure clears the membership, removes personal data (applicant email,
company name, form data, item answers, document contents and file names),
revokes unused sign-in links, ends portal sessions and sets `erased_at`.
Afterwards tenant reads answer 404, tenant writes 410, and the application
is left out of every list. The identity key is replaced by a keyed pseudonym
(`domain.identity.erased_identity`) so the same identity still cannot be
provisioned again (410) without the email or externalRef being kept; the
decision history stays for the staff trail.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import audit
from gatehouse.domain.identity import erased_identity
from gatehouse.http.auth import StaffPrincipal
from gatehouse.services import applications_repo as repo
from gatehouse.services.case_access import application_for_write
from gatehouse.storage.tables.applications import (
    Document,
    InfoRequest,
    InfoRequestItem,
    Member,
)


async def erase_application(
    session: AsyncSession,
    *,
    client_id: str,
    staff: StaffPrincipal,
    at: datetime,
    request_id: str | None,
    pseudonymize: Callable[[str], str],
) -> dict[str, Any]:
    """Erase one application; 404 when missing, 410 when already erased."""
    application = await application_for_write(session, client_id)
    await repo.revoke_unused_links(session, application.id, at)
    await repo.end_portal_sessions(session, application.id, at)
    await session.execute(delete(Member).where(Member.application_id == application.id))
    request_ids = select(InfoRequest.id).where(InfoRequest.application_id == application.id)
    await session.execute(
        update(InfoRequestItem)
        .where(InfoRequestItem.request_id.in_(request_ids))
        .values(answer=None)
    )
    await session.execute(
        update(Document)
        .where(Document.application_id == application.id)
        .values(content=None, filename=None, status="erased")
    )
    application.identity = erased_identity(application.identity, pseudonymize)
    application.external_ref = None
    application.applicant_email = None
    application.company_name = None
    application.form_data = {}
    application.owner_uid = None
    application.erased_at = at
    application.updated_at = at
    audit.record(
        session,
        at=at,
        actor=staff.actor,
        action="application.erase",
        target=application.id,
        tenant_id=application.tenant_id,
        application_id=application.id,
        request_id=request_id,
    )
    await session.flush()
    return {"clientId": application.id, "erased": True}
