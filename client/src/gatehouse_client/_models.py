"""Typed views of the tenant API's application answers (docs/reference/tenant-api.md §2,
docs/reference/tenant-api.md §5).

Every model keeps the whole JSON object it was read from in `raw`, so fields
added by later versions are never lost (docs/reference/tenant-api.md §2.1 rule 6, §9); `extra`
lists the ones this version does not name. Status values are kept as sent,
known or not, and only the exact value `active` means approved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from gatehouse_client._fields import (
    ApplicationStatus,
    Model,
    bool_of,
    format_timestamp,
    int_of,
    list_of_values,
    models_of,
    object_of,
    parse_timestamp,
    status_of,
    text_of,
)

__all__ = [
    "AccessState",
    "Application",
    "ApplicationPage",
    "ApplicationStatus",
    "ChecklistItem",
    "Decision",
    "Document",
    "InfoRequest",
    "InfoRequestItem",
    "Intake",
    "LoginSession",
    "Member",
    "OpenInfoRequest",
    "format_timestamp",
    "is_approved",
    "parse_timestamp",
]


def is_approved(value: Application | ApplicationStatus | str | None) -> bool:
    """True only for an application (or status) that is exactly `active`
    (docs/reference/tenant-api.md §2.3).
    """
    if isinstance(value, Application):
        value = value.status
    return value is not None and str(value) == ApplicationStatus.ACTIVE


@dataclass(frozen=True)
class Member(Model):
    """A member of an application (docs/reference/tenant-api.md §2.4 `members[]`, also the
    add response).
    """

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
            uid=text_of(data, "uid"),
            email=text_of(data, "email"),
            role=text_of(data, "role"),
            joined_at=parse_timestamp(data.get("joinedAt")),
            created=created,
        )


@dataclass(frozen=True)
class Decision(Model):
    """A decision (docs/reference/tenant-api.md §2.4 `decision`; the history of §4.12)."""

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
            action=text_of(data, "action"),
            from_status=status_of(data, "fromStatus"),
            to_status=status_of(data, "toStatus"),
            by_role=text_of(data, "byRole"),
            comment=text_of(data, "comment"),
            at=parse_timestamp(data.get("at")),
        )


@dataclass(frozen=True)
class OpenInfoRequest(Model):
    """The current information-request summary (docs/reference/tenant-api.md §2.4
    `openInfoRequest`).
    """

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
            request_id=text_of(data, "requestId"),
            seq=int_of(data, "seq"),
            round=int_of(data, "round"),
            open_items=int_of(data, "openItems"),
            answered_items=int_of(data, "answeredItems"),
            at=parse_timestamp(data.get("at")),
        )


@dataclass(frozen=True)
class Application(Model):
    """An application (docs/reference/tenant-api.md §2.4 plus the fields of
    docs/reference/tenant-api.md §5).

    List elements may leave `members`, `decision` and `open_info_request` out;
    then `members` is empty and `members_included` is False. `submitted_at`
    None does not prove the applicant never submitted (docs/reference/tenant-api.md §2.4).
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
        decision = object_of(data, "decision")
        info = object_of(data, "openInfoRequest")
        return cls(
            raw=data,
            client_id=text_of(data, "clientId") or "",
            status=status_of(data) or ApplicationStatus(""),
            external_ref=text_of(data, "externalRef"),
            company_name=text_of(data, "companyName"),
            label_id=text_of(data, "labelId"),
            applicant_email=text_of(data, "applicantEmail"),
            created_at=parse_timestamp(data.get("createdAt")),
            updated_at=parse_timestamp(data.get("updatedAt")),
            submitted_at=parse_timestamp(data.get("submittedAt")),
            rejection_reason=text_of(data, "rejectionReason"),
            decision=Decision.from_json(decision) if decision is not None else None,
            open_info_request=OpenInfoRequest.from_json(info) if info is not None else None,
            members=models_of(Member, list_of_values(data, "members")),
            members_included=isinstance(data.get("members"), list),
            created=created,
        )


