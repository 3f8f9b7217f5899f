"""Retention and legal holds (docs/operations.md, "Retention").

What others may use: the plan and the sweep, setting a hold, a hold's reads and shapes.
"""

from gatehouse.retention.queries import hold_of, holds_in_tenant
from gatehouse.retention.schemas import HoldDetails, LegalHoldView, PlannedErasure, hold_details
from gatehouse.retention.service import plan, run_retention_sweep, set_legal_hold

__all__ = [
    "HoldDetails",
    "LegalHoldView",
    "PlannedErasure",
    "hold_details",
    "hold_of",
    "holds_in_tenant",
    "plan",
    "run_retention_sweep",
    "set_legal_hold",
]
