"""Screening of applications against watchlists (docs/screening.md).

What other features may use: asking for a screening, its summary and its full staff read
(the evidence pack's), the open-hit count the decision guard reads, the intake setting's
validation and storage, erasure, and the correlated counts the staff queue filters on and the
insights add up.
"""

from gatehouse.screening.queries import current_hits_of, hit_figures, open_hits_of
from gatehouse.screening.schemas import Screening
from gatehouse.screening.service import (
    erase_screening,
    hit_counts,
    intake_screening,
    open_hit_count,
    read_screening,
    request_intake_screening,
    request_screening,
    save_intake_settings,
    screening_setting,
    screening_summary,
)

__all__ = [
    "Screening",
    "current_hits_of",
    "erase_screening",
    "hit_counts",
    "hit_figures",
    "intake_screening",
    "open_hit_count",
    "open_hits_of",
    "read_screening",
    "request_intake_screening",
    "request_screening",
    "save_intake_settings",
    "screening_setting",
    "screening_summary",
]
