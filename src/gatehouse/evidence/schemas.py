"""The evidence pack's shape (docs/audit-and-evidence.md, "The evidence pack") and the view
builders that fill it from the case file."""

from __future__ import annotations

from typing_extensions import TypedDict

from gatehouse.cases import CaseFile, Note, RequestWithItems, StaffApplication
from gatehouse.records import AuditHead, SealedEntry
from gatehouse.retention import HoldDetails
from gatehouse.risk import Risk
from gatehouse.screening import Screening
from gatehouse.storage.tables.applications import Decision, Member
from gatehouse.timeutil import format_ts


class PackMember(TypedDict):
    memberId: str
    email: str
    role: str
    joinedAt: str


class PackFormAnswer(TypedDict):
    key: str
    label: str
    value: str


class PackDocument(TypedDict):
    documentId: str
    kind: str
    type: str
    size: int
    sha256: str | None
    uploadedAt: str


class PackItem(TypedDict):
    itemId: str
    type: str
    prompt: str
    status: str
    answer: str | None
    documentId: str | None
    answeredAt: str | None


class PackInfoRequest(TypedDict):
    requestId: str
    round: int
    status: str
    comment: str | None
    createdAt: str
    respondedAt: str | None
    closedAt: str | None
    cancelledAt: str | None
    items: list[PackItem]


class PackDecision(TypedDict):
    """A decision-history entry; `byEmail` the staff member's email (the proposer of an
    `approve`, the countersigner of an `approved`)."""

    action: str | None
    fromStatus: str | None
    toStatus: str | None
    byRole: str | None
    byEmail: str | None
    comment: str | None
    at: str


class EvidencePack(TypedDict):
    """`GET /staff/v1/applications/{clientId}/evidence?format=json`."""

    tenant: dict[str, str]
    application: StaffApplication
    legalHold: HoldDetails | None
    members: list[PackMember]
    form: list[PackFormAnswer]
    documents: list[PackDocument]
    infoRequests: list[PackInfoRequest]
    screening: Screening
    risk: Risk
    decisions: list[PackDecision]
    notes: list[Note]
    audit: list[SealedEntry]
    auditHead: AuditHead
    generatedAt: str


def member_view(member: Member) -> PackMember:
    return {
        "memberId": member.id,
        "email": member.email,
        "role": member.role,
        "joinedAt": format_ts(member.joined_at),
    }


def documents_view(case: CaseFile) -> list[PackDocument]:
    return [
        {
            "documentId": entry.document.id,
            "kind": entry.document.content_type,
            "type": entry.document.type,
            "size": entry.document.size_bytes,
            "sha256": entry.sha256,
            "uploadedAt": format_ts(entry.document.uploaded_at),
        }
        for entry in case.evidence.documents
    ]


def request_view(entry: RequestWithItems) -> PackInfoRequest:
    request = entry.request
    return {
        "requestId": request.id,
        "round": request.round,
        "status": request.status,
        "comment": request.comment,
        "createdAt": format_ts(request.created_at),
        "respondedAt": format_ts(request.responded_at),
        "closedAt": format_ts(request.closed_at),
        "cancelledAt": format_ts(request.cancelled_at),
        "items": [
            {
                "itemId": item.id,
                "type": item.type,
                "prompt": item.prompt,
                "status": item.status,
                "answer": item.answer,
                "documentId": item.document_id,
                "answeredAt": format_ts(item.answered_at),
            }
            for item in entry.items
        ],
    }


def decision_view(decision: Decision, emails: dict[str, str]) -> PackDecision:
    return {
        "action": decision.action,
        "fromStatus": decision.from_status,
        "toStatus": decision.to_status,
        "byRole": decision.by_role,
        "byEmail": emails.get(decision.by_staff_id or ""),
        "comment": decision.comment,
        "at": format_ts(decision.at),
    }
