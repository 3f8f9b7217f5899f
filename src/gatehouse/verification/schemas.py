"""Staff request bodies of the verification area (CONTRACT §4) and their checks."""

from __future__ import annotations

from datetime import UTC, date, datetime

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from gatehouse.domain.normalize import normalize_email
from gatehouse.domain.verification import document_type
from gatehouse.http.errors import invalid_argument
from gatehouse.timeutil import parse_ts
from gatehouse.verification.customers import CustomerInput, DocumentInput

MAX_PHONE = 64
MAX_REASON = 500


class ClientCreate(BaseModel):
    """`POST /staff/v1/verification/clients`."""

    model_config = ConfigDict(strict=True)
    name: StrictStr = Field(min_length=1, max_length=200)
    customerCreatedEvents: StrictBool = False


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
    email = normalize_email(body.email)
    if email is None:
        raise invalid_argument(
            "email must contain @ and be at most 320 characters.", "email", "invalid email"
        )
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
