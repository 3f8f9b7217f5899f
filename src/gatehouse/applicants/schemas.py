"""Response shapes of the portal's JSON routes (docs/reference/portal.md §7)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict


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
