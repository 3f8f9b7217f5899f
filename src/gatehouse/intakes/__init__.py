"""Intake labels: a tenant's configurations of checklist and form
(docs/reference/tenant-api.md §5, docs/reference/staff-api.md §5).

What others may use: the tenant's label list, the staff configuration (create, update, read),
the attached intakes, the choice a new application's intake is made by (its statements and
its rule), and the shapes.
"""

from gatehouse.intakes.queries import (
    CHOICE_ATTACHED,
    CHOICE_BY_LABEL,
    attached_intakes,
    intakes_of,
    tenant_of_intake,
)
from gatehouse.intakes.rules import choose_among, valid_order
from gatehouse.intakes.schemas import IntakeList, StaffIntake
from gatehouse.intakes.service import (
    create_intake,
    list_intake_labels,
    staff_intake_read,
    update_intake,
)

__all__ = [
    "CHOICE_ATTACHED",
    "CHOICE_BY_LABEL",
    "IntakeList",
    "StaffIntake",
    "attached_intakes",
    "choose_among",
    "create_intake",
    "intakes_of",
    "list_intake_labels",
    "staff_intake_read",
    "tenant_of_intake",
    "update_intake",
    "valid_order",
]
