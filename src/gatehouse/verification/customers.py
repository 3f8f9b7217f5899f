"""Verification customers: creation and status changes by staff, retrieval by clients.

docs/reference/verification.md §3, §5; docs/reference/staff-api.md §8.2, §8.3. Every
status change queues a
`customer_status_changed` callback in its own transaction; creation queues
`customer_created` for clients that opted in.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.domain.verification import (
    ACCEPTED,
    EVENT_CREATED,
    EVENT_STATUS_CHANGED,
    INITIAL_STATUS,
    is_settable,
)
from gatehouse.errors import INVALID_ARGUMENT, NOT_FOUND, GatehouseError
from gatehouse.runtime import Runtime
from gatehouse.storage.follow_ups import APPLICATION_FACTS
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.verification import (
    Customer,
    CustomerDocument,
    VerificationClient,
)
from gatehouse.verification.callbacks import enqueue
from gatehouse.verification.schemas import (
    MAX_REASON,
    CustomerInput,
    RetrievedCustomer,
    StaffCustomer,
    retrieval_view,
    staff_customer_view,
)

__all__ = [
    "CustomerInput",
    "CustomerInputError",
    "CustomerNotFound",
    "change_status",
    "create_customer",
    "customer_for_client",
    "staff_customer_view",
]


class CustomerInputError(GatehouseError):
    """Input that breaks a rule (400 invalid-argument); `field` names the offending field."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(INVALID_ARGUMENT, message, details=[{"field": field, "issue": message}])


class CustomerNotFound(GatehouseError):
    """No customer with that uuid (404)."""

    def __init__(self, customer_uuid: str) -> None:
        super().__init__(NOT_FOUND, "No such customer.")
        self.customer_uuid = customer_uuid


async def documents_of(session: AsyncSession, customer_id: int) -> list[CustomerDocument]:
    rows = await session.scalars(
        select(CustomerDocument)
        .where(CustomerDocument.customer_id == customer_id)
        .order_by(CustomerDocument.id)
    )
    return list(rows)


async def create_customer(
    session: AsyncSession, runtime: Runtime, ctx: WriteContext, data: CustomerInput
) -> StaffCustomer:
    """Create a customer in Pending (5) (docs/reference/staff-api.md), linked to
    `clientId` if given.
    """
    client = await session.get(VerificationClient, data.client_uuid)
    if client is None:
        raise CustomerInputError("No verification client has this clientUuid.", "clientUuid")
    tenant_id: str | None = None
    if data.application_id is not None:
        application = await session.get(Application, data.application_id)
        if application is None or application.erased_at is not None:
            raise CustomerInputError("No application has this clientId.", "clientId")
        tenant_id = application.tenant_id
    now = ctx.now
    customer = Customer(
        uuid=str(uuid.uuid4()),
        client_uuid=client.uuid,
        email=data.email,
        phone=data.phone,
        status=INITIAL_STATUS,
        application_id=data.application_id,
        accepted_at=None,
        created_at=now,
        updated_at=now,
    )
    session.add(customer)
    await session.flush()
    documents = [
        CustomerDocument(customer_id=customer.id, type=d.type, expires_at=d.expires_at)
        for d in data.documents
    ]
    session.add_all(documents)
    await session.flush()
    if client.customer_created_events:
        enqueue(session, runtime, client, customer, EVENT_CREATED)
    ctx.audit(
        session,
        "verification.customer.create",
        customer.uuid,
        data.application_id,
        tenant_id=tenant_id,
    )
    return staff_customer_view(customer, documents)


def _locked(statement: Select[Customer], runtime: Runtime) -> Select[Customer]:
    return statement if runtime.db.is_sqlite else statement.with_for_update()


async def change_status(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    customer_uuid: str,
    new_status: int,
    reason: str | None,
) -> StaffCustomer:
    """Set a customer's status (codes 2, 5, 6, 7, 9, 10 only; docs/reference/staff-api.md).

    A change queues `customer_status_changed`; setting the current status
    again changes nothing and sends nothing (only the reason is kept).
    """
    if not is_settable(new_status):
        raise CustomerInputError("status must be one of 2, 5, 6, 7, 9, 10.", "status")
    # Checked here, not only by the staff API's body schema: every surface (the dashboard's
    # form too) reaches this, and a longer reason fails the column on PostgreSQL alone.
    if reason is not None and len(reason) > MAX_REASON:
        raise CustomerInputError(f"reason must be at most {MAX_REASON} characters.", "reason")
    customer = await session.scalar(
        _locked(select(Customer).where(Customer.uuid == customer_uuid), runtime)
    )
    if customer is None:
        raise CustomerNotFound(customer_uuid)
    if customer.status != new_status:
        set_status(session, customer, new_status, ctx.now)
        client = await session.get_one(VerificationClient, customer.client_uuid)
        enqueue(session, runtime, client, customer, EVENT_STATUS_CHANGED)
    customer.status_reason = reason
    tenant_id = None
    if customer.application_id is not None:
        tenant_id = await session.scalar(
            select(Application.tenant_id).where(Application.id == customer.application_id)
        )
    ctx.audit(
        session,
        f"verification.customer.status.{new_status}",
        customer.uuid,
        customer.application_id,
        tenant_id=tenant_id,
    )
    return staff_customer_view(customer, await documents_of(session, customer.id))


def set_status(session: AsyncSession, customer: Customer, new_status: int, now: datetime) -> None:
    """Move the customer; `accepted_at` tracks the current stay in Accepted (6). A linked
    application's facts changed (its checklist's verification items): what is derived
    from them is computed again before the transaction commits."""
    customer.status = new_status
    customer.updated_at = now
    customer.accepted_at = now if new_status == ACCEPTED else None
    APPLICATION_FACTS.mark(session, customer.application_id)


async def customer_for_client(
    session: AsyncSession, client_uuid: str, customer_uuid: str
) -> RetrievedCustomer | None:
    """Result retrieval: None for an unknown customer or another client's."""
    customer = await session.scalar(
        select(Customer).where(Customer.uuid == customer_uuid, Customer.client_uuid == client_uuid)
    )
    if customer is None:
        return None
    return retrieval_view(customer, await documents_of(session, customer.id))


async def customer_for_staff(session: AsyncSession, customer_uuid: str) -> StaffCustomer | None:
    customer = await session.scalar(select(Customer).where(Customer.uuid == customer_uuid))
    if customer is None:
        return None
    return staff_customer_view(customer, await documents_of(session, customer.id))
