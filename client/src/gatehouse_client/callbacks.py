"""Verification status callbacks (docs/reference/verification.md).

`verify_callback(body, passphrase)` checks the body's `passphrase` against
the registered callbackPassphrase in constant time, then returns a typed
`VerificationCallback`. Unknown status codes and events are kept, never
rejected (docs/reference/verification.md §3: handle unrecognized codes defensively).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from gatehouse_client._fields import parse_timestamp

__all__ = ["CallbackError", "CustomerStatus", "VerificationCallback", "verify_callback"]


class CustomerStatus(int):
    """A customer status code (docs/reference/verification.md §3), kept as sent even
    when unknown.
    """

    NAMES: ClassVar[dict[int, str]] = {
        1: "inactive",
        2: "draft",
        3: "more_data",
        4: "expired",
        5: "pending",
        6: "accepted",
        7: "rejected",
        8: "enhanced",
        9: "conflict",
        10: "duplicate",
    }
    DRAFT: ClassVar[int] = 2
    PENDING: ClassVar[int] = 5
    ACCEPTED: ClassVar[int] = 6
    REJECTED: ClassVar[int] = 7
    CONFLICT: ClassVar[int] = 9
    DUPLICATE: ClassVar[int] = 10

    @property
    def name(self) -> str | None:
        return self.NAMES.get(int(self))

    @property
    def is_known(self) -> bool:
        return int(self) in self.NAMES

    @property
    def is_accepted(self) -> bool:
        """Passed all checks: exactly code 6, never an unknown code."""
        return int(self) == self.ACCEPTED

    def __repr__(self) -> str:
        return f"CustomerStatus({int(self)})"


class CallbackError(Exception):
    """A callback that must be refused (answer 401 for `passphrase_mismatch`,
    400 otherwise). `reason`: `invalid_body`, `missing_passphrase`,
    `passphrase_mismatch`, `missing_uuid`, `invalid_status`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    @property
    def status_code(self) -> int:
        return 401 if self.reason in ("missing_passphrase", "passphrase_mismatch") else 400


@dataclass(frozen=True)
class VerificationCallback:
    """A verified callback (docs/reference/verification.md §5.1). `raw` leaves the
    passphrase out.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "id",
            "uuid",
            "email",
            "phone",
            "newStatus",
            "updatedAt",
            "event",
            "expiryWarningFor",
            "passphrase",
        }
    )
    KNOWN_EVENTS: ClassVar[frozenset[str]] = frozenset(
        {"customer_status_changed", "customer_created", "expiry_warning"}
    )

    uuid: str
    new_status: CustomerStatus
    event: str
    id: int | None = None
    email: str | None = None
    phone: str | None = None
    updated_at: datetime | None = None
    updated_at_text: str | None = None
    expiry_warning_for: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_known_event(self) -> bool:
        return self.event in self.KNOWN_EVENTS

    @property
    def extra(self) -> dict[str, Any]:
        return {k: v for k, v in self.raw.items() if k not in self.KNOWN_FIELDS}


def _parse_body(body: bytes | bytearray | str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(body, Mapping):
        return dict(body)
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise CallbackError("invalid_body", "the callback body is not JSON") from None
    if not isinstance(parsed, dict):
        raise CallbackError("invalid_body", "the callback body is not a JSON object")
    return parsed


def verify_callback(
    body: bytes | bytearray | str | Mapping[str, Any], passphrase: str
) -> VerificationCallback:
    """Check the passphrase (constant time) and parse the callback (docs/reference/verification.md
    §5.1, §5.3).

    Raises `CallbackError`; the registered passphrase is never echoed.
    """
    if not passphrase:
        raise ValueError("the registered passphrase is required")
    data = _parse_body(body)
    sent = data.get("passphrase")
    if not isinstance(sent, str) or not sent:
        raise CallbackError("missing_passphrase", "the callback carries no passphrase")
    if not hmac.compare_digest(sent.encode("utf-8"), passphrase.encode("utf-8")):
        raise CallbackError("passphrase_mismatch", "the callback passphrase does not match")

    uuid = data.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        raise CallbackError("missing_uuid", "the callback carries no customer uuid")
    status = data.get("newStatus")
    if isinstance(status, str) and status.strip().lstrip("-").isdigit():
        status = int(status.strip())
    if isinstance(status, bool) or not isinstance(status, int):
        raise CallbackError("invalid_status", "newStatus is not a status code")
    record_id = data.get("id")
    updated_text = data.get("updatedAt") if isinstance(data.get("updatedAt"), str) else None
    warnings = data.get("expiryWarningFor")
    raw = {k: v for k, v in data.items() if k != "passphrase"}
    return VerificationCallback(
        uuid=uuid,
        new_status=CustomerStatus(status),
        event=data["event"] if isinstance(data.get("event"), str) else "",
        id=record_id if isinstance(record_id, int) and not isinstance(record_id, bool) else None,
        email=data["email"] if isinstance(data.get("email"), str) else None,
        phone=data["phone"] if isinstance(data.get("phone"), str) else None,
        updated_at=parse_timestamp(updated_text),
        updated_at_text=updated_text,
        expiry_warning_for=[w for w in warnings if isinstance(w, str)]
        if isinstance(warnings, list)
        else [],
        raw=raw,
    )
