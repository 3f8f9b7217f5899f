"""Erasing an applicant's personal data (docs/reference/staff-api.md §6.7).

Erasure clears the membership, removes personal data (applicant email,
company name, form data, item answers, document file names), clears the data
keys of the documents (`documents.custody.shred`: from the commit on they can
no longer be opened; `erase_documents` then deletes their objects from the
store), cancels the pending webhook deliveries of the application's events and
replaces their stored bodies with tombstones (`erasure/events.py`), drops the answers
remembered for `Idempotency-Key` replays about the application (`erasure/replays.py`), clears
the email and phone of the verification customers linked to it and drops their unsent
callbacks (`verification/erasure.py`), revokes unused sign-in links, ends portal sessions,
deletes the internal notes and sets `erased_at`.
Afterwards tenant reads answer 404, tenant writes 410, and the application
is left out of every list. The identity key is replaced by a keyed pseudonym
(`domain.identity.erased_identity`) so the same identity still cannot be
provisioned again (410) without the email or externalRef being kept; the
decision history stays for the staff trail.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications.queries import rows as repo
from gatehouse.audit.context import WriteContext
from gatehouse.cases.service import application_for_write
from gatehouse.documents import custody
from gatehouse.domain.identity import erased_identity
from gatehouse.erasure.events import redact_events
from gatehouse.erasure.replays import forget_replays
from gatehouse.erasure.schemas import Erased
from gatehouse.errors import failed_precondition
from gatehouse.runtime import Runtime
from gatehouse.screening import erase_screening
from gatehouse.storage.tables.applications import (
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    Member,
)
from gatehouse.storage.tables.records import LegalHold
from gatehouse.storage.tables.workstation import CaseNote
from gatehouse.verification.erasure import erase_linked_customers


async def erase_application(
    session: AsyncSession,
    ctx: WriteContext,
    client_id: str,
    *,
    pseudonymize: Callable[[str], str],
) -> Erased:
    """Erase one application; 404 when missing, 410 when already erased, 400
    failed-precondition while on legal hold (docs/reference/staff-api.md §16.6)."""
    at = ctx.now
    application = await application_for_write(session, client_id)
    if await session.get(LegalHold, application.id) is not None:
        raise failed_precondition(
            "The application is on legal hold: release the hold before erasing it."
        )
    await repo.revoke_unused_links(session, application.id, at)
    await repo.end_portal_sessions(session, application.id, at)
    await session.execute(delete(Member).where(Member.application_id == application.id))
    request_ids = select(InfoRequest.id).where(InfoRequest.application_id == application.id)
    await session.execute(
        update(InfoRequestItem)
        .where(InfoRequestItem.request_id.in_(request_ids))
        .values(answer=None, draft=None)
    )
    await session.execute(
        update(Document)
        .where(Document.application_id == application.id)
        .values(content=None, filename=None, status="erased")
    )
    await custody.shred(session, application.id)
    # Staff free text about the applicant goes too: internal notes, and the reasons given for
    # proposing approval with unsatisfied items (docs/workstation.md).
    await session.execute(delete(CaseNote).where(CaseNote.application_id == application.id))
    await session.execute(
        update(Decision)
        .where(Decision.application_id == application.id)
        .values(acknowledgement=None)
    )
    await redact_events(session, application.id)
    await forget_replays(session, application.tenant_id, application.id)
    await erase_linked_customers(session, application.id, at)
    await erase_screening(session, application.id)
    application.identity = erased_identity(application.identity, pseudonymize)
    application.external_ref = None
    application.applicant_email = None
    application.company_name = None
    application.form_data = {}
    application.owner_uid = None
    application.erased_at = at
    application.updated_at = at
    ctx.audit(
        session,
        "application.erase",
        application.id,
        application.id,
        tenant_id=application.tenant_id,
    )
    await session.flush()
    return {"clientId": application.id, "erased": True}


async def erase_documents(runtime: Runtime) -> int:
    """After an erasure commits: delete the erased documents' objects from their stores.

    Objects a store refuses now are tried again by the housekeeping sweep
    (docs/documents.md §6); they cannot be opened meanwhile.
    """
    total = 0
    while True:
        discarded = await custody.discard_erased(runtime.db)
        total += discarded
        if discarded < custody.DISCARD_BATCH:  # all done, or a store refused some
            return total