@dataclass(frozen=True)
class ApplicationPage(Model):
    """One page of `GET /v1/applications` (docs/reference/tenant-api.md §5.11)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"data", "nextCursor", "hasMore"})

    data: list[Application] = field(default_factory=list)
    next_cursor: str | None = None
    has_more: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ApplicationPage:
        return cls(
            raw=data,
            data=models_of(Application, list_of_values(data, "data")),
            next_cursor=text_of(data, "nextCursor"),
            has_more=bool(bool_of(data, "hasMore")),
        )


@dataclass(frozen=True)
class LoginSession(Model):
    """A sign-in link (docs/reference/tenant-api.md §5.2, §5.6; docs/reference/tenant-api.md §5).

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
            login_url=text_of(data, "loginUrl") or "",
            client_id=text_of(data, "clientId") or "",
            expires_at=parse_timestamp(data.get("expiresAt")),
            status=status_of(data),
        )


@dataclass(frozen=True)
class AccessState(Model):
    """The answer of lock and unlock (docs/reference/tenant-api.md §5): `access` is `locked` or
    `unlocked`.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"clientId", "access"})

    client_id: str = ""
    access: str = ""

    @property
    def locked(self) -> bool:
        return self.access == "locked"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AccessState:
        return cls(
            raw=data,
            client_id=text_of(data, "clientId") or "",
            access=text_of(data, "access") or "",
        )


@dataclass(frozen=True)
class InfoRequestItem(Model):
    """An item of an information request (docs/reference/tenant-api.md §2.8)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"itemId", "type", "prompt", "status"})

    item_id: str | None = None
    type: str | None = None
    prompt: str | None = None
    status: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> InfoRequestItem:
        return cls(
            raw=data,
            item_id=text_of(data, "itemId"),
            type=text_of(data, "type"),
            prompt=text_of(data, "prompt"),
            status=text_of(data, "status"),
        )


@dataclass(frozen=True)
class InfoRequest(Model):
    """An information request (docs/reference/tenant-api.md §2.8)."""

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
            request_id=text_of(data, "requestId"),
            seq=int_of(data, "seq"),
            round=int_of(data, "round"),
            status=text_of(data, "status") or "",
            open_items=int_of(data, "openItems") or 0,
            answered_items=int_of(data, "answeredItems") or 0,
            comment=text_of(data, "comment"),
            created_at=parse_timestamp(data.get("createdAt")),
            updated_at=parse_timestamp(data.get("updatedAt")),
            responded_at=parse_timestamp(data.get("respondedAt")),
            closed_at=parse_timestamp(data.get("closedAt")),
            cancelled_at=parse_timestamp(data.get("cancelledAt")),
            items=models_of(InfoRequestItem, list_of_values(data, "items")),
        )


@dataclass(frozen=True)
class Intake(Model):
    """An intake label (docs/reference/tenant-api.md §2.9). A null `label_id` is a
    configuration problem.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"labelId", "name", "order"})

    label_id: str | None = None
    name: str | None = None
    order: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Intake:
        return cls(
            raw=data,
            label_id=text_of(data, "labelId"),
            name=text_of(data, "name"),
            order=int_of(data, "order"),
        )


@dataclass(frozen=True)
class ChecklistItem(Model):
    """An item of the evidence checklist (docs/reference/tenant-api.md §5)."""

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
            key=text_of(data, "key"),
            label=text_of(data, "label"),
            kind=text_of(data, "kind"),
            required=bool(bool_of(data, "required")),
            satisfied=bool(bool_of(data, "satisfied")),
            satisfied_at=parse_timestamp(data.get("satisfiedAt")),
        )


@dataclass(frozen=True)
class Document(Model):
    """Document metadata (docs/reference/tenant-api.md §5); no names, contents or URLs exist."""

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
            document_id=text_of(data, "documentId"),
            type=text_of(data, "type"),
            status=text_of(data, "status"),
            content_type=text_of(data, "contentType"),
            size_bytes=int_of(data, "sizeBytes"),
            uploaded_at=parse_timestamp(data.get("uploadedAt")),
        )
