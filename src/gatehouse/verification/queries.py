"""Staff and dashboard lists of the verification area: customers and the callback log.

Keyset pages, newest first, with signed filter-bound cursors (`gatehouse.paging`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.crypto import Crypto
from gatehouse.paging import (
    STAFF,
    CursorScope,
    PageRequest,
    keyset_after,
    page_of,
    read_position,
)
from gatehouse.storage.tables.verification import Customer, CustomerDocument, VerificationCallback
from gatehouse.verification.callbacks import callback_view
from gatehouse.verification.customers import staff_customer_view

__all__ = ["CallbackFilters", "CustomerFilters", "list_callbacks", "list_customers"]

CUSTOMERS_KIND = "staff.verification.customers"
CALLBACKS_KIND = "staff.verification.callbacks"


@dataclass(frozen=True, slots=True)
class CustomerFilters:
    client_uuid: str | None = None
    status: int | None = None
    client_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"clientUuid": self.client_uuid, "status": self.status, "clientId": self.client_id}


@dataclass(frozen=True, slots=True)
class CallbackFilters:
    client_uuid: str | None = None
    status: str | None = None
    customer_uuid: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "clientUuid": self.client_uuid,
            "status": self.status,
            "customerUuid": self.customer_uuid,
        }


async def list_customers(
    session: AsyncSession, crypto: Crypto, filters: CustomerFilters, page: PageRequest
) -> dict[str, Any]:
    """Customers, newest first (by their internal id)."""
    statement = select(Customer)
    if filters.client_uuid is not None:
        statement = statement.where(Customer.client_uuid == filters.client_uuid)
    if filters.status is not None:
        statement = statement.where(Customer.status == filters.status)
    if filters.client_id is not None:
        statement = statement.where(Customer.application_id == filters.client_id)
    scope = CursorScope(CUSTOMERS_KIND, STAFF, filters.as_dict())
    position = read_position(crypto, scope, page.cursor, (int,))
    statement = keyset_after(statement, None, Customer.id, position)
    rows = list(await session.scalars(statement.limit(page.limit + 1)))
    shown = rows[: page.limit]
    documents: dict[int, list[CustomerDocument]] = {row.id: [] for row in shown}
    if shown:
        for document in await session.scalars(
            select(CustomerDocument).where(CustomerDocument.customer_id.in_(documents))
        ):
            documents[document.customer_id].append(document)
    return page_of(
        rows,
        page,
        crypto=crypto,
        scope=scope,
        position_of=lambda customer: (customer.id,),
        view=lambda customer: staff_customer_view(customer, documents[customer.id]),
    )


async def list_callbacks(
    session: AsyncSession, crypto: Crypto, filters: CallbackFilters, page: PageRequest
) -> dict[str, Any]:
    """The callback log, newest first (ties on time broken by id, descending)."""
    statement = select(VerificationCallback, Customer.uuid).join(
        Customer, Customer.id == VerificationCallback.customer_id
    )
    if filters.client_uuid is not None:
        statement = statement.where(VerificationCallback.client_uuid == filters.client_uuid)
    if filters.status is not None:
        statement = statement.where(VerificationCallback.status == filters.status)
    if filters.customer_uuid is not None:
        statement = statement.where(Customer.uuid == filters.customer_uuid)
    scope = CursorScope(CALLBACKS_KIND, STAFF, filters.as_dict())
    position = read_position(crypto, scope, page.cursor)
    statement = keyset_after(
        statement, VerificationCallback.created_at, VerificationCallback.id, position
    )
    rows = list((await session.execute(statement.limit(page.limit + 1))).tuples())
    return page_of(
        rows,
        page,
        crypto=crypto,
        scope=scope,
        position_of=lambda row: (row[0].created_at, row[0].id),
        view=lambda row: callback_view(row[0], row[1]),
    )
