"""Moving a case to another intake (`pair_change`) and bringing a status back in line with the
case's facts (`repair`): docs/case-work.md "Changing the intake", "Checking a status".

What others may use: `change_intake`, `intake_choices`, `repair_application`, `repair_all`.
"""

from gatehouse.realignment.schemas import RepairResult
from gatehouse.realignment.service import (
    RepairLine,
    change_intake,
    intake_choices,
    repair_all,
    repair_application,
)

__all__ = [
    "RepairLine",
    "RepairResult",
    "change_intake",
    "intake_choices",
    "repair_all",
    "repair_application",
]
