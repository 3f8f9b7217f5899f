"""JSON shapes of the tenant API resources (docs/reference/tenant-api.md §2.3, §2.4, §5).

Every surface that shows an application, a member, a decision or an
information request to a tenant (or to staff, in the same shape) answers with
one of these shapes, so the field names live in one place. Each shape is a
`TypedDict`: the views stay plain dicts (serialised as they are), and the same
types describe the answers in /openapi.json (docs/api-reference.md). The
builders that fill them are in `views.py`, the API reference's examples in
`examples.py`.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict


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
