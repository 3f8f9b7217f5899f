"""The evidence pack of one application (docs/audit-and-evidence.md, "The evidence pack").

Everything staff know about a case, gathered in the transaction that audits the export as
`evidence.export`: the application, members, form answers, documents with their SHA-256,
information requests with answers, screening with its hits, risk with its factors and
override, decisions with the staff emails behind them, internal
notes, legal hold, and the application's sealed audit entries up to the signed chain head read
first. The PDF (`evidence.pdf`) renders the same pack.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.audit.context import WriteContext
from gatehouse.cases import case_file, read_application
from gatehouse.crypto import Crypto
from gatehouse.errors import gone, not_found
from gatehouse.evidence import queries
from gatehouse.evidence.schemas import (
    EvidencePack,
    decision_view,
    documents_view,
    member_view,
    request_view,
)
from gatehouse.records import application_entries, current_head, sealed_entry
from gatehouse.retention import hold_details, hold_of
from gatehouse.risk import risk_view
from gatehouse.screening import read_screening
from gatehouse.storage.db import Database
from gatehouse.timeutil import format_ts

EXPORT_ACTION = "evidence.export"


async def evidence_pack(
    session: AsyncSession, db: Database, crypto: Crypto, ctx: WriteContext, client_id: str
) -> EvidencePack:
    """The pack (mlro+ at the surface); 404 unknown, 410 erased. Records `evidence.export`."""
    application = await applications.application_by_id(session, client_id)
    if application is None:
        raise not_found("No application with this clientId.")
    if application.erased_at is not None:
        raise gone()
    head = await current_head(db, crypto)
    case = await case_file(session, client_id)
    if case is None:  # read above, in this transaction: never
        raise not_found("No application with this clientId.")
    staff_ids = {d.by_staff_id for d in case.decisions if d.by_staff_id}
    emails = await queries.staff_emails(session, staff_ids)
    entries = await application_entries(session, application.id)
    pack: EvidencePack = {
        "tenant": {"tenantId": case.tenant.id, "name": case.tenant.name},
        "application": await read_application(session, client_id),
        "legalHold": hold_details(await hold_of(session, application.id)),
        "members": [member_view(member) for member in case.members],
        "form": [
            {"key": a.key, "label": a.label, "value": a.value} for a in case.evidence.form_answers
        ],
        "documents": documents_view(case),
        "infoRequests": [request_view(entry) for entry in case.requests],
        # The staff reads of screening and risk (docs/reference/staff-api.md §17.2, §17.5).
        "screening": await read_screening(session, client_id),
        "risk": await risk_view(session, application.id),
        "decisions": [decision_view(decision, emails) for decision in case.decisions],
        "notes": [note.as_dict() for note in case.notes],
        "audit": [sealed_entry(entry) for entry in entries if entry.seq <= head["seq"]],
        "auditHead": head,
        "generatedAt": format_ts(ctx.now),
    }
    ctx.audit(
        session, EXPORT_ACTION, application.id, application.id, tenant_id=application.tenant_id
    )
    return pack
