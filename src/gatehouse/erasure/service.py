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

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications, documents
from gatehouse.applications import application_for_write
from gatehouse.audit.context import WriteContext
from gatehouse.domain.identity import erased_identity
from gatehouse.erasure.events import redact_events
from gatehouse.erasure.queries import clear_personal_rows, clear_staff_text
from gatehouse.erasure.replays import forget_replays
from gatehouse.erasure.schemas import Erased
from gatehouse.errors import failed_precondition
from gatehouse.runtime import Runtime
from gatehouse.screening import erase_screening
from gatehouse.storage.tables.records import LegalHold
from gatehouse.verification import erase_linked_customers


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
    await applications.revoke_unused_links(session, application.id, at)
    await applications.end_portal_sessions(session, application.id, at)
    await clear_personal_rows(session, application.id)
    await documents.shred(session, application.id)
    # Staff free text about the applicant goes too: internal notes, and the reasons given for
    # proposing approval with unsatisfied items (docs/workstation.md).
    await clear_staff_text(session, application.id)
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
        discarded = await documents.discard_erased(runtime.db)
        total += discarded
        if discarded < documents.DISCARD_BATCH:  # all done, or a store refused some
            return total
