"""The document expiry sweep (docs/reference/verification.md §3, §5.2;
docs/reference/verification.md).

Every SWEEP_INTERVAL_SECONDS (via `gatehouse.sweeps`) and on demand
(`POST /staff/v1/verification/sweep`): a document 30 days or less from expiry
gets one `expiry_warning` (never a second one), and a document that expires
moves its customer to Draft (2) with `customer_status_changed`, once. Time is
`runtime.now()`, which tests move.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.domain.verification import (
    DRAFT,
    EVENT_EXPIRY_WARNING,
    EVENT_STATUS_CHANGED,
    EXPIRY_WARNING_WINDOW,
    DocumentState,
    has_expired,
    needs_warning,
    warned_types,
)
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import Customer, CustomerDocument, VerificationClient
from gatehouse.verification.callbacks import enqueue
from gatehouse.verification.customers import set_status

__all__ = ["EXPIRY_REASON", "SweepResult", "expiry_sweep", "run_expiry_sweep", "sweep_on_demand"]

EXPIRY_REASON = "document_expired"


@dataclass(frozen=True, slots=True)
class SweepResult:
    warnings_sent: int  # documents warned about
    moved_to_draft: int  # customers moved to Draft

    def view(self) -> dict[str, int]:
        return {"warningsSent": self.warnings_sent, "movedToDraft": self.moved_to_draft}


def _state(document: CustomerDocument) -> DocumentState:
    return DocumentState(
        type=document.type,
        expires_at=document.expires_at,
        warning_sent=document.warning_sent_at is not None,
        expiry_handled=document.expiry_handled_at is not None,
    )


async def expiry_sweep(session: AsyncSession, runtime: Runtime, now: datetime) -> SweepResult:
    """Warn and expire documents as of `now`, in the caller's write transaction."""
    statement = (
        select(CustomerDocument)
        .where(
            CustomerDocument.expiry_handled_at.is_(None),
            or_(
                CustomerDocument.expires_at <= now,
                and_(
                    CustomerDocument.warning_sent_at.is_(None),
                    CustomerDocument.expires_at <= now + EXPIRY_WARNING_WINDOW,
                ),
            ),
        )
        .order_by(CustomerDocument.customer_id, CustomerDocument.id)
    )
    if not runtime.db.is_sqlite:
        # A concurrent sweep waits here, then finds these rows no longer match.
        statement = statement.with_for_update()
    by_customer: dict[int, list[CustomerDocument]] = defaultdict(list)
    for document in await session.scalars(statement):
        by_customer[document.customer_id].append(document)

    warnings_sent = moved_to_draft = 0
    clients: dict[str, VerificationClient | None] = {}
    for customer_id, documents in by_customer.items():
        customer_statement = select(Customer).where(Customer.id == customer_id)
        if not runtime.db.is_sqlite:
            customer_statement = customer_statement.with_for_update()
        customer = await session.scalar(customer_statement)
        if customer is None:
            continue
        if customer.client_uuid not in clients:
            clients[customer.client_uuid] = await session.get(
                VerificationClient, customer.client_uuid
            )
        client = clients[customer.client_uuid]
        to_warn = [d for d in documents if needs_warning(_state(d), now)]
        expired = [d for d in documents if has_expired(_state(d), now)]
        for document in to_warn:
            document.warning_sent_at = now
        if to_warn and client is not None:
            enqueue(
                session,
                runtime,
                client,
                customer,
                EVENT_EXPIRY_WARNING,
                warned_types(_state(d) for d in to_warn),
            )
        warnings_sent += len(to_warn)
        for document in expired:
            document.expiry_handled_at = now
        if expired and customer.status != DRAFT:
            set_status(session, customer, DRAFT, now)
            customer.status_reason = EXPIRY_REASON
            if client is not None:
                enqueue(session, runtime, client, customer, EVENT_STATUS_CHANGED)
            moved_to_draft += 1
    return SweepResult(warnings_sent=warnings_sent, moved_to_draft=moved_to_draft)


async def sweep_on_demand(
    session: AsyncSession, runtime: Runtime, ctx: WriteContext
) -> SweepResult:
    """The sweep a staff member asked for, audited, in the caller's write transaction."""
    result = await expiry_sweep(session, runtime, ctx.now)
    ctx.audit(session, "verification.sweep", "verification")
    return result


async def run_expiry_sweep(runtime: Runtime) -> SweepResult:
    """The periodic job registered in `gatehouse.sweeps`."""
    async with runtime.db.write() as session:
        return await expiry_sweep(session, runtime, runtime.now())
