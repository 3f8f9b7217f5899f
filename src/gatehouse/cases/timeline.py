"""The case page's timeline (docs/workstation.md "The timeline"): one list, newest first, of
everything that happened to a case, each entry labelled by its kind:

- `status`: the decision history (proposals, countersignatures, rejections, holds, the moves
  an information request or an intake change made);
- `request`: information-request rounds (raised, answered, reminded, closed, cancelled);
- `note`: internal notes (staff-only, as the whole page is);
- `event`: the webhook events the application caused (the newest the case file holds);
- `audit`: the audit trail's entries (who did what, ids only).

Shown a page at a time (PAGE_SIZE entries); each source is read only as deep as the page asks,
and the page number is capped (MAX_PAGE), so a long case costs a bounded read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.cases.audit import latest_entries
from gatehouse.cases.case_file import CaseFile, EventSent, RequestWithItems
from gatehouse.cases.notes import NoteView
from gatehouse.domain.workstation import KIND_LABELS, EntryKind
from gatehouse.storage.tables.applications import Decision
from gatehouse.storage.tables.core import AuditEntry

PAGE_SIZE = 12
MAX_PAGE = 20


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    at: datetime
    kind: EntryKind
    title: str
    detail: str | None = None
    actor: str | None = None

    @property
    def label(self) -> str:
        return KIND_LABELS[self.kind]


@dataclass(frozen=True, slots=True)
class Timeline:
    entries: list[TimelineEntry]
    page: int
    has_more: bool


def _words(value: str | None) -> str:
    return (value or "").replace("_", " ")


def _status_entries(decisions: Iterable[Decision]) -> Iterator[TimelineEntry]:
    for d in decisions:
        detail = d.comment
        if d.acknowledgement:
            items = ", ".join(d.acknowledged_items or [])
            why = f"Proposed with items unsatisfied ({items}): {d.acknowledgement}"
            detail = f"{detail} · {why}" if detail else why
        title = f"{_words(d.action)}: {_words(d.from_status)} → {_words(d.to_status)}"
        yield TimelineEntry(d.at, EntryKind.STATUS, title, detail, _words(d.by_role))


def _request_entries(requests: Iterable[RequestWithItems]) -> Iterator[TimelineEntry]:
    for entry in requests:
        r = entry.request
        name = f"Request #{r.seq}"
        count = len(entry.items)
        asked = f"{count} item{'s' if count != 1 else ''}, round {r.round}"
        yield TimelineEntry(r.created_at, EntryKind.REQUEST, f"{name} raised ({asked})", r.comment)
        moments = (
            (r.responded_at, "answered"),
            (r.reminded_at, "reminder sent"),
            (r.closed_at, "closed"),
            (r.cancelled_at, "cancelled"),
        )
        for at, what in moments:
            if at is not None:
                yield TimelineEntry(at, EntryKind.REQUEST, f"{name} {what}")


def _note_entries(notes: Iterable[NoteView]) -> Iterator[TimelineEntry]:
    for note in notes:
        author = note.author_email or note.author_staff_id
        yield TimelineEntry(note.created_at, EntryKind.NOTE, note.text, None, author)


def _event_entries(events: Iterable[EventSent]) -> Iterator[TimelineEntry]:
    for sent in events:
        summary = sent.summary
        status = summary.get("status")
        before = summary.get("previousStatus")
        detail = None
        if isinstance(status, str):
            detail = _words(status)
            if isinstance(before, str) and before != status:
                detail = f"{_words(before)} → {detail}"
            if isinstance(summary.get("reason"), str):
                detail += f" ({summary['reason']})"
        yield TimelineEntry(sent.event.occurred_at, EntryKind.EVENT, sent.event.type, detail)


def _audit_entries(entries: Iterable[AuditEntry], client_id: str) -> Iterator[TimelineEntry]:
    """The trail's entries; the target is shown when it is not the application itself."""
    for entry in entries:
        target = None if entry.target == client_id else entry.target
        yield TimelineEntry(entry.at, EntryKind.AUDIT, entry.action, target, entry.actor)


def page_number(raw: str | None) -> int:
    """The `timeline` query parameter: 1 to MAX_PAGE; anything else is the first page."""
    if raw is None or not (raw.isascii() and raw.isdigit()) or len(raw) > 3:
        return 1
    return min(max(int(raw), 1), MAX_PAGE)


def merge(sources: Iterable[Iterable[TimelineEntry]], page: int) -> Timeline:
    """The entries of all sources, newest first (a stable order for equal times: status,
    request, note, event, audit), cut to page `page`."""
    merged = sorted(
        (entry for source in sources for entry in source), key=lambda e: e.at, reverse=True
    )
    end = page * PAGE_SIZE
    return Timeline(merged[end - PAGE_SIZE : end], page, len(merged) > end)


async def case_timeline(session: AsyncSession, case: CaseFile, page: int) -> Timeline:
    """Page `page` of the case's timeline."""
    depth = page * PAGE_SIZE + 1
    audit = await latest_entries(session, case.application.id, depth)
    return merge(
        (
            _status_entries(case.decisions),
            _request_entries(case.requests),
            _note_entries(case.notes),
            _event_entries(case.events),
            _audit_entries(audit, case.application.id),
        ),
        page,
    )
