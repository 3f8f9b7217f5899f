"""Screening of applications against watchlists (docs/screening.md).

What other features may use: asking for a screening, its summary and its full staff read
(the evidence pack's), the open-hit count the decision guard reads, the intake setting's
validation and storage, erasure, and the correlated count the staff queue filters on.
"""

from gatehouse.screening.lists import BadLine, LoadResult, load_list
from gatehouse.screening.queries import hit_figures, open_hits_of
from gatehouse.screening.schemas import Hit, Screening, ScreeningRequested, WatchLists
from gatehouse.screening.service import (
    application_of_hit,
    erase_screening,
    hit_counts,
    intake_screening,
    open_hit_count,
    read_screening,
    request_intake_screening,
    request_screening,
    resolve_hit,
    run_screening,
    save_intake_settings,
    screening_setting,
    screening_summary,
    watch_lists,
)
from gatehouse.screening.worker import run_screening_worker

__all__ = [
    "BadLine",
    "Hit",
    "LoadResult",
    "Screening",
    "ScreeningRequested",
    "WatchLists",
    "application_of_hit",
    "erase_screening",
    "hit_counts",
    "hit_figures",
    "intake_screening",
    "load_list",
    "open_hit_count",
    "open_hits_of",
    "read_screening",
    "request_intake_screening",
    "request_screening",
    "resolve_hit",
    "run_screening",
    "run_screening_worker",
    "save_intake_settings",
    "screening_setting",
    "screening_summary",
    "watch_lists",
]
