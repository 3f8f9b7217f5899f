"""Typed views of the API's response bodies (spec 1 §2, CONTRACT §1.3, §2.1).

Every model keeps the whole JSON object it was read from in `raw`, so fields
added by later versions are never lost (spec 1 §2.1 rule 6, §9); `extra`
lists the ones this version does not name. Status and event values are kept
as sent, known or not, and only the exact value `active` means approved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

__all__ = [
    "AccessState",
    "Application",
    "ApplicationPage",
    "ApplicationStatus",
    "ChecklistItem",
    "Decision",
    "Delivery",
    "DeliveryPage",
    "Document",
    "InfoRequest",
    "InfoRequestItem",
    "Intake",
    "LoginSession",
    "Member",
    "OpenInfoRequest",
    "RotatedSecret",
    "WebhookEndpoint",
    "WebhookTestResult",
    "format_timestamp",
    "is_approved",
    "parse_timestamp",
]


class ApplicationStatus(str):
    """An application status (spec 1 §2.2), kept as sent even when unfamiliar.

    It compares equal to its string. `is_known` says whether this version of
    the client knows the value; `is_approved` is true for `active` only, so an
    unfamiliar value is never taken for approval.
    """

    PENDING: ClassVar[str] = "pending"
    NEEDS_INFO: ClassVar[str] = "needs_info"
    HOLD: ClassVar[str] = "hold"
    PENDING_APPROVAL: ClassVar[str] = "pending_approval"
    ACTIVE: ClassVar[str] = "active"
    REJECTED: ClassVar[str] = "rejected"
    KNOWN: ClassVar[frozenset[str]] = frozenset(
        {"pending", "needs_info", "hold", "pending_approval", "active", "rejected"}
    )

    @property
    def is_known(self) -> bool:
        return str(self) in self.KNOWN

    @property
    def is_approved(self) -> bool:
        return str(self) == self.ACTIVE

    def __repr__(self) -> str:
        return f"ApplicationStatus({str(self)!r})"


def is_approved(value: Application | ApplicationStatus | str | None) -> bool:
    """True only for an application (or status) that is exactly `active` (spec 1 §2.2)."""
    if isinstance(value, Application):
        value = value.status
    return value is not None and str(value) == ApplicationStatus.ACTIVE


def parse_timestamp(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as an aware UTC datetime; None when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.astimezone(UTC)


def format_timestamp(value: datetime) -> str:
    """`2026-11-22T10:00:00.000Z`: the API's timestamp format (spec 1 §2.1 rule 5)."""
    if value.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def _str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def _int(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _bool(data: Mapping[str, Any], key: str) -> bool | None:
    value = data.get(key)
    return value if isinstance(value, bool) else None


def _obj(data: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = data.get(key)
    return value if isinstance(value, dict) else None


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _status(data: Mapping[str, Any], key: str = "status") -> ApplicationStatus | None:
    value = _str(data, key)
    return ApplicationStatus(value) if value is not None else None


M = TypeVar("M", bound="_Model")


@dataclass(frozen=True)
class _Model:
    """Base: the whole object stays available in `raw`."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset()

    raw: dict[str, Any] = field(repr=False, compare=False)

    @property
    def extra(self) -> dict[str, Any]:
        """Fields the server sent that this version of the client does not name."""
        return {k: v for k, v in self.raw.items() if k not in self.KNOWN_FIELDS}


def _list_of(cls: type[M], items: list[Any]) -> list[M]:
    return [cls.from_json(item) for item in items if isinstance(item, dict)]  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Member(_Model):
    """A member of an application (spec 1 §2.3 `members[]`, also the add response)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"uid", "email", "role", "joinedAt"})

    uid: str | None = None
    email: str | None = None
    role: str | None = None
    joined_at: datetime | None = None
    # True when the add call created the member (201), False on a repeat (200).
    created: bool | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any], created: bool | None = None) -> Member:
        return cls(
            raw=data,
            uid=_str(data, "uid"),
            email=_str(data, "email"),
            role=_str(data, "role"),
            joined_at=parse_timestamp(data.get("joinedAt")),
            created=created,
        )


