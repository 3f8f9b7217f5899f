"""applications."""

from gatehouse.applications.examples import (
    APPLICATION_EXAMPLE,
    DOCUMENT_EXAMPLE,
    INFO_REQUEST_EXAMPLE,
    SUMMARY_EXAMPLE,
)
from gatehouse.applications.queries.rows import (
    application_by_id,
    decisions_of,
    end_portal_sessions,
    info_requests_of,
    items_of,
    members_of,
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
)
from gatehouse.applications.service.access import lock_application, unlock_application
from gatehouse.applications.service.guards import enforce, refusal_error
from gatehouse.applications.service.links import mint_link
from gatehouse.applications.service.listing import list_applications, parse_list_query
from gatehouse.applications.service.provisioning import create_application, create_login_session
from gatehouse.applications.service.reads import (
    APPLICATION_NOT_FOUND,
    document_view,
    documents_of,
    get_tenant_application,
    load_application_view,
    read_checklist,
    read_decisions,
    read_documents,
    read_info_requests,
)
from gatehouse.applications.views import application_summary_view, info_request_view, member_view

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
