"""Staff and dashboard lists of the verification area: customers and the callback log.

Keyset pages, newest first, with signed filter-bound cursors (`http.cursors`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.crypto import Crypto
from gatehouse.http.cursors import decode_cursor, encode_cursor
from gatehouse.storage.tables.verification import Customer, CustomerDocument, VerificationCallback
from gatehouse.timeutil import parse_ts
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


def _page(data: list[dict[str, Any]], next_cursor: str | None) -> dict[str, Any]:
    return {"data": data, "nextCursor": next_cursor, "hasMore": next_cursor is not None}


async def list_customers(
    session: AsyncSession, crypto: Crypto, filters: CustomerFilters, limit: int, cursor: str | None
) -> dict[str, Any]:
    """Customers, newest first (by their internal id)."""
    statement = select(Customer)
    if filters.client_uuid is not None:
        statement = statement.where(Customer.client_uuid == filters.client_uuid)
    if filters.status is not None:
        statement = statement.where(Customer.status == filters.status)
    if filters.client_id is not None:
        statement = statement.where(Customer.application_id == filters.client_id)
    if cursor:
        (after_id,) = decode_cursor(crypto, CUSTOMERS_KIND, filters.as_dict(), cursor)
        statement = statement.where(Customer.id < int(after_id))
    rows = list(await session.scalars(statement.order_by(Customer.id.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    documents: dict[int, list[CustomerDocument]] = {row.id: [] for row in rows}
    if rows:
        for document in await session.scalars(
            select(CustomerDocument).where(CustomerDocument.customer_id.in_(documents))
        ):
            documents[document.customer_id].append(document)
    next_cursor = (
        encode_cursor(crypto, CUSTOMERS_KIND, filters.as_dict(), [rows[-1].id]) if more else None
    )
    return _page([staff_customer_view(row, documents[row.id]) for row in rows], next_cursor)


async def list_callbacks(
    session: AsyncSession, crypto: Crypto, filters: CallbackFilters, limit: int, cursor: str | None
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
    if cursor:
        at, after_id = decode_cursor(crypto, CALLBACKS_KIND, filters.as_dict(), cursor)
        created = parse_ts(str(at))  # full precision, from isoformat()
        statement = statement.where(
            or_(
                VerificationCallback.created_at < created,
                and_(
                    VerificationCallback.created_at == created, VerificationCallback.id < after_id
                ),
            )
        )
    statement = statement.order_by(
        VerificationCallback.created_at.desc(), VerificationCallback.id.desc()
    ).limit(limit + 1)
    rows = list((await session.execute(statement)).tuples())
    more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = None
    if more:
        last = rows[-1][0]
        next_cursor = encode_cursor(
            crypto, CALLBACKS_KIND, filters.as_dict(), [last.created_at.isoformat(), last.id]
        )
    return _page([callback_view(row, customer_uuid) for row, customer_uuid in rows], next_cursor)
