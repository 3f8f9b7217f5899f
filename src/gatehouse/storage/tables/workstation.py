"""The reviewer's workstation (docs/workstation.md): internal notes on a case.

Notes are staff-only: no tenant read, webhook or portal page shows them. Erasing the
application deletes them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class CaseNote(Base):
    """One internal note (`note_`): its author, its time and its text."""

    __tablename__ = "case_notes"
    __table_args__ = (Index("ix_case_notes_application", "application_id", "created_at", "id"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"))
    author_staff_id: Mapped[str] = mapped_column(ForeignKey("staff_members.id"))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