@dataclass(frozen=True)
class Decision(_Model):
    """A decision (spec 1 §2.3 `decision`; the history of §4.12)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"action", "fromStatus", "toStatus", "byRole", "comment", "at"}
    )

    action: str | None = None
    from_status: ApplicationStatus | None = None
    to_status: ApplicationStatus | None = None
    by_role: str | None = None
    comment: str | None = None
    at: datetime | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Decision:
        return cls(
            raw=data,
            action=_str(data, "action"),
            from_status=_status(data, "fromStatus"),
            to_status=_status(data, "toStatus"),
            by_role=_str(data, "byRole"),
            comment=_str(data, "comment"),
            at=parse_timestamp(data.get("at")),
        )


@dataclass(frozen=True)
class OpenInfoRequest(_Model):
    """The current information-request summary (spec 1 §2.3 `openInfoRequest`)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"requestId", "seq", "round", "openItems", "answeredItems", "at"}
    )

    request_id: str | None = None
    seq: int | None = None
    round: int | None = None
    open_items: int | None = None
    answered_items: int | None = None
    at: datetime | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OpenInfoRequest:
        return cls(
            raw=data,
            request_id=_str(data, "requestId"),
            seq=_int(data, "seq"),
            round=_int(data, "round"),
            open_items=_int(data, "openItems"),
            answered_items=_int(data, "answeredItems"),
            at=parse_timestamp(data.get("at")),
        )


@dataclass(frozen=True)
class Application(_Model):
    """An application (spec 1 §2.3 plus the fields of CONTRACT §1.3).

    List elements may leave `members`, `decision` and `open_info_request` out;
    then `members` is empty and `members_included` is False. `submitted_at`
    None does not prove the applicant never submitted (spec 1 §2.3).
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "clientId",
            "externalRef",
            "companyName",
            "labelId",
            "applicantEmail",
            "status",
            "createdAt",
            "updatedAt",
            "submittedAt",
            "rejectionReason",
            "decision",
            "openInfoRequest",
            "members",
        }
    )

    client_id: str = ""
    status: ApplicationStatus = field(default_factory=lambda: ApplicationStatus(""))
    external_ref: str | None = None
    company_name: str | None = None
    label_id: str | None = None
    applicant_email: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    submitted_at: datetime | None = None
    rejection_reason: str | None = None
    decision: Decision | None = None
    open_info_request: OpenInfoRequest | None = None
    members: list[Member] = field(default_factory=list)
    members_included: bool = False
    # True when the create call made the application (201), False on a repeat
    # (200); None when the application was read rather than created.
    created: bool | None = None

    @property
    def is_approved(self) -> bool:
        return is_approved(self.status)

    @classmethod
    def from_json(cls, data: dict[str, Any], created: bool | None = None) -> Application:
        decision = _obj(data, "decision")
        info = _obj(data, "openInfoRequest")
        return cls(
            raw=data,
            client_id=_str(data, "clientId") or "",
            status=_status(data) or ApplicationStatus(""),
            external_ref=_str(data, "externalRef"),
            company_name=_str(data, "companyName"),
            label_id=_str(data, "labelId"),
            applicant_email=_str(data, "applicantEmail"),
            created_at=parse_timestamp(data.get("createdAt")),
            updated_at=parse_timestamp(data.get("updatedAt")),
            submitted_at=parse_timestamp(data.get("submittedAt")),
            rejection_reason=_str(data, "rejectionReason"),
            decision=Decision.from_json(decision) if decision is not None else None,
            open_info_request=OpenInfoRequest.from_json(info) if info is not None else None,
            members=_list_of(Member, _list(data, "members")),
            members_included=isinstance(data.get("members"), list),
            created=created,
        )


@dataclass(frozen=True)
class ApplicationPage(_Model):
    """One page of `GET /v1/applications` (spec 1 §4.11)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"data", "nextCursor", "hasMore"})

    data: list[Application] = field(default_factory=list)
    next_cursor: str | None = None
    has_more: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ApplicationPage:
        return cls(
            raw=data,
            data=_list_of(Application, _list(data, "data")),
            next_cursor=_str(data, "nextCursor"),
            has_more=bool(_bool(data, "hasMore")),
        )


