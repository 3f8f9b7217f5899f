"""Staff request bodies of the verification area (docs/reference/staff-api.md §8) and their
checks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from typing_extensions import TypedDict

from gatehouse.domain.normalize import InvalidEmail, email_identity
from gatehouse.domain.verification import CallbackStatus, document_type, status_name
from gatehouse.errors import invalid_argument
from gatehouse.storage.tables.verification import (
    Customer,
    CustomerDocument,
    VerificationCallback,
    VerificationClient,
)
from gatehouse.timeutil import format_ts, parse_ts

MAX_PHONE = 64
MAX_REASON = 500


@dataclass(frozen=True, slots=True)
class DocumentInput:
    type: str  # snake_case already
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class CustomerInput:
    client_uuid: str
    email: str  # normalised already
    phone: str
    application_id: str | None
    documents: tuple[DocumentInput, ...]


class ClientCreate(BaseModel):
    """`POST /staff/v1/verification/clients`."""

    model_config = ConfigDict(strict=True)
    name: StrictStr = Field(min_length=1, max_length=200)
    customerCreatedEvents: StrictBool = False
    sandbox: StrictBool = False


class DocumentCreate(BaseModel):
    model_config = ConfigDict(strict=True)
    type: StrictStr
    expiresAt: StrictStr


class CustomerCreate(BaseModel):
    """`POST /staff/v1/verification/customers`."""

    model_config = ConfigDict(strict=True)
    clientUuid: StrictStr
    email: StrictStr
    phone: StrictStr
    clientId: StrictStr | None = None
    documents: list[DocumentCreate] | None = None


class StatusChange(BaseModel):
    """`POST /staff/v1/verification/customers/{uuid}/status`."""

    model_config = ConfigDict(strict=True)
    status: StrictInt
    reason: StrictStr | None = Field(default=None, max_length=MAX_REASON)


def parse_expiry(value: str) -> datetime:
    """An RFC 3339 timestamp, or a calendar date (the start of that day, UTC)."""
    text = value.strip()
    try:
        return parse_ts(text)
    except ValueError:
        pass
    parsed = date.fromisoformat(text)  # ValueError when neither
    return datetime(parsed.year, parsed.month, parsed.day, tzinfo=UTC)


def customer_input(body: CustomerCreate) -> CustomerInput:
    """Check the fields of a new customer; 400 invalid-argument naming the field."""
    try:
        email = email_identity(body.email)
    except InvalidEmail as exc:
        raise invalid_argument(f"email {exc}.", "email", str(exc)) from None
    phone = body.phone.strip()
    if not phone or len(phone) > MAX_PHONE:
        raise invalid_argument(
            f"phone must be 1 to {MAX_PHONE} characters.", "phone", "invalid phone"
        )
    documents: list[DocumentInput] = []
    for index, document in enumerate(body.documents or []):
        kind = document_type(document.type)
        if kind is None:
            raise invalid_argument(
                "documents[].type must be passport, emirates_id or egypt_national_id.",
                f"documents.{index}.type",
                "unknown document type",
            )
        try:
            expires_at = parse_expiry(document.expiresAt)
        except ValueError:
            raise invalid_argument(
                "documents[].expiresAt must be an RFC 3339 timestamp or a date.",
                f"documents.{index}.expiresAt",
                "invalid timestamp",
            ) from None
        documents.append(DocumentInput(type=kind, expires_at=expires_at))
    client_id = body.clientId.strip() if body.clientId is not None else None
    return CustomerInput(
        client_uuid=body.clientUuid.strip(),
        email=email,
        phone=phone,
        application_id=client_id or None,
        documents=tuple(documents),
    )


# -- response shapes (docs/reference/verification.md, docs/reference/staff-api.md §8) ----------


class CustomerDocumentView(TypedDict):
    type: str
    expiresAt: str


class RetrievedCustomer(TypedDict):
    """Result retrieval on the verification interface: exactly these fields."""

    id: int
    uuid: str
    email: str
    phone: str
    status: int
    statusName: str
    updatedAt: str
    documents: list[CustomerDocumentView]


class StaffCustomer(RetrievedCustomer):
    """The staff view: retrieval fields plus client, link, reason and creation time."""

    clientUuid: str
    clientId: str | None
    reason: str | None
    createdAt: str


class CustomerPage(TypedDict):
    data: list[StaffCustomer]
    nextCursor: str | None
    hasMore: bool


class VerificationClientView(TypedDict):
    """A verification client as staff see it: never its secret or passphrase."""

    clientUuid: str
    name: str
    customerCreatedEvents: bool
    sandbox: bool
    callbackUrl: str | None
    callbackRegisteredAt: str | None
    createdAt: str


class VerificationClientList(TypedDict):
    data: list[VerificationClientView]


class CreatedVerificationClient(TypedDict):
    """A new client: `clientSecret` is shown this once."""

    clientUuid: str
    clientSecret: str
    name: str
    customerCreatedEvents: bool
    sandbox: bool
    createdAt: str


class CallbackRecord(TypedDict):
    """One verification callback as staff see it (never the passphrase)."""

    callbackId: str
    clientUuid: str
    customerUuid: str | None
    event: str
    newStatus: int | None
    expiryWarningFor: list[str]
    status: CallbackStatus
    attempts: int
    lastStatusCode: int | None
    lastError: str | None
    nextAttemptAt: str | None
    createdAt: str
    completedAt: str | None
    attemptLog: list[dict[str, Any]] | None


class CallbackPage(TypedDict):
    data: list[CallbackRecord]
    nextCursor: str | None
    hasMore: bool


class SweepResult(TypedDict):
    warningsSent: int
    movedToDraft: int


class VerifyMessage(TypedDict):
    """Every answer of the verification interface but the retrieved customer, errors too."""

    message: str


class CustomerCallback(TypedDict):
    """The body POSTed to a client's registered callback URL (docs/reference/verification.md
    §5): `expiryWarningFor` is `[]` except on `expiry_warning`."""

    id: int
    uuid: str
    email: str
    phone: str
    newStatus: Literal[2, 5, 6, 7, 9, 10]
    updatedAt: str
    event: Literal["customer_status_changed", "customer_created", "expiry_warning"]
    expiryWarningFor: list[str]
    passphrase: str


CALLBACK_EXAMPLE: CustomerCallback = {
    "id": 17,
    "uuid": "0b5f1c3e-8a52-4e1b-9d7e-2f4a6c8e0b13",
    "email": "holder@example.com",
    "phone": "+971500000000",
    "newStatus": 6,
    "updatedAt": "2026-11-22T10:00:00.000Z",
    "event": "customer_status_changed",
    "expiryWarningFor": [],
    "passphrase": "correct horse",
}


def client_view(client: VerificationClient) -> VerificationClientView:
    """The staff view of a client: never the secret or the passphrase."""
    return {
        "clientUuid": client.uuid,
        "name": client.name,
        "customerCreatedEvents": client.customer_created_events,
        "sandbox": client.sandbox,
        "callbackUrl": client.callback_url,
        "callbackRegisteredAt": format_ts(client.callback_registered_at),
        "createdAt": format_ts(client.created_at),
    }


def callback_view(row: VerificationCallback, customer_uuid: str | None) -> CallbackRecord:
    """The staff view of one callback: never the passphrase (it is not stored here)."""
    waiting = row.status == CallbackStatus.PENDING
    return {
        "callbackId": row.id,
        "clientUuid": row.client_uuid,
        "customerUuid": customer_uuid,
        "event": row.event,
        "newStatus": row.payload.get("newStatus"),
        "expiryWarningFor": row.payload.get("expiryWarningFor", []),
        "status": cast(CallbackStatus, row.status),
        "attempts": row.attempts,
        "lastStatusCode": row.last_status_code,
        "lastError": row.last_error,
        "nextAttemptAt": format_ts(row.next_attempt_at) if waiting else None,
        "createdAt": format_ts(row.created_at),
        "completedAt": format_ts(row.completed_at),
        "attemptLog": row.attempts_log,
    }


def _documents_view(documents: list[CustomerDocument]) -> list[CustomerDocumentView]:
    ordered = sorted(documents, key=lambda d: d.id)
    return [{"type": d.type, "expiresAt": format_ts(d.expires_at)} for d in ordered]


def retrieval_view(customer: Customer, documents: list[CustomerDocument]) -> RetrievedCustomer:
    """Result retrieval (docs/reference/verification.md): exactly these fields."""
    return {
        "id": customer.id,
        "uuid": customer.uuid,
        "email": customer.email,
        "phone": customer.phone,
        "status": customer.status,
        "statusName": status_name(customer.status),
        "updatedAt": format_ts(customer.updated_at),
        "documents": _documents_view(documents),
    }


def staff_customer_view(customer: Customer, documents: list[CustomerDocument]) -> StaffCustomer:
    """The staff view: retrieval fields plus client, link, reason and creation time."""
    return {
        **retrieval_view(customer, documents),
        "clientUuid": customer.client_uuid,
        "clientId": customer.application_id,
        "reason": customer.status_reason,
        "createdAt": format_ts(customer.created_at),
    }
