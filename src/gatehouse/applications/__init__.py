"""Applications, the tenant's resource (docs/reference/tenant-api.md §5): provisioning,
the read of one and the list, members' and links' rows, documents' metadata, the checklist,
locking, and the access rule every tenant write passes.

What others may use: the shapes and their builders (`schemas.py`), the API reference's examples,
the lookups (`get_tenant_application` for a tenant, `application_for_write` /
`application_for_read` for staff case work), the row reads of `queries/rows.py`, the access
rule (`enforce`, `refusal_error`), sign-in links (`mint_link`) and the tenant API's use cases.
"""

from gatehouse.applications.examples import (
    APPLICATION_EXAMPLE,
    DOCUMENT_EXAMPLE,
    INFO_REQUEST_EXAMPLE,
    SUMMARY_EXAMPLE,
)
from gatehouse.applications.queries.rows import (
    application_by_id,
    decisions_of,
    documents_of,
    end_portal_sessions,
    info_requests_of,
    items_of,
    members_of,
    owed_items,
    revoke_unused_links,
)
from gatehouse.applications.queries.snapshot import read_application_view
from gatehouse.applications.schemas import (
    AccessState,
    Application,
    ApplicationPage,
    ApplicationSummary,
    Checklist,
    ChecklistItem,
    DecisionList,
    Document,
    DocumentList,
    InfoRequest,
    InfoRequestList,
    LoginSession,
    Member,
    SignInLink,
    application_summary_view,
    document_view,
    info_request_view,
    member_view,
)
from gatehouse.applications.service.access import lock_application, unlock_application
from gatehouse.applications.service.guards import enforce, refusal_error
from gatehouse.applications.service.links import mint_link
from gatehouse.applications.service.listing import list_applications, parse_list_query
from gatehouse.applications.service.provisioning import create_application, create_login_session
from gatehouse.applications.service.reads import (
    APPLICATION_NOT_FOUND,
    application_for_read,
    application_for_write,
    get_tenant_application,
    load_application_view,
    read_checklist,
    read_decisions,
    read_documents,
    read_info_requests,
)

__all__ = [
    "APPLICATION_EXAMPLE",
    "APPLICATION_NOT_FOUND",
    "DOCUMENT_EXAMPLE",
    "INFO_REQUEST_EXAMPLE",
    "SUMMARY_EXAMPLE",
    "AccessState",
    "Application",
    "ApplicationPage",
    "ApplicationSummary",
    "Checklist",
    "ChecklistItem",
    "DecisionList",
    "Document",
    "DocumentList",
    "InfoRequest",
    "InfoRequestList",
    "LoginSession",
    "Member",
    "SignInLink",
    "application_by_id",
    "application_for_read",
    "application_for_write",
    "application_summary_view",
    "create_application",
    "create_login_session",
    "decisions_of",
    "document_view",
    "documents_of",
    "end_portal_sessions",
    "enforce",
    "get_tenant_application",
    "info_request_view",
    "info_requests_of",
    "items_of",
    "list_applications",
    "load_application_view",
    "lock_application",
    "member_view",
    "members_of",
    "mint_link",
    "owed_items",
    "parse_list_query",
    "read_application_view",
    "read_checklist",
    "read_decisions",
    "read_documents",
    "read_info_requests",
    "refusal_error",
    "revoke_unused_links",
    "unlock_application",
]
