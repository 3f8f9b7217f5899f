"""Staff case work on an application (docs/case-work.md, docs/reference/staff-api.md §6):
the staff read and list, the queue, assignment, internal notes, the audit trail of a case, the
case file, and the status-change event every case move publishes.

What others may use: those use cases and shapes, `staff_application_view` (the tenant shape
plus its tenant) and `publish_status_change`.
"""

from gatehouse.cases.assignment import assign, colleagues
from gatehouse.cases.audit import application_audit, tenant_audit
from gatehouse.cases.case_file import CaseFile, RequestWithItems, case_file
from gatehouse.cases.notes import add_note, list_notes
from gatehouse.cases.queries import list_applications, read_application
from gatehouse.cases.queue import (
    QueueFilters,
    QueuePage,
    intake_choices,
    parse_queue_filters,
    queue_page,
    sandbox_tenants,
    state_figures,
    tenant_choices,
)
from gatehouse.cases.schemas import (
    Assignment,
    AuditPage,
    AuditRecord,
    Note,
    NotePage,
    StaffApplication,
    StaffApplicationPage,
    staff_application_view,
)
from gatehouse.cases.service import publish_status_change
from gatehouse.cases.timeline import case_timeline, page_number

__all__ = [
    "Assignment",
    "AuditPage",
    "AuditRecord",
    "CaseFile",
    "Note",
    "NotePage",
    "QueueFilters",
    "QueuePage",
    "RequestWithItems",
    "StaffApplication",
    "StaffApplicationPage",
    "add_note",
    "application_audit",
    "assign",
    "case_file",
    "case_timeline",
    "colleagues",
    "intake_choices",
    "list_applications",
    "list_notes",
    "page_number",
    "parse_queue_filters",
    "publish_status_change",
    "queue_page",
    "read_application",
    "sandbox_tenants",
    "staff_application_view",
    "state_figures",
    "tenant_audit",
    "tenant_choices",
]
