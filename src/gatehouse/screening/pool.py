"""The matcher's process (docs/screening.md, "Operating it").

The matching library and its name tables take about 500 MB and half a minute to load, so
they never load in a serving process: name analysis and scoring run in one child process
of the worker, started on first use and kept. Without the `screening` extra, nothing runs
and screening is reported as not available.
"""

from __future__ import annotations

import asyncio
import importlib.util
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from gatehouse.errors import failed_precondition

T = TypeVar("T")
_LIBRARIES = ("followthemoney", "nomenklatura", "rigour", "normality")
_lock = threading.Lock()
_executor: ProcessPoolExecutor | None = None

MISSING = (
    "Screening needs the screening extra: pip install 'gatehouse-kyc[screening]' "
    "(docs/screening.md)."
)


def matching_available() -> bool:
    """Whether the screening extra's libraries are installed."""
    return all(importlib.util.find_spec(name) is not None for name in _LIBRARIES)


def require_matching() -> None:
    if not matching_available():
        raise failed_precondition(MISSING)


def _warm() -> None:
    from gatehouse.screening.matching import warm

    warm()


def _pool() -> ProcessPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm,
            )
        return _executor


def _reset() -> None:
    global _executor
    with _lock:
        broken, _executor = _executor, None
    if broken is not None:
        broken.shutdown(wait=False, cancel_futures=True)


async def in_matcher(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` (a module-level function of screening.matching) in the matcher's
    process; a process that died is replaced on the next call."""
    try:
        return await asyncio.get_running_loop().run_in_executor(_pool(), fn, *args)
    except BrokenProcessPool:
        _reset()
        raise
