"""Response shapes of the staff API's case routes (docs/reference/staff-api.md §6)."""

from __future__ import annotations

from typing_extensions import TypedDict

from gatehouse.applications.schemas import Application, ApplicationSummary


class StaffApplicationSummary(ApplicationSummary):
    """A list element of `GET /staff/v1/applications`: the tenant shape and its tenant."""

    tenantId: str


class StaffApplication(Application):
    """`GET /staff/v1/applications/{clientId}`: the tenant read's shape and its tenant."""

    tenantId: str


class StaffApplicationPage(TypedDict):
    data: list[StaffApplicationSummary]
    nextCursor: str | None
    hasMore: bool


class AuditRecord(TypedDict):
    """One audit entry: who did what to which target, and in which request; `seq` and `hash`
    its place in the sealed chain, null until sealed (docs/audit-and-evidence.md)."""

    at: str
    actor: str
    action: str
    target: str | None
    requestId: str | None
    seq: int | None
    hash: str | None


class AuditPage(TypedDict):
    data: list[AuditRecord]
    nextCursor: str | None
    hasMore: bool


class Note(TypedDict):
    """An internal note (docs/reference/staff-api.md §12.2): staff-only."""

    noteId: str
    clientId: str
    authorStaffId: str
    authorEmail: str | None
    text: str
    createdAt: str | None


class NotePage(TypedDict):
    data: list[Note]
    nextCursor: str | None
    hasMore: bool


class Assignment(TypedDict):
    """Who has the case after `POST …/assignment`
    (docs/reference/staff-api.md §12.4); null: no one."""

    clientId: str
    assignedTo: str | None
