"""Response shapes of the portal's JSON routes (docs/reference/portal.md §7)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from gatehouse.applicants.sessions import PortalContext
from gatehouse.storage.tables.applications import Application
from gatehouse.timeutil import format_ts


class PortalMe(TypedDict):
    """`GET /portal/api/me`: the session's member and its application."""

    clientId: str
    uid: str
    email: str
    role: str
    status: str
    companyName: str | None
    submittedAt: str | None


class FormDraft(TypedDict):
    """The saved form draft."""

    companyName: str | None
    fields: dict[str, Any]


def me_view(application: Application, context: PortalContext) -> PortalMe:
    """`{clientId, uid, email, role, status, companyName, submittedAt}`
    (docs/reference/portal.md §7.1)."""
    return {
        "clientId": application.id,
        "uid": context.member_id,
        "email": context.email,
        "role": context.role,
        "status": application.status,
        "companyName": application.company_name,
        "submittedAt": format_ts(application.submitted_at),
    }