@dataclass(frozen=True)
class LoginSession(_Model):
    """A sign-in link (spec 1 §4.2, §4.6; CONTRACT §1.3).

    `login_url` is a single-use credential: it is left out of `repr` so it does
    not end up in logs by accident; never log it.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"loginUrl", "clientId", "expiresAt", "status"}
    )

    login_url: str = field(default="", repr=False)
    client_id: str = ""
    expires_at: datetime | None = None
    status: ApplicationStatus | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LoginSession:
        return cls(
            raw=data,
            login_url=_str(data, "loginUrl") or "",
            client_id=_str(data, "clientId") or "",
            expires_at=parse_timestamp(data.get("expiresAt")),
            status=_status(data),
        )


@dataclass(frozen=True)
class AccessState(_Model):
    """The answer of lock and unlock (CONTRACT §1.3): `access` is `locked` or `unlocked`."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"clientId", "access"})

    client_id: str = ""
    access: str = ""

    @property
    def locked(self) -> bool:
        return self.access == "locked"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AccessState:
        return cls(
            raw=data, client_id=_str(data, "clientId") or "", access=_str(data, "access") or ""
        )


@dataclass(frozen=True)
class InfoRequestItem(_Model):
    """An item of an information request (spec 1 §2.4)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"itemId", "type", "prompt", "status"})

    item_id: str | None = None
    type: str | None = None
    prompt: str | None = None
    status: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> InfoRequestItem:
        return cls(
            raw=data,
            item_id=_str(data, "itemId"),
            type=_str(data, "type"),
            prompt=_str(data, "prompt"),
            status=_str(data, "status"),
        )


@dataclass(frozen=True)
class InfoRequest(_Model):
    """An information request (spec 1 §2.4)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "requestId",
            "seq",
            "round",
            "status",
            "openItems",
            "answeredItems",
            "comment",
            "createdAt",
            "updatedAt",
            "respondedAt",
            "closedAt",
            "cancelledAt",
            "items",
        }
    )

    request_id: str | None = None
    seq: int | None = None
    round: int | None = None
    status: str = ""
    open_items: int = 0
    answered_items: int = 0
    comment: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    responded_at: datetime | None = None
    closed_at: datetime | None = None
    cancelled_at: datetime | None = None
    items: list[InfoRequestItem] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> InfoRequest:
        return cls(
            raw=data,
            request_id=_str(data, "requestId"),
            seq=_int(data, "seq"),
            round=_int(data, "round"),
            status=_str(data, "status") or "",
            open_items=_int(data, "openItems") or 0,
            answered_items=_int(data, "answeredItems") or 0,
            comment=_str(data, "comment"),
            created_at=parse_timestamp(data.get("createdAt")),
            updated_at=parse_timestamp(data.get("updatedAt")),
            responded_at=parse_timestamp(data.get("respondedAt")),
            closed_at=parse_timestamp(data.get("closedAt")),
            cancelled_at=parse_timestamp(data.get("cancelledAt")),
            items=_list_of(InfoRequestItem, _list(data, "items")),
        )


@dataclass(frozen=True)
class Intake(_Model):
    """An intake label (spec 1 §2.5). A null `label_id` is a configuration problem."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"labelId", "name", "order"})

    label_id: str | None = None
    name: str | None = None
    order: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Intake:
        return cls(
            raw=data,
            label_id=_str(data, "labelId"),
            name=_str(data, "name"),
            order=_int(data, "order"),
        )


@dataclass(frozen=True)
class ChecklistItem(_Model):
    """An item of the evidence checklist (CONTRACT §1.3)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"key", "label", "kind", "required", "satisfied", "satisfiedAt"}
    )

    key: str | None = None
    label: str | None = None
    kind: str | None = None
    required: bool = False
    satisfied: bool = False
    satisfied_at: datetime | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChecklistItem:
        return cls(
            raw=data,
            key=_str(data, "key"),
            label=_str(data, "label"),
            kind=_str(data, "kind"),
            required=bool(_bool(data, "required")),
            satisfied=bool(_bool(data, "satisfied")),
            satisfied_at=parse_timestamp(data.get("satisfiedAt")),
        )


