"""Internal notes on a case (docs/workstation.md "Notes"; docs/reference/staff-api.md §12.2).

Staff-only: a note has its author, its time and its text, and nothing outside the staff API
and the dashboard reads this table. Adding a note is audited (`application.note.add`, the note
as target); it changes nothing a tenant reads, not even `updatedAt`. Erasure deletes the
application's notes (erasure/service.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications import application_for_read, application_for_write
from gatehouse.audit.context import WriteContext
from gatehouse.cases.schemas import Note, NotePage
from gatehouse.crypto import Crypto
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.workstation import check_note
from gatehouse.ids import new_id
from gatehouse.paging import STAFF, CursorScope, PageRequest, keyset_after, page_of, read_position
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.workstation import CaseNote
from gatehouse.timeutil import format_ts

CURSOR_KIND = "staff_case_notes"
# The dashboard shows this many notes, newest first; the staff API pages through all of them.
PAGE_NOTES = 200


@dataclass(frozen=True, slots=True)
class NoteView:
    """A note with its author's email, for the dashboard and the staff API."""

    id: str
    client_id: str
    author_staff_id: str
    author_email: str | None
    text: str
    created_at: datetime

    def as_dict(self) -> Note:
        return {
            "noteId": self.id,
            "clientId": self.client_id,
            "authorStaffId": self.author_staff_id,
            "authorEmail": self.author_email,
            "text": self.text,
            "createdAt": format_ts(self.created_at),
        }


def _view(note: CaseNote, email: str | None) -> NoteView:
    return NoteView(
        note.id, note.application_id, note.author_staff_id, email, note.body, note.created_at
    )


async def add_note(
    session: AsyncSession, ctx: WriteContext, staff: StaffPrincipal, client_id: str, text: object
) -> Note:
    """Add a note (analyst+): 201 with the note; 404 unknown, 410 erased, 400 empty or long."""
    cleaned = check_note(text)
    application = await application_for_write(session, client_id)
    note = CaseNote(
        id=new_id("note"),
        application_id=application.id,
        author_staff_id=staff.staff_id,
        body=cleaned,
        created_at=ctx.now,
    )
    session.add(note)
    ctx.audit(
        session, "application.note.add", note.id, application.id, tenant_id=application.tenant_id
    )
    await session.flush()
    return _view(note, staff.email or None).as_dict()


def _notes_query(application_id: str) -> Any:
    return (
        select(CaseNote, StaffMember.email)
        .outerjoin(StaffMember, StaffMember.id == CaseNote.author_staff_id)
        .where(CaseNote.application_id == application_id)
    )


async def list_notes(
    session: AsyncSession, crypto: Crypto, client_id: str, page: PageRequest
) -> NotePage:
    """`GET /staff/v1/applications/{clientId}/notes`: newest first, keyset paged."""
    application = await application_for_read(session, client_id)
    scope = CursorScope(CURSOR_KIND, STAFF, {"clientId": application.id})
    position = read_position(crypto, scope, page.cursor)
    stmt = keyset_after(_notes_query(application.id), CaseNote.created_at, CaseNote.id, position)
    rows = (await session.execute(stmt.limit(page.limit + 1))).all()
    listed = page_of(
        rows,
        page,
        crypto=crypto,
        scope=scope,
        position_of=lambda row: (row[0].created_at, row[0].id),
        view=lambda row: _view(row[0], row[1]).as_dict(),
    )
    return NotePage(data=listed["data"], nextCursor=listed["nextCursor"], hasMore=listed["hasMore"])


async def notes_of(session: AsyncSession, application_id: str) -> list[NoteView]:
    """The newest PAGE_NOTES notes of an application, for its dashboard page."""
    stmt = keyset_after(_notes_query(application_id), CaseNote.created_at, CaseNote.id, None)
    rows = (await session.execute(stmt.limit(PAGE_NOTES))).all()
    return [_view(row[0], row[1]) for row in rows]
