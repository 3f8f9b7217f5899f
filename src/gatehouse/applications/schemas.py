"""JSON shapes of the tenant API resources (docs/reference/tenant-api.md §2.3, §2.4, §5).

Every surface that shows an application, a member, a decision or an
information request to a tenant (or to staff, in the same shape) answers with
one of these shapes, so the field names live in one place. Each shape is a
`TypedDict`: the views stay plain dicts (serialised as they are), and the same
types describe the answers in /openapi.json (docs/api-reference.md). The
builders that fill them follow the shapes (from ORM objects or rows of a Core read), the API
reference's examples are in `examples.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal, NotRequired, Protocol, cast

from typing_extensions import TypedDict

from gatehouse.domain.info_requests import OWED_ITEM_STATES, ItemState
from gatehouse.domain.status import ApplicationStatus
from gatehouse.storage.tables.applications import Document as DocumentRow
from gatehouse.storage.tables.applications import InfoRequest as InfoRequestRow
from gatehouse.storage.tables.applications import InfoRequestItem as InfoRequestItemRow
from gatehouse.timeutil import format_ts


class Member(TypedDict):
    """A member of an application (`members[]`, and the answer of adding one)."""

    uid: str
    email: str
    role: str
    joinedAt: str


class Decision(TypedDict):
    """A decision-history entry; never names the staff member."""

    action: str | None
    fromStatus: str | None
    toStatus: str | None
    byRole: str | None
    comment: str | None
    at: str


class InfoRequestItem(TypedDict):
    """An item of an information request; the applicant's answer is never shown."""

    itemId: str
    type: str
    prompt: str
    status: str


class InfoRequest(TypedDict):
    """An information request, its items in the order staff listed them."""

    requestId: str
    seq: int
    round: int
    status: str
    openItems: int
    answeredItems: int
    comment: str | None
    createdAt: str
    updatedAt: str
    respondedAt: str | None
    closedAt: str | None
    cancelledAt: str | None
    items: list[InfoRequestItem]


class OpenInfoRequest(TypedDict):
    """`openInfoRequest` of the application read: the current request, summed up."""

    requestId: str
    seq: int
    round: int
    openItems: int
    answeredItems: int
    at: str


class ApplicationSummary(TypedDict):
    """An application as list elements show it (no members, decision or request)."""

    clientId: str
    externalRef: str | None
    companyName: str | None
    labelId: str | None
    applicantEmail: str | None
    status: str
    createdAt: str
    updatedAt: str
    # Present once the applicant submitted.
    submittedAt: NotRequired[str]
    # Present while the status is rejected.
    rejectionReason: NotRequired[str | None]


class Application(ApplicationSummary):
    """The application read (docs/reference/tenant-api.md §2.3)."""

    decision: Decision | None
    openInfoRequest: OpenInfoRequest | None
    members: list[Member]


class ApplicationPage(TypedDict):
    """One page of `GET /v1/applications`."""

    data: list[ApplicationSummary]
    nextCursor: str | None
    hasMore: bool


class InfoRequestList(TypedDict):
    data: list[InfoRequest]


class DecisionList(TypedDict):
    data: list[Decision]


class ChecklistItem(TypedDict):
    """An item of the intake's checklist and whether it is satisfied."""

    key: str
    label: str
    kind: Literal["document", "verification", "form"]
    required: bool
    satisfied: bool
    satisfiedAt: str | None


class Checklist(TypedDict):
    data: list[ChecklistItem]


class Document(TypedDict):
    """Document metadata: no file name, content or URL."""

    documentId: str
    type: str
    status: str
    contentType: str | None
    sizeBytes: int | None
    uploadedAt: str


class DocumentList(TypedDict):
    data: list[Document]


class SignInLink(TypedDict):
    """A fresh single-use sign-in link for a member (`loginUrl` is a credential)."""

    loginUrl: str
    clientId: str
    expiresAt: str


class LoginSession(SignInLink):
    """A sign-in link made by provisioning, with the application's status."""

    status: str


class AccessState(TypedDict):
    """The answer of lock and unlock."""

    clientId: str
    access: Literal["locked", "unlocked"]


# --- the builders ---------------------------------------------------------------------


