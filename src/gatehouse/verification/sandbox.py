"""Sandbox verification clients drive their own customers (docs/sandbox.md, "Verification").

A client created with `sandbox: true` may create customers and move them between statuses
itself, standing in for the end of a real customer's flow. Both go through the same
services as the staff routes (`customers.create_customer`, `customers.change_status`), so the
same rules, audit entries and callbacks follow; the client only ever sees and touches its
own customers, in the retrieval shape (docs/reference/verification.md §4.2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.errors import INVALID_ARGUMENT, GatehouseError
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.verification import Customer, VerificationClient
from gatehouse.verification import customers, schemas

if TYPE_CHECKING:
    from gatehouse.verification.schemas import RetrievedCustomer


class SandboxInputError(GatehouseError):
    """A body the sandbox routes refuse (400); the message is safe to show."""

    def __init__(self, message: str) -> None:
        super().__init__(INVALID_ARGUMENT, message)


def _first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "body"
    return f"{where}: {first.get('msg', 'invalid value')}."


def customer_input(client: VerificationClient, data: object) -> customers.CustomerInput:
    """`{email, phone, documents?}` for a customer of `client`; `SandboxInputError` else."""
    if not isinstance(data, dict):
        raise SandboxInputError("The body must be a JSON object.")
    fields = {k: data[k] for k in ("email", "phone", "documents") if k in data}
    try:
        body = schemas.CustomerCreate.model_validate({**fields, "clientUuid": client.uuid})
        return schemas.customer_input(body)
    except ValidationError as exc:
        raise SandboxInputError(_first_problem(exc)) from None
    except GatehouseError as exc:
        raise SandboxInputError(exc.message) from None


def status_input(data: object) -> int:
    """`{status}`: an integer (which codes are settable is the service's rule)."""
    if not isinstance(data, dict):
        raise SandboxInputError("The body must be a JSON object.")
    status = data.get("status")
    if type(status) is not int:
        raise SandboxInputError("status must be one of 2, 5, 6, 7, 9, 10.")
    return status


async def create_customer(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    client: VerificationClient,
    data: customers.CustomerInput,
) -> RetrievedCustomer:
    """A new customer of the sandbox client in Pending (5); `customer_created` when the
    client opted in. The retrieval view."""
    created = await customers.create_customer(session, runtime, ctx, data)
    await session.flush()
    return await _own_view(session, client, str(created["uuid"]))


async def change_status(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    client: VerificationClient,
    customer_uuid: str,
    status: int,
) -> RetrievedCustomer:
    """Move one of the client's own customers (codes 2, 5, 6, 7, 9, 10); another client's
    customer is unknown here. `customer_status_changed` when the status moved."""
    owner = await session.scalar(select(Customer.client_uuid).where(Customer.uuid == customer_uuid))
    if owner != client.uuid:
        raise customers.CustomerNotFound(customer_uuid)
    try:
        await customers.change_status(session, runtime, ctx, customer_uuid, status, None)
    except customers.CustomerInputError as exc:
        raise SandboxInputError(exc.message) from None
    await session.flush()
    return await _own_view(session, client, customer_uuid)


async def _own_view(
    session: AsyncSession, client: VerificationClient, customer_uuid: str
) -> RetrievedCustomer:
    view = await customers.customer_for_client(session, client.uuid, customer_uuid)
    if view is None:  # written in this transaction, for this client
        raise RuntimeError("a customer written in this transaction cannot be read back")
    return view
