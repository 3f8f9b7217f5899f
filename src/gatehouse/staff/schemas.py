"""Request bodies of the staff API's case routes (docs/reference/staff-api.md §6).

The services take plain arguments; these models only describe and parse the bodies.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class DecisionBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/decisions` body
    (docs/reference/staff-api.md §6.2)."""

    action: str
    comment: str | None = None
    rejectionReason: str | None = None
    # With approve: why to propose although required checklist items are unsatisfied
    # (docs/reference/staff-api.md §12.1). Optional; recorded when given.
    acknowledgeUnsatisfied: str | None = None


class RaiseBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/info-requests` body
    (docs/reference/staff-api.md §6.4).

    Loosely typed on purpose: the domain rules check each field and name it.
    """

    comment: Any = None
    items: Any = None


class NoteBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/notes` body (docs/reference/staff-api.md §12.2)."""

    text: Any = None


class AssignmentBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/assignment` body
    (docs/reference/staff-api.md §12.4): the staff id to assign the case to, or null to
    unassign it."""

    staffId: Any = None
