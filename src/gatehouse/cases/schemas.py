"""Response shapes of the staff API's case routes (docs/reference/staff-api.md §6)."""

from __future__ import annotations

from typing import Any, Literal, overload

from typing_extensions import TypedDict

from gatehouse.applications import Application, ApplicationSummary
from gatehouse.storage.tables.applications import Application as ApplicationRow
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.timeutil import format_ts


class StaffApplicationSummary(ApplicationSummary):
    """The tenant list element's shape and its tenant."""

    tenantId: str


class StaffQueueElement(StaffApplicationSummary):
    """A list element of `GET /staff/v1/applications`: the summary, its risk level and its
    open screening hits (docs/screening.md)."""

    risk: Literal["low", "medium", "high"]
    openHits: int


class StaffApplication(Application):
    """`GET /staff/v1/applications/{clientId}`: the tenant read's shape and its tenant."""

    tenantId: str


class StaffApplicationPage(TypedDict):
    data: list[StaffQueueElement]
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


@overload
def staff_application_view(application: ApplicationRow, view: Application) -> StaffApplication: ...
@overload
def staff_application_view(
    application: ApplicationRow, view: ApplicationSummary
) -> StaffApplicationSummary: ...
def staff_application_view(
    application: ApplicationRow, view: Application | ApplicationSummary
) -> StaffApplication | StaffApplicationSummary:
    """The tenant shape, plus the tenant the application belongs to."""
    return {**view, "tenantId": application.tenant_id}  # type: ignore[typeddict-item]


def audit_entry_view(entry: AuditEntry) -> dict[str, Any]:
    return {
        "at": format_ts(entry.at),
        "actor": entry.actor,
        "action": entry.action,
        "target": entry.target,
        "requestId": entry.request_id,
        "seq": entry.seq,
        "hash": entry.hash,
    }
