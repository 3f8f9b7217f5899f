"""Screening of applications against watchlists (docs/screening.md).

What other features may use: asking for a screening, its summary and its full staff read
(the evidence pack's), the open-hit count the decision guard reads, the intake setting's
validation and storage, erasure, the correlated counts the staff queue filters on and the
insights add up; the
staff's hit and watchlist use cases; loading a watchlist (the CLI) and the worker (composition).

The face stays light: the loader and the worker (and the process pool under them) load on
first call, never when a surface imports the face (the matcher's libraries load only in the
matcher's own process, docs/screening.md "Operating it").
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from gatehouse.runtime import Runtime
from gatehouse.screening.queries import current_hits_of, hit_figures, open_hits_of
from gatehouse.screening.schemas import (
    BadLine,
    Hit,
    LoadResult,
    Screening,
    ScreeningRequested,
    WatchLists,
)
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

if TYPE_CHECKING:
    from gatehouse.screening.runner import AfterScreening


async def load_list(runtime: Runtime, path: Path, name: str) -> LoadResult:
    """Load a watchlist file under `name` (`screening/lists.py`); refused whole on a bad line."""
    from gatehouse.screening import lists

    return await lists.load_list(runtime, path, name)


async def run_screening_worker(
    runtime: Runtime, stop: asyncio.Event, *, after: AfterScreening
) -> None:
    """Run screening jobs until `stop` is set (`screening/worker.py`)."""
    from gatehouse.screening import worker

    await worker.run_screening_worker(runtime, stop, after=after)


__all__ = [
    "BadLine",
    "Hit",
    "LoadResult",
    "Screening",
    "ScreeningRequested",
    "WatchLists",
    "application_of_hit",
    "current_hits_of",
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