class MemberFields(Protocol):
    """What a member's view reads: an ORM `Member` or a row of a Core read."""

    @property
    def id(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def joined_at(self) -> datetime: ...


class DecisionFields(Protocol):
    """What a decision's view reads."""

    @property
    def action(self) -> str | None: ...
    @property
    def from_status(self) -> str | None: ...
    @property
    def to_status(self) -> str | None: ...
    @property
    def by_role(self) -> str | None: ...
    @property
    def comment(self) -> str | None: ...
    @property
    def at(self) -> datetime: ...


class ApplicationFields(Protocol):
    """What an application's own fields in a view read."""

    @property
    def id(self) -> str: ...
    @property
    def external_ref(self) -> str | None: ...
    @property
    def company_name(self) -> str | None: ...
    @property
    def label_id(self) -> str | None: ...
    @property
    def applicant_email(self) -> str | None: ...
    @property
    def status(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def submitted_at(self) -> datetime | None: ...
    @property
    def rejection_reason(self) -> str | None: ...


# Item states counted as "requiring applicant action" (openItems), and as answered.
OPEN_ITEM_STATES = OWED_ITEM_STATES
ANSWERED_ITEM_STATES: frozenset[str] = frozenset({ItemState.ANSWERED})


def member_view(member: MemberFields) -> Member:
    """`members[]` element and member-add response."""
    return {
        "uid": member.id,
        "email": member.email,
        "role": member.role,
        "joinedAt": format_ts(member.joined_at),
    }


def decision_view(decision: DecisionFields) -> Decision:
    """`decision` object; never names the staff member."""
    return {
        "action": decision.action,
        "fromStatus": decision.from_status,
        "toStatus": decision.to_status,
        "byRole": decision.by_role,
        "comment": decision.comment,
        "at": format_ts(decision.at),
    }


def item_counts(items: Iterable[InfoRequestItemRow]) -> tuple[int, int]:
    """(openItems, answeredItems): open + reopened, and answered."""
    open_items = 0
    answered_items = 0
    for item in items:
        if item.status in OPEN_ITEM_STATES:
            open_items += 1
        elif item.status in ANSWERED_ITEM_STATES:
            answered_items += 1
    return open_items, answered_items


def _ordered(items: Iterable[InfoRequestItemRow]) -> list[InfoRequestItemRow]:
    # Items keep the order in which staff listed them.
    return sorted(items, key=lambda item: (item.position, item.id))


def info_request_item_view(item: InfoRequestItemRow) -> InfoRequestItem:
    """An item; the applicant's answer is never included."""
    return {
        "itemId": item.id,
        "type": item.type,
        "prompt": item.prompt,
        "status": item.status,
    }


def info_request_view(request: InfoRequestRow, items: Sequence[InfoRequestItemRow]) -> InfoRequest:
    """Information request list element, items in staff order."""
    open_items, answered_items = item_counts(items)
    return {
        "requestId": request.id,
        "seq": request.seq,
        "round": request.round,
        "status": request.status,
        "openItems": open_items,
        "answeredItems": answered_items,
        "comment": request.comment,
        "createdAt": format_ts(request.created_at),
        "updatedAt": format_ts(request.updated_at),
        "respondedAt": format_ts(request.responded_at),
        "closedAt": format_ts(request.closed_at),
        "cancelledAt": format_ts(request.cancelled_at),
        "items": [info_request_item_view(item) for item in _ordered(items)],
    }


def open_info_request_view(
    request: InfoRequestRow, items: Sequence[InfoRequestItemRow]
) -> OpenInfoRequest:
    """`openInfoRequest` summary of the application read."""
    open_items, answered_items = item_counts(items)
    return {
        "requestId": request.id,
        "seq": request.seq,
        "round": request.round,
        "openItems": open_items,
        "answeredItems": answered_items,
        "at": format_ts(request.updated_at),
    }


def application_summary_view(application: ApplicationFields) -> ApplicationSummary:
    """The application fields that need no other table (list elements)."""
    view: ApplicationSummary = {
        "clientId": application.id,
        "externalRef": application.external_ref,
        "companyName": application.company_name,
        "labelId": application.label_id,
        "applicantEmail": application.applicant_email,
        "status": application.status,
        "createdAt": format_ts(application.created_at),
        "updatedAt": format_ts(application.updated_at),
    }
    if application.submitted_at is not None:
        view["submittedAt"] = format_ts(application.submitted_at)
    if application.status == ApplicationStatus.REJECTED:
        view["rejectionReason"] = application.rejection_reason
    return view


def application_view(
    application: ApplicationFields,
    members: Sequence[MemberFields],
    latest_decision: DecisionFields | None,
    open_info_request: OpenInfoRequest | None,
) -> Application:
    """The application read (docs/reference/tenant-api.md §2.3).

    `open_info_request` is the summary built by `open_info_request_view` (or
    None). `submittedAt` is omitted when no submission is stored;
    `rejectionReason` appears only while the status is rejected.
    """
    # The summary dict grows in place: this is the hottest read (no copy per request).
    view = cast(Application, application_summary_view(application))
    view["decision"] = decision_view(latest_decision) if latest_decision is not None else None
    view["openInfoRequest"] = (
        cast(OpenInfoRequest, dict(open_info_request)) if open_info_request is not None else None
    )
    view["members"] = [member_view(member) for member in members]
    return view


def document_view(document: DocumentRow) -> Document:
    """Document metadata (docs/reference/tenant-api.md §5): no file name, content or URL."""
    return {
        "documentId": document.id,
        "type": document.type,
        "status": document.status,
        "contentType": document.content_type,
        "sizeBytes": document.size_bytes,
        "uploadedAt": format_ts(document.uploaded_at),
    }