@dataclass(frozen=True)
class Document(_Model):
    """Document metadata (CONTRACT §1.3); no names, contents or URLs exist."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"documentId", "type", "status", "contentType", "sizeBytes", "uploadedAt"}
    )

    document_id: str | None = None
    type: str | None = None
    status: str | None = None
    content_type: str | None = None
    size_bytes: int | None = None
    uploaded_at: datetime | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Document:
        return cls(
            raw=data,
            document_id=_str(data, "documentId"),
            type=_str(data, "type"),
            status=_str(data, "status"),
            content_type=_str(data, "contentType"),
            size_bytes=_int(data, "sizeBytes"),
            uploaded_at=parse_timestamp(data.get("uploadedAt")),
        )


@dataclass(frozen=True)
class WebhookEndpoint(_Model):
    """A webhook endpoint (spec 2 §2.1, CONTRACT §2.1).

    `secret` is only set on the create answer; it is left out of `repr`.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "id",
            "url",
            "events",
            "status",
            "description",
            "createdAt",
            "updatedAt",
            "disabledReason",
            "consecutiveFailures",
            "secret",
        }
    )

    id: str = ""
    url: str = ""
    events: list[str] = field(default_factory=list)
    status: str = ""
    description: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    disabled_reason: str | None = None
    consecutive_failures: int = 0
    secret: str | None = field(default=None, repr=False)

    @property
    def enabled(self) -> bool:
        return self.status == "enabled"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WebhookEndpoint:
        return cls(
            raw=data,
            id=_str(data, "id") or "",
            url=_str(data, "url") or "",
            events=[e for e in _list(data, "events") if isinstance(e, str)],
            status=_str(data, "status") or "",
            description=_str(data, "description"),
            created_at=parse_timestamp(data.get("createdAt")),
            updated_at=parse_timestamp(data.get("updatedAt")),
            disabled_reason=_str(data, "disabledReason"),
            consecutive_failures=_int(data, "consecutiveFailures") or 0,
            secret=_str(data, "secret"),
        )


@dataclass(frozen=True)
class RotatedSecret(_Model):
    """The rotate-secret answer (spec 2 §4.3). Keep the old secret on the receiver
    until `previous_secret_expires_at`."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"secret", "previousSecretExpiresAt"})

    secret: str = field(default="", repr=False)
    previous_secret_expires_at: datetime | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RotatedSecret:
        return cls(
            raw=data,
            secret=_str(data, "secret") or "",
            previous_secret_expires_at=parse_timestamp(data.get("previousSecretExpiresAt")),
        )


@dataclass(frozen=True)
class WebhookTestResult(_Model):
    """The test-send answer (spec 2 §4.4): check `success` even when the call succeeded."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"success", "httpStatus", "latencyMs", "responseSnippet", "sentHeaders", "error"}
    )

    success: bool = False
    http_status: int | None = None
    latency_ms: int | None = None
    response_snippet: str | None = None
    sent_headers: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WebhookTestResult:
        latency = data.get("latencyMs")
        return cls(
            raw=data,
            success=bool(_bool(data, "success")),
            http_status=_int(data, "httpStatus"),
            latency_ms=int(latency) if isinstance(latency, int | float) else None,
            response_snippet=_str(data, "responseSnippet"),
            sent_headers=_obj(data, "sentHeaders") or {},
            error=_str(data, "error"),
        )


@dataclass(frozen=True)
class Delivery(_Model):
    """A delivery record (CONTRACT §2.1); `status` is kept even when unfamiliar."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "id",
            "eventId",
            "eventType",
            "status",
            "attempts",
            "createdAt",
            "lastAttemptAt",
            "nextAttemptAt",
            "lastHttpStatus",
            "lastError",
        }
    )

    id: str = ""
    event_id: str | None = None
    event_type: str | None = None
    status: str = ""
    attempts: int = 0
    created_at: datetime | None = None
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None
    last_http_status: int | None = None
    last_error: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Delivery:
        return cls(
            raw=data,
            id=_str(data, "id") or "",
            event_id=_str(data, "eventId"),
            event_type=_str(data, "eventType"),
            status=_str(data, "status") or "",
            attempts=_int(data, "attempts") or 0,
            created_at=parse_timestamp(data.get("createdAt")),
            last_attempt_at=parse_timestamp(data.get("lastAttemptAt")),
            next_attempt_at=parse_timestamp(data.get("nextAttemptAt")),
            last_http_status=_int(data, "lastHttpStatus"),
            last_error=_str(data, "lastError"),
        )


@dataclass(frozen=True)
class DeliveryPage(_Model):
    """One page of an endpoint's delivery history (CONTRACT §2.1)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"data", "nextCursor", "hasMore"})

    data: list[Delivery] = field(default_factory=list)
    next_cursor: str | None = None
    has_more: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DeliveryPage:
        return cls(
            raw=data,
            data=_list_of(Delivery, _list(data, "data")),
            next_cursor=_str(data, "nextCursor"),
            has_more=bool(_bool(data, "hasMore")),
        )
