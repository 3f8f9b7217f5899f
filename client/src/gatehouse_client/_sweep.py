"""Bookkeeping of a reconciliation sweep over the application list (docs/reference/tenant-api.md
§5.11,
docs/reference/webhooks.md §7.2 rule 4).

The list is sorted by updatedAt descending, so an application updated while
a sweep pages through it jumps ahead of the cursor and is not on a later
page. The sweep therefore runs catch-up passes: each starts at the newest
updatedAt seen minus the overlap, and they stop once a pass brings nothing
new. The checkpoint is the newest updatedAt seen, handed out only when the
last pass has ended; the next sweep starts at checkpoint - overlap, which
covers whatever changed after this one read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from gatehouse_client._models import Application

__all__ = ["SweepResult", "SweepTracker"]

_EPOCH = datetime.min.replace(tzinfo=UTC)


class SweepResult(NamedTuple):
    """Every application seen (latest version of each, newest first) and the
    checkpoint to store for the next sweep (None when nothing was ever seen)."""

    applications: list[Application]
    checkpoint: datetime | None


@dataclass
class SweepTracker:
    since: datetime | None
    overlap: timedelta
    max_passes: int = 10
    seen: dict[str, Application] = field(default_factory=dict)
    newest: datetime | None = None
    passes: int = 0
    _changed: bool = False

    def __post_init__(self) -> None:
        if self.since is not None and self.since.tzinfo is None:
            raise ValueError("since must be timezone-aware")
        if self.overlap < timedelta(0):
            raise ValueError("overlap must not be negative")
        if self.max_passes < 1:
            raise ValueError("max_passes must be at least 1")

    def first_window(self) -> datetime | None:
        """updatedSince of the first pass: None (everything) or since - overlap."""
        return None if self.since is None else self.since - self.overlap

    def add(self, application: Application) -> None:
        """Record one listed application; a newer version replaces an older one."""
        known = self.seen.get(application.client_id)
        updated = application.updated_at
        if known is None or (
            updated is not None and (known.updated_at is None or updated > known.updated_at)
        ):
            self.seen[application.client_id] = application
            self._changed = True
        if updated is not None and (self.newest is None or updated > self.newest):
            self.newest = updated

    def next_window(self) -> datetime | bool | None:
        """updatedSince of the next catch-up pass, or False when the sweep is done."""
        self.passes += 1
        changed, self._changed = self._changed, False
        if not changed or self.passes >= self.max_passes or self.newest is None:
            return False
        return self.newest - self.overlap

    def result(self) -> SweepResult:
        checkpoint = self.newest
        if self.since is not None and (checkpoint is None or checkpoint < self.since):
            checkpoint = self.since
        ordered = sorted(
            self.seen.values(),
            key=lambda a: (a.updated_at or _EPOCH, a.client_id),
            reverse=True,
        )
        return SweepResult(ordered, checkpoint)
