"""Response shapes of the intake change and the repair (docs/reference/staff-api.md "Intake
change and repair")."""

from __future__ import annotations

from typing_extensions import TypedDict


class RepairResult(TypedDict):
    """`POST /staff/v1/applications/{clientId}/repair`: the status before and after, and whether
    it changed."""

    clientId: str
    previousStatus: str
    status: str
    changed: bool
