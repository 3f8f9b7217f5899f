"""Rules of the verification callback interface
(docs/reference/verification.md). Pure: no HTTP, no SQL.

Status codes and their names (docs/reference/verification.md §3), which of them may be set and sent,
document types (snake_case on this interface, docs/reference/verification.md §5.1), the states of
a callback in the staff log (docs/reference/staff-api.md §8.4), the callback payload
(docs/reference/verification.md §5.1), the retry schedule (docs/reference/verification.md
§5.2; docs/reference/verification.md) and the
expiry rules of the sweep.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from gatehouse.timeutil import format_ts

INACTIVE = 1
DRAFT = 2
MORE_DATA = 3
EXPIRED = 4
PENDING = 5
ACCEPTED = 6
REJECTED = 7
ENHANCED = 8
CONFLICT = 9
DUPLICATE = 10

STATUS_NAMES: dict[int, str] = {
    INACTIVE: "Inactive",
    DRAFT: "Draft",
    MORE_DATA: "More data",
    EXPIRED: "Expired",
    PENDING: "Pending",
    ACCEPTED: "Accepted",
    REJECTED: "Rejected",
    ENHANCED: "Enhanced",
    CONFLICT: "Conflict",
    DUPLICATE: "Duplicate",
}

# The range of status codes a client may name (a filter, a status change).
LOWEST_STATUS = min(STATUS_NAMES)
HIGHEST_STATUS = max(STATUS_NAMES)

# docs/reference/verification.md §3: the codes sent; the reserved 1, 3, 4 and 8 are never set.
EMITTED_STATUSES: frozenset[int] = frozenset(
    {DRAFT, PENDING, ACCEPTED, REJECTED, CONFLICT, DUPLICATE}
)
INITIAL_STATUS = PENDING


class CallbackStatus(StrEnum):
    """A callback's `status` in the staff log (docs/reference/staff-api.md §8.4)."""

    PENDING = "pending"  # waiting for its first attempt or a retry
    DELIVERING = "delivering"  # claimed by a worker until its lease ends
    SUCCEEDED = "succeeded"  # answered 2xx
    DROPPED = "dropped"  # the fourth attempt failed, or its customer was erased


CALLBACK_STATUSES: tuple[str, ...] = tuple(CallbackStatus)
OPEN_CALLBACK_STATUSES: tuple[str, ...] = (CallbackStatus.PENDING, CallbackStatus.DELIVERING)

EVENT_STATUS_CHANGED = "customer_status_changed"
EVENT_CREATED = "customer_created"
EVENT_EXPIRY_WARNING = "expiry_warning"
EVENTS = (EVENT_STATUS_CHANGED, EVENT_CREATED, EVENT_EXPIRY_WARNING)

# docs/reference/verification.md §4.2: values are snake_case here; the camelCase spelling of
# the other interfaces is accepted on input and stored in the snake_case form.
DOCUMENT_TYPES: dict[str, str] = {
    "passport": "passport",
    "emirates_id": "emirates_id",
    "emiratesId": "emirates_id",
    "egypt_national_id": "egypt_national_id",
    "egyptNationalId": "egypt_national_id",
}

# docs/reference/verification.md §5.4: one attempt, then at most 3 retries after nominal
# 10 s, 20 s, 40 s.
RETRY_DELAYS_SECONDS: tuple[float, ...] = (10.0, 20.0, 40.0)
MAX_ATTEMPTS = 1 + len(RETRY_DELAYS_SECONDS)

EXPIRY_WARNING_WINDOW = timedelta(days=30)
MIN_PASSPHRASE_LENGTH = 6

# The payload keys of docs/reference/verification.md §5.1, in order; `passphrase` is added at send
# time.
PAYLOAD_KEYS = (
    "id",
    "uuid",
    "email",
    "phone",
    "newStatus",
    "updatedAt",
    "event",
    "expiryWarningFor",
    "passphrase",
)


def status_name(code: int) -> str:
    return STATUS_NAMES.get(code, "Unknown")


def is_settable(code: object) -> bool:
    """Staff may set only the emitted codes 2, 5, 6, 7, 9, 10 (docs/reference/staff-api.md)."""
    return type(code) is int and code in EMITTED_STATUSES


def document_type(value: object) -> str | None:
    """The snake_case document type for an accepted spelling, else None."""
    if not isinstance(value, str):
        return None
    return DOCUMENT_TYPES.get(value.strip())


@dataclass(frozen=True, slots=True)
class CustomerFacts:
    """What a callback says about a customer."""

    id: int
    uuid: str
    email: str
    phone: str
    status: int
    updated_at: datetime


def callback_payload(
    customer: CustomerFacts, event: str, expiry_warning_for: Sequence[str] = ()
) -> dict[str, Any]:
    """The body of docs/reference/verification.md §5.1 without `passphrase` (added by
    `with_passphrase`).

    `expiryWarningFor` is `[]` except on `expiry_warning` (docs/reference/verification.md).
    """
    if event not in EVENTS:
        raise ValueError(f"unknown event {event!r}")
    if customer.status not in EMITTED_STATUSES:
        raise ValueError(f"status {customer.status} is never sent")
    warned = list(expiry_warning_for) if event == EVENT_EXPIRY_WARNING else []
    return {
        "id": customer.id,
        "uuid": customer.uuid,
        "email": customer.email,
        "phone": customer.phone,
        "newStatus": customer.status,
        "updatedAt": format_ts(customer.updated_at),
        "event": event,
        "expiryWarningFor": warned,
    }


def with_passphrase(payload: dict[str, Any], passphrase: str) -> dict[str, Any]:
    """The full body of docs/reference/verification.md §5.1, keys in the spec's order."""
    body = {key: payload[key] for key in PAYLOAD_KEYS if key != "passphrase"}
    body["passphrase"] = passphrase
    return body


def retry_delay(attempts_made: int, scale: float) -> float | None:
    """Seconds to wait after `attempts_made` failed attempts; None once it is dropped."""
    if attempts_made < 1 or attempts_made > len(RETRY_DELAYS_SECONDS):
        return None
    return RETRY_DELAYS_SECONDS[attempts_made - 1] * scale


def is_success(status_code: int | None) -> bool:
    return status_code is not None and 200 <= status_code < 300


@dataclass(frozen=True, slots=True)
class DocumentState:
    type: str
    expires_at: datetime
    warning_sent: bool
    expiry_handled: bool


def needs_warning(document: DocumentState, now: datetime) -> bool:
    """30 days or less before expiry, not yet expired, not yet warned
    (docs/reference/verification.md §5.2).
    """
    if document.warning_sent or document.expires_at <= now:
        return False
    return document.expires_at - now <= EXPIRY_WARNING_WINDOW


def has_expired(document: DocumentState, now: datetime) -> bool:
    """Expired and not yet acted upon: the customer moves to Draft once."""
    return not document.expiry_handled and document.expires_at <= now


def warned_types(documents: Iterable[DocumentState]) -> list[str]:
    """Distinct types, in order, for `expiryWarningFor`."""
    seen: list[str] = []
    for document in documents:
        if document.type not in seen:
            seen.append(document.type)
    return seen
